package io.gpusched.testkit.sim;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackendProvider;
import io.gpusched.jobs.Units;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * Provider {@code sim}: {@link SimulatedGpuBackend}. Its priority is negative, so
 * {@link io.gpusched.gpu.GpuBackends#detect} never picks it; ask for it by name.
 *
 * <p>Options:
 * <ul>
 *   <li>{@code gpus} — how many GPUs (required, at least 1);
 *   <li>{@code mib} — total memory per GPU, MiB or with a {@code G} suffix (default 24000); or one size
 *       per GPU, comma-separated, for GPUs of different sizes ({@code mib=24000,80G});
 *   <li>{@code external} — static external usage, e.g. {@code 0=1200,1=300} (MiB per GPU index);
 *   <li>{@code dir} — the usage directory (default {@code $GPUSCHED_SIM_DIR}, else a private
 *       temporary directory).
 * </ul>
 * Any other key is rejected, so a misspelt option is not silently ignored.
 */
public final class SimulatedGpuBackendProvider implements GpuBackendProvider {
    /** The provider's name. */
    public static final String NAME = "sim";
    /** Negative: a simulation must never be chosen automatically. */
    public static final int PRIORITY = -100;

    private static final Set<String> KEYS = Set.of("gpus", "mib", "external", "dir");

    /** Does nothing, as the SPI requires. */
    public SimulatedGpuBackendProvider() {
    }

    /** @return {@value #NAME} */
    @Override
    public String name() {
        return NAME;
    }

    /** @return {@value #PRIORITY} */
    @Override
    public int priority() {
        return PRIORITY;
    }

    /**
     * @return available on Linux (jobs are checked for liveness through {@code /proc}) when the
     *     options are valid; otherwise the reason
     */
    @Override
    public Availability availability(BackendOptions options) {
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return Availability.no("sim: needs Linux /proc to tell live simulated jobs from dead ones");
        }
        try {
            builder(options);
            return Availability.yes();
        } catch (BackendException e) {
            return Availability.no(e.getMessage());
        }
    }

    /**
     * @throws BackendException when an option is missing, unknown or malformed (the message names
     *     it and shows the expected form), or the usage directory cannot be created
     */
    @Override
    public GpuBackend create(BackendOptions options) {
        return builder(options).build();
    }

    /**
     * @param options the provider options described on this class
     * @return a builder configured from them
     * @throws BackendException when an option is missing, unknown or malformed
     */
    static SimulatedGpuBackend.Builder builder(BackendOptions options) {
        Set<String> unknown = new TreeSet<>(options.values().keySet());
        unknown.removeAll(KEYS);
        if (!unknown.isEmpty()) {
            throw new BackendException("sim: unknown option(s) " + unknown + "; known: gpus, mib, external, dir");
        }
        String gpusText = options.get("gpus").orElseThrow(
                () -> new BackendException("sim: option gpus=N is required (N >= 1), e.g. --sim 2"));
        int gpus = parseGpuCount(gpusText);
        SimulatedGpuBackend.Builder b = SimulatedGpuBackend.builder(gpus);
        options.get("mib").ifPresent(text -> {
            String[] sizes = text.split(",", -1);
            if (sizes.length != 1 && sizes.length != gpus) {
                throw new BackendException("sim: mib=" + text + " gives " + sizes.length + " sizes for " + gpus
                        + " GPUs; give one for all or one per GPU, e.g. mib=24000,80G");
            }
            for (int i = 0; i < sizes.length; i++) {
                String size = sizes[i].strip();
                long mib = Units.parseMib(size).orElseThrow(() -> new BackendException("sim: mib=" + text
                        + (Units.isMibForm(size) ? " has " + size + ", out of range: each size must be from 1 to "
                        + Units.MAX_MIB + " MiB" : " is not a memory size") + "; use e.g. mib=24000, mib=80G or mib=24000,80G"));
                if (sizes.length == 1) {
                    b.totalMib(mib);
                } else {
                    b.totalMib(i, mib);
                }
            }
        });
        options.get("external").ifPresent(text -> parseExternal(text, gpus, b));
        options.get("dir").ifPresent(text -> {
            try {
                b.directory(Path.of(text));
            } catch (InvalidPathException e) {
                throw new BackendException("sim: dir=" + text + " is not a valid path", e);
            }
        });
        return b;
    }

    private static int parseGpuCount(String text) {
        try {
            int n = Integer.parseInt(text.strip());
            if (n >= 1 && n <= 1024) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BackendException("sim: gpus=" + text + " is not a GPU count; use a whole number from 1, e.g. gpus=2");
    }

    private static void parseExternal(String text, int gpus, SimulatedGpuBackend.Builder b) {
        String form = "; use GPU=MiB pairs, e.g. external=0=1200,1=300";
        for (String pair : text.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq < 0) {
                throw new BackendException("sim: external entry '" + pair + "' has no '='" + form);
            }
            String gpuText = pair.substring(0, eq).strip();
            String mibText = pair.substring(eq + 1).strip();
            int gpu;
            try {
                gpu = Integer.parseInt(gpuText);
            } catch (NumberFormatException e) {
                throw new BackendException("sim: external entry '" + pair + "' does not start with a GPU index" + form, e);
            }
            if (gpu < 0 || gpu >= gpus) {
                throw new BackendException("sim: external entry '" + pair + "' names GPU " + gpu + " but GPUs are 0-"
                        + (gpus - 1));
            }
            OptionalLong mib = mibText.equals("0") ? OptionalLong.of(0) : Units.parseMib(mibText);
            if (mib.isEmpty()) {
                throw new BackendException("sim: external entry '" + pair + "' has no memory size after '='" + form);
            }
            b.external(gpu, mib.getAsLong());
        }
    }
}

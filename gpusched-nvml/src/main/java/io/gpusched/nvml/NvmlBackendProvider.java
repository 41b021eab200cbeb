package io.gpusched.nvml;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackendProvider;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The {@code nvml} GPU backend: NVIDIA GPUs and MIG instances read through the driver's NVML library
 * ({@code libnvidia-ml.so.1}) with JNA. Found by {@link io.gpusched.gpu.GpuBackends} through
 * {@link java.util.ServiceLoader}; it is the preferred backend wherever the driver is installed.
 *
 * <p>Which library is loaded, first match wins:
 * <ol>
 *   <li>the option {@code library}: an absolute path, e.g. {@code library=/usr/lib64/libnvidia-ml.so.1};</li>
 *   <li>the environment variable {@code GPUSCHED_NVML_LIBRARY}, likewise;</li>
 *   <li>{@code libnvidia-ml.so.1}, found by the dynamic linker. The soname is used on purpose: the
 *       unversioned {@code libnvidia-ml.so} may be the CUDA toolkit's stub, or missing on driver-only
 *       installs.</li>
 * </ol>
 * Nothing is loaded until {@link #availability} or {@link #create} is called.
 *
 * <p>What the snapshots contain (indices, MIG instances, rounding to MiB, unhealthy GPUs) is described
 * on the backend; in short: memory totals round down and uses round up to whole MiB, so free memory
 * is never overstated, and a process whose memory the driver does not know reports 0 MiB.
 */
public final class NvmlBackendProvider implements GpuBackendProvider {
    static final String LIBRARY_OPTION = "library";
    static final String LIBRARY_ENV = "GPUSCHED_NVML_LIBRARY";
    static final String DEFAULT_LIBRARY = "libnvidia-ml.so.1";

    private final UnaryOperator<String> environment;

    /** The provider ServiceLoader creates; does no work. */
    public NvmlBackendProvider() {
        this(System::getenv);
    }

    /** @param environment looks up environment variables (null when unset); tests pass a map */
    NvmlBackendProvider(UnaryOperator<String> environment) {
        this.environment = environment;
    }

    /** @return {@code nvml} */
    @Override
    public String name() {
        return "nvml";
    }

    /** @return 100: real hardware comes before any simulation */
    @Override
    public int priority() {
        return 100;
    }

    /**
     * Loads the NVML library (without initialising it) to see whether the driver is installed.
     *
     * @param options may name the library, see the class description
     * @return available, or not with the reason; never throws
     */
    @Override
    public Availability availability(BackendOptions options) {
        try {
            NvmlLoader.load(library(options));
            return Availability.yes();
        } catch (BackendException e) {
            return Availability.no(e.getMessage());
        } catch (LinkageError | RuntimeException e) {
            // e.g. JNA's own native part cannot be unpacked because the temp directory is noexec
            return Availability.no("NVML could not be loaded: " + e + "; if JNA cannot start, set -Djna.tmpdir to an executable directory");
        }
    }

    /**
     * Loads and initialises NVML.
     *
     * @param options may name the library, see the class description
     * @return an open backend; close it to shut NVML down
     * @throws BackendException when the library is missing or NVML cannot be initialised (e.g. the driver
     *     is not loaded, or was upgraded without a reboot); the message says which and what to do
     */
    @Override
    public GpuBackend create(BackendOptions options) {
        NvmlLoader.Loaded loaded = NvmlLoader.load(library(options));
        // which file was loaded matters when a CUDA stub or a WSL shim shadows the driver's library
        System.getLogger(NvmlBackendProvider.class.getName()).log(System.Logger.Level.DEBUG,
                "NVML loaded from {0}; process lists via {1} ({2}-byte entries)", loaded.file(),
                loaded.symbols().processList().symbol(), loaded.symbols().processList().stride());
        return NvmlBackend.open(loaded.nvml(), loaded.symbols(), System::nanoTime);
    }

    /** @return the library to load for these options: option, then environment, then the soname */
    String library(BackendOptions options) {
        return options.get(LIBRARY_OPTION).filter(s -> !s.isBlank())
                .or(() -> Optional.ofNullable(environment.apply(LIBRARY_ENV)).filter(s -> !s.isBlank()))
                .orElse(DEFAULT_LIBRARY);
    }
}

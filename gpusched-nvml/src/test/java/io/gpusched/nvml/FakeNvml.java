package io.gpusched.nvml;

import com.sun.jna.NativeLibrary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * One build of the fake {@code libnvidia-ml.so.1} (src/test/c/fake_nvml.c), loaded through the real JNA
 * path, and the state file it serves. Tests describe the machine with {@link #state} lines (the
 * format is in the C file's header) and may rewrite it between snapshots.
 */
final class FakeNvml {
    /** The simulated driver generations, one shared library each (see build-fake-nvml.sh). */
    enum Variant {
        /** {@code _v3} with 24-byte entries, detail-list and confidential-computing symbols: R550+. */
        MODERN,
        /** Only v1 process lists, no PCI v3, no MIG: R430/R440. */
        LEGACY,
        /** {@code _v2} but no {@code _v3}: R450–R470. */
        NO_V3,
        /** {@code _v3} writing 32-byte entries, recognisable by its symbols: R535.43–R535.54. */
        R535,
        /** 32-byte entries behind symbols that look modern: only the sanity check can tell. */
        R535_UNLABELLED,
        /** 24-byte entries behind symbols that look like R535: the guess of 32 must be undone. */
        R535_FIXED;

        Path library() {
            Path dir = Path.of(System.getProperty("fake.nvml.dir", "target/fake-nvml"));
            return dir.resolve(name().toLowerCase(Locale.ROOT)).resolve("libnvidia-ml.so.1").toAbsolutePath();
        }
    }

    /** Two healthy GPUs with two processes on the first. */
    static final String TWO_GPUS = String.join("\n",
            "driver 550.54.15",
            "gpu uuid=GPU-aaaa name=NVIDIA_H100_80GB_HBM3 bus=00000000:17:00.0 total_mib=81559 used_mib=2048 util=37",
            "gpu uuid=GPU-bbbb name=NVIDIA_H100_80GB_HBM3 bus=00000000:65:00.0 total_mib=81559 used_mib=0 util=0",
            "proc gpu=0 pid=4242 used_mib=1200",
            "proc gpu=0 pid=4343 used_mib=800");

    private final Variant variant;
    private final Path state;
    private final NativeLibrary library;

    private FakeNvml(Variant variant, Path state) {
        this.variant = variant;
        this.state = state;
        this.library = NativeLibrary.getInstance(variant.library().toString());
    }

    /**
     * @param variant which build
     * @param dir a temporary directory for the state file
     * @return the fake, reset, serving {@link #TWO_GPUS}
     */
    static FakeNvml start(Variant variant, Path dir) {
        FakeNvml fake = new FakeNvml(variant, dir.resolve("fake-nvml-state.txt"));
        fake.state(TWO_GPUS);
        fake.library.getFunction("fakeNvmlSetStateFile").invokeVoid(new Object[] {fake.state.toString()});
        return fake;
    }

    /** Replaces the machine the fake serves, atomically, so a concurrent read sees old or new. */
    FakeNvml state(String... lines) {
        try {
            Path tmp = state.resolveSibling(state.getFileName() + ".tmp");
            Files.writeString(tmp, String.join("\n", lines) + "\n");
            Files.move(tmp, state, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** @return the absolute path of this build, as the {@code library} option takes it */
    String library() {
        return variant.library().toString();
    }

    /** @return a backend over this fake with a real clock */
    NvmlBackend open() {
        return open(System::nanoTime);
    }

    /** @return a backend over this fake with the given clock */
    NvmlBackend open(LongSupplier nanoTime) {
        NvmlLoader.Loaded loaded = NvmlLoader.load(library());
        return NvmlBackend.open(loaded.nvml(), loaded.symbols(), nanoTime);
    }

    /** @return how often nvmlInit_v2 was called since {@link #start} */
    int initCalls() {
        return library.getFunction("fakeNvmlInitCalls").invokeInt(new Object[0]);
    }

    /** @return NVML initialisations not yet shut down */
    int refCount() {
        return library.getFunction("fakeNvmlRefCount").invokeInt(new Object[0]);
    }

    /** @return sizeof of one of the fake's C structs: memory, utilization, pci, proc_v1, proc_v2, proc_r535, return */
    int sizeOf(String type) {
        return library.getFunction("fakeNvmlSizeof").invokeInt(new Object[] {type});
    }
}

package io.gpusched.nvml;

import com.sun.jna.Native;
import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@link GpuBackend} over NVML. Owns one NVML initialisation: {@code nvmlInit_v2} when opened,
 * {@code nvmlShutdown} when closed.
 *
 * <p>When NVML as a whole fails during a snapshot (driver unloaded, driver/library version mismatch),
 * {@link #snapshot()} throws a {@link BackendException} naming the cause, and later calls try to
 * initialise NVML again, at most once every {@link #REINIT_INTERVAL_NANOS}: an init against a broken
 * driver can be slow, and the scheduler polls several times a second. Between attempts, snapshot()
 * throws at once without calling NVML.
 *
 * <p>A snapshot after {@link #close()} throws {@link IllegalStateException}: it is a programming
 * error, not a condition that retrying cures. Not thread-safe (the scheduler polls from one thread).
 */
final class NvmlBackend implements GpuBackend {
    /** Minimum time between two attempts to re-initialise a failed NVML. */
    static final long REINIT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final NvmlLibrary nvml;
    private final SnapshotReader reader;
    private final LongSupplier nanoTime;
    private String driverVersion = "unknown";
    private boolean initialized;
    private boolean closed;
    /** Why NVML must be initialised again; empty while it works. */
    private String failure = "";
    private long lastInitAttempt;

    private NvmlBackend(NvmlLibrary nvml, NvmlSymbols symbols, LongSupplier nanoTime) {
        this.nvml = nvml;
        this.reader = new SnapshotReader(nvml, symbols);
        this.nanoTime = nanoTime;
    }

    /**
     * Initialises NVML and returns a backend over it.
     *
     * @param nvml the loaded library
     * @param symbols what it offers
     * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime}; tests pass a fake)
     * @throws BackendException when NVML cannot be initialised; the message names the cause
     */
    static NvmlBackend open(NvmlLibrary nvml, NvmlSymbols symbols, LongSupplier nanoTime) {
        NvmlBackend backend = new NvmlBackend(nvml, symbols, nanoTime);
        int rc = nvml.nvmlInit_v2();
        if (rc != NvmlReturn.SUCCESS) {
            throw new BackendException(NvmlReturn.message("nvmlInit_v2", rc, nvml.nvmlErrorString(rc)));
        }
        backend.initialized = true;
        backend.afterInit();
        return backend;
    }

    @Override
    public GpuSnapshot snapshot() {
        if (closed) {
            throw new IllegalStateException("the NVML backend is closed; create a new one");
        }
        if (!failure.isEmpty()) {
            reinitialise();
        }
        try {
            return reader.read();
        } catch (DriverFailure e) {
            failure = e.getMessage();
            lastInitAttempt = nanoTime.getAsLong();
            shutdown();
            throw retrying();
        }
    }

    @Override
    public String describe() {
        int gpus = reader.physicalCount();
        return "nvml (driver " + driverVersion + ", " + gpus + (gpus == 1 ? " GPU)" : " GPUs)");
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            shutdown();
        }
    }

    /** @return the process-entry size in bytes now in use (16, 24 or 32) */
    int processStride() {
        return reader.processStride();
    }

    private void reinitialise() {
        long now = nanoTime.getAsLong();
        if (now - lastInitAttempt < REINIT_INTERVAL_NANOS) {
            throw retrying();
        }
        lastInitAttempt = now;
        int rc = nvml.nvmlInit_v2();
        if (rc != NvmlReturn.SUCCESS) {
            failure = NvmlReturn.message("nvmlInit_v2", rc, nvml.nvmlErrorString(rc));
            throw retrying();
        }
        initialized = true;
        failure = "";
        afterInit();
    }

    private BackendException retrying() {
        return new BackendException(failure + " (NVML is re-initialised at most every "
                + TimeUnit.NANOSECONDS.toSeconds(REINIT_INTERVAL_NANOS) + " s)");
    }

    /** Reads what describe() shows; failures here are not worth refusing to start over. */
    private void afterInit() {
        byte[] version = new byte[NvmlLibrary.DRIVER_VERSION_BUFFER_SIZE];
        if (nvml.nvmlSystemGetDriverVersion(version, version.length) == NvmlReturn.SUCCESS) {
            driverVersion = Native.toString(version, "US-ASCII");
        }
        try {
            reader.countDevices();
        } catch (DriverFailure | BackendException e) {
            // the first snapshot() reports it, with the re-init policy applied
        }
    }

    private void shutdown() {
        if (initialized) {
            initialized = false;
            nvml.nvmlShutdown();
        }
    }
}

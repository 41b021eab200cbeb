package io.gpusched.gpu;

/**
 * The source of GPU state: the one thing the scheduler needs from hardware. Implementations are
 * found through {@link GpuBackendProvider}s; the scheduler never calls {@link #snapshot()} from two
 * threads at once, so an implementation need not be thread-safe. It calls it on a worker thread and
 * waits at most {@link io.gpusched.options.SchedulerOptions#backendTimeout()}: a call that takes longer counts
 * as failed, its late answer is discarded, and no further call is made until it returns.
 */
public interface GpuBackend extends AutoCloseable {
    /**
     * Reads every GPU and compute process now. Should be cheap enough to call every 100–250 ms.
     *
     * @return the current state
     * @throws BackendException when the state cannot be read this time; the scheduler warns, retries
     *     on its next poll and keeps tracking running jobs
     */
    GpuSnapshot snapshot();

    /**
     * @return a short description for log lines, e.g. {@code "nvml (driver 550.54)"} or {@code "sim (2 GPUs)"}
     */
    String describe();

    /**
     * Extra environment variables every job launched by a scheduler on this backend receives, e.g. the
     * directory simulated jobs report their usage to. Empty by default.
     *
     * @return variable name to value
     */
    default java.util.Map<String, String> jobEnvironment() {
        return java.util.Map.of();
    }

    /**
     * The extra environment of a job that a root scheduler runs as one of its users, in place of
     * {@link #jobEnvironment()}: a backend whose jobs write files for it (the simulated GPUs' usage
     * reports) gives each user a place of their own, so no user can write another's reports. Called
     * on the scheduler's thread, possibly while {@link #snapshot()} runs on another, once per job
     * start. By default {@link #jobEnvironment()}.
     *
     * @param user the Unix user name the job runs as, as the kernel named its submitter
     * @return variable name to value
     */
    default java.util.Map<String, String> jobEnvironment(String user) {
        return jobEnvironment();
    }

    /** Releases the backend (e.g. {@code nvmlShutdown}); idempotent; never throws. */
    @Override
    void close();
}

package io.gpusched.model;

/**
 * How a job's peak VRAM figure came about, so that a missing figure says why it is missing.
 */
public enum Measurement {
    /** GPU memory of the job's session was seen while it ran; the peaks are what was sampled. */
    MEASURED,
    /**
     * It ran under the scheduler's eye and no GPU process of its session was ever seen: it used no
     * GPU memory, or used it only between two samples.
     */
    NONE_SEEN,
    /**
     * GPU processes were reported with PIDs that do not exist in the scheduler's PID namespace (a
     * container without {@code --pid=host}), so none could be matched to a job.
     */
    NOT_VISIBLE,
    /**
     * It ended while no scheduler watched it (a restarted scheduler found its exit status), so its
     * memory was not sampled to the end.
     */
    UNWATCHED,
    /** It never ran: cancelled before start, or infeasible. */
    NOT_RUN
}

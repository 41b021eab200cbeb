package io.gpusched.cluster;

import java.io.IOException;

/**
 * The cluster answered and refused this attempt for now, for a reason that is not the job's (a submit-count
 * limit reached, {@link ClusterBusy}): unlike an {@link AttemptRefusedException} the job is not failed, it
 * stays pending with the busy reason and is handed over again later, as {@link ClusterBusy} says; the other
 * jobs of the same round wait with it, since the cluster would refuse them for the same reason.
 */
public final class AttemptDeferredException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Not serialized with the exception: the engine reads it on the thread that caught it. */
    private final transient ClusterBusy busy;

    /**
     * @param message one line naming the file, the line and the cluster's words
     * @param busy why the jobs wait and when to try again
     */
    public AttemptDeferredException(String message, ClusterBusy busy) {
        super(message);
        this.busy = java.util.Objects.requireNonNull(busy, "busy");
    }

    /** @return why the jobs wait and when to try again */
    public ClusterBusy busy() {
        return busy;
    }
}

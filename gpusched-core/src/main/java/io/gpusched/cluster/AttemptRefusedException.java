package io.gpusched.cluster;

import java.io.IOException;

/**
 * The cluster answered and refused this one attempt (what it asks for, e.g. more GPUs than any node has,
 * or a time limit over the partition's), not the cluster itself failing: the engine ends the job
 * {@link io.gpusched.model.JobStatus#INFEASIBLE infeasible} with this message, as a local job that can
 * never fit, its dependants are treated as a failed job's, and the other jobs go on. A cluster that could
 * not be asked at all is a plain {@link IOException} instead (the job stays pending).
 */
public final class AttemptRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message one line naming the file, the line and the cluster's reason */
    public AttemptRefusedException(String message) {
        super(message);
    }
}

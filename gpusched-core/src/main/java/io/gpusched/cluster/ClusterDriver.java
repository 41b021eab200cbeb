package io.gpusched.cluster;

import java.io.IOException;

/**
 * Hands attempts over to a cluster that places them itself. The engine calls {@link #submit} on its own
 * thread, in queue order, once per attempt, and never picks a GPU for it; the cluster's answer is a
 * {@link ClusterRun} the engine follows until it ends.
 */
public interface ClusterDriver {
    /**
     * Hands one attempt over (or follows it again, where the cluster already holds it from an earlier
     * scheduler: never twice). Called on the engine's thread; it may wait for the cluster's answer.
     *
     * @param attempt what to run
     * @return the attempt as the cluster holds it
     * @throws IOException when the cluster refused it or could not be asked; the job stays pending and
     *     the message is said once
     */
    ClusterRun submit(ClusterAttempt attempt) throws IOException;

    /** @return how the run's first line names where jobs run, e.g. {@code slurm (nvml inside each job)} */
    String describe();
}

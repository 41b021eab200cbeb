package io.gpusched.cluster;

import io.gpusched.jobs.JobSpec;
import java.io.IOException;
import java.util.Optional;

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
     * @throws AttemptRefusedException when the cluster refused this attempt itself: the job ends infeasible
     *     with that message, the other jobs go on
     * @throws IOException when the cluster could not be asked; the job stays pending and the message is said
     *     once
     */
    ClusterRun submit(ClusterAttempt attempt) throws IOException;

    /**
     * Why the cluster can never run a job as written (an attribute it cannot express), asked before each
     * hand-over: the engine then ends the job infeasible with that reason instead of handing it over, so a
     * line added to a live jobs file is told why and the run still ends, as one refused before the run
     * would be.
     *
     * @param spec the job, its requirement rules applied
     * @return one line naming the file, the line and the fix; empty when the cluster may take it (the default)
     */
    default Optional<String> refusal(JobSpec spec) {
        return Optional.empty();
    }

    /** @return how the run's first line names where jobs run, e.g. {@code slurm (nvml inside each job)} */
    String describe();
}

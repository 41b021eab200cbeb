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
     * @throws AttemptDeferredException when the cluster refused it for now for a reason not the job's (a
     *     submit-count limit): the job stays pending and is handed over again later ({@link #busy()})
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

    /**
     * Whether the cluster takes no attempt for now (it refused one for a submit-count limit, and none of the
     * run's cluster jobs has ended since, nor has its back-off passed), asked before each round's hand-overs:
     * the engine then keeps every job pending with its reason instead of asking the cluster again, so a
     * reached limit costs one refused submission per wait, not one per job and round.
     *
     * @return why no attempt can be handed over now and when to ask again; empty when one may (the default)
     */
    default Optional<ClusterBusy> busy() {
        return Optional.empty();
    }

    /** @return how the run's first line names where jobs run, e.g. {@code slurm (nvml inside each job)} */
    String describe();
}

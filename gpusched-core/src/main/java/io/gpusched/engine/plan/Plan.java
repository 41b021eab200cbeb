package io.gpusched.engine.plan;

import io.gpusched.engine.queue.PendingQueue;

import io.gpusched.policy.Reservation;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one dispatch decided, before anything is carried out: a value computed from the pending jobs,
 * the running set and a GPU snapshot alone ({@link Dispatcher#decide}), with no clock read, process or
 * file. {@link Dispatcher#apply} then carries it out in the order given: failures journaled, starts
 * launched, preemptions signalled.
 *
 * @param actions one per pending job, in the order they are carried out
 * @param preempt keys of running jobs to stop so a reserved job can start
 * @param reservation the job GPUs are held back for, if any
 * @param replanAt when to plan again even if nothing changes (a job reaching the reservation threshold)
 */
public record Plan(List<Action> actions, List<String> preempt, Optional<Reservation> reservation, Optional<Instant> replanAt) {
    /** Copies the lists. */
    public Plan {
        actions = List.copyOf(actions);
        preempt = List.copyOf(preempt);
    }

    /** What becomes of one pending job. */
    sealed interface Action {
        /** @return the job it is about */
        PendingQueue.PendingJob job();
    }

    /**
     * Start it.
     *
     * @param gpus the GPUs it gets
     * @param declared what it declares on them (a share's MiB on the GPU it got)
     */
    record Start(PendingQueue.PendingJob job, List<Integer> gpus, OptionalLong declared) implements Action {
    }

    /**
     * It waits.
     *
     * @param reason why, as the board says
     */
    record Wait(PendingQueue.PendingJob job, String reason) implements Action {
    }

    /**
     * It can never be placed: it ends infeasible.
     *
     * @param reason why
     */
    record Fail(PendingQueue.PendingJob job, String reason) implements Action {
    }
}

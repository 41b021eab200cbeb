package io.gpusched.policy;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One round of the queue policy.
 *
 * @param decisions one per waiting job, in queue order (highest effective priority first)
 * @param reservation the GPUs held back for the head of the queue, if it has waited long enough
 * @param preempt keys of running preemptible jobs to stop and requeue now, to make room for the
 *     reservation's job
 * @param replanAt when the plan should be made again even if nothing else changed (a job reaching
 *     the reservation threshold, a reservation's clock); empty when only a change can alter it
 */
public record Plan(List<Decision> decisions, Optional<Reservation> reservation, List<String> preempt,
                   Optional<Instant> replanAt) {
    /**
     * Checks for nulls and copies the lists.
     *
     * @param decisions see {@link #decisions()}
     * @param reservation see {@link #reservation()}
     * @param preempt see {@link #preempt()}
     * @param replanAt see {@link #replanAt()}
     */
    public Plan {
        Objects.requireNonNull(reservation, "reservation");
        Objects.requireNonNull(replanAt, "replanAt");
        decisions = List.copyOf(decisions);
        preempt = List.copyOf(preempt);
    }
}

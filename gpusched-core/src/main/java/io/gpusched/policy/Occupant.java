package io.gpusched.policy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A running job as the policy sees it.
 *
 * @param key its identity (its tenant key on the GPU views)
 * @param no its display number
 * @param gpus the GPUs it holds
 * @param startedAt when it started
 * @param timeout its time limit, if any: it has left its GPUs by {@code startedAt + timeout} at the
 *     latest (plus the kill grace, which the policy ignores)
 * @param priority its declared priority
 * @param preemptible whether it may be stopped for a higher-priority job
 * @param stopping whether it is already being stopped
 */
public record Occupant(String key, int no, List<Integer> gpus, Instant startedAt, Optional<Duration> timeout, int priority,
                       boolean preemptible, boolean stopping) {
    /**
     * Checks for nulls and copies the list.
     *
     * @param key see {@link #key()}
     * @param no see {@link #no()}
     * @param gpus see {@link #gpus()}
     * @param startedAt see {@link #startedAt()}
     * @param timeout see {@link #timeout()}
     * @param priority see {@link #priority()}
     * @param preemptible see {@link #preemptible()}
     * @param stopping see {@link #stopping()}
     */
    public Occupant {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(timeout, "timeout");
        gpus = List.copyOf(gpus);
    }

    /** @return when it will have ended at the latest; empty when it may run forever */
    public Optional<Instant> endsBy() {
        return timeout.map(startedAt::plus);
    }
}

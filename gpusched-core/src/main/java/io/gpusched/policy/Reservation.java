package io.gpusched.policy;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * GPUs held back for the head of the queue: no later job may take them unless it is sure to end before
 * every job already running there.
 *
 * @param key the waiting job's key
 * @param no its display number
 * @param gpus the reserved GPUs, ascending
 * @param waited how long it has waited
 * @param preempting running preemptible jobs being stopped to make room for it, by display number
 */
public record Reservation(String key, int no, List<Integer> gpus, Duration waited, List<Integer> preempting) {
    /**
     * Checks for nulls and copies the lists.
     *
     * @param key see {@link #key()}
     * @param no see {@link #no()}
     * @param gpus see {@link #gpus()}
     * @param waited see {@link #waited()}
     * @param preempting see {@link #preempting()}
     */
    public Reservation {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(waited, "waited");
        gpus = List.copyOf(gpus);
        preempting = List.copyOf(preempting);
    }

    /** @return one phrase, e.g. {@code gpu0, gpu1 reserved for job 7, waiting 16m} */
    public String describe() {
        return String.join(", ", gpus.stream().map(g -> "gpu" + g).toList()) + " reserved for job " + no + ", waiting "
                + Waits.format(waited);
    }
}

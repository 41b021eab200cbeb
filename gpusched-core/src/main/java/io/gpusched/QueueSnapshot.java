package io.gpusched;

import java.time.Instant;
import java.util.Set;

/**
 * The queue at one moment, immutable, for any thread to read without touching the scheduler's loop
 * (dashboards, a service answering "queue"): what the status board shows, and which GPUs are paused.
 *
 * @param at when the loop took it
 * @param board running jobs with their GPUs and live VRAM, pending jobs with why each waits, and the
 *     jobs that ended
 * @param pausedGpus the GPUs paused now, by index
 * @param orphans display numbers of jobs a previous scheduler started that still run: waited for, not
 *     run again, and not in the board's lists
 * @param gpus the GPUs as the backend last reported them (memory in MiB, utilisation); empty before the
 *     first answer
 */
public record QueueSnapshot(Instant at, StatusBoard board, Set<Integer> pausedGpus, java.util.List<Integer> orphans,
                            java.util.List<io.gpusched.gpu.GpuStat> gpus) {
    /**
     * Copies the collections.
     *
     * @param at see {@link #at()}
     * @param board see {@link #board()}
     * @param pausedGpus see {@link #pausedGpus()}
     * @param orphans see {@link #orphans()}
     * @param gpus see {@link #gpus()}
     */
    public QueueSnapshot {
        pausedGpus = Set.copyOf(pausedGpus);
        orphans = java.util.List.copyOf(orphans);
        gpus = java.util.List.copyOf(gpus);
    }

    /**
     * A snapshot without GPU figures.
     *
     * @param at see {@link #at()}
     * @param board see {@link #board()}
     * @param pausedGpus see {@link #pausedGpus()}
     * @param orphans see {@link #orphans()}
     */
    public QueueSnapshot(Instant at, StatusBoard board, Set<Integer> pausedGpus, java.util.List<Integer> orphans) {
        this(at, board, pausedGpus, orphans, java.util.List.of());
    }
}

package io.gpusched.event;

import java.time.Instant;
import java.util.Set;

/**
 * The queue at one moment, immutable, for any thread to read without touching the scheduler's loop
 * (dashboards, a service answering "queue"): what the status board shows, and which GPUs are paused.
 *
 * @param at when the loop took it
 * @param board running jobs with their GPUs and live VRAM, pending jobs with why each waits, and the
 *     jobs that ended
 * @param pausedGpus the GPUs paused now, by the index each is listed at now (a pause follows its device by UUID)
 * @param orphans display numbers of jobs a previous scheduler started that still run: waited for, not
 *     run again, and not in the board's lists
 * @param gpus the GPUs as the backend last reported them (memory in MiB, utilisation); empty before the
 *     first answer
 * @param memory each GPU's memory as placement counts it (the running jobs' declarations and use, what
 *     others hold, the headroom left), in MiB; empty before the first answer
 */
public record QueueSnapshot(Instant at, StatusBoard board, Set<Integer> pausedGpus, java.util.List<Integer> orphans,
                            java.util.List<io.gpusched.gpu.GpuStat> gpus, java.util.List<GpuMemory> memory) {
    /**
     * Copies the collections.
     *
     * @param at see {@link #at()}
     * @param board see {@link #board()}
     * @param pausedGpus see {@link #pausedGpus()}
     * @param orphans see {@link #orphans()}
     * @param gpus see {@link #gpus()}
     * @param memory see {@link #memory()}
     */
    public QueueSnapshot {
        pausedGpus = Set.copyOf(pausedGpus);
        orphans = java.util.List.copyOf(orphans);
        gpus = java.util.List.copyOf(gpus);
        memory = java.util.List.copyOf(memory);
    }

    /**
     * A snapshot without the memory breakdown.
     *
     * @param at see {@link #at()}
     * @param board see {@link #board()}
     * @param pausedGpus see {@link #pausedGpus()}
     * @param orphans see {@link #orphans()}
     * @param gpus see {@link #gpus()}
     */
    public QueueSnapshot(Instant at, StatusBoard board, Set<Integer> pausedGpus, java.util.List<Integer> orphans,
                         java.util.List<io.gpusched.gpu.GpuStat> gpus) {
        this(at, board, pausedGpus, orphans, gpus, java.util.List.of());
    }

    /**
     * One GPU's memory as placement counts it ({@link io.gpusched.alloc.Headroom}), in MiB.
     *
     * @param gpu the GPU index
     * @param totalMib its memory
     * @param usedMib what the backend reports in use, by anyone
     * @param externalMib what processes gpusched did not start are taken to hold (the larger of their use
     *     now and their buffered peaks)
     * @param headroomMib what is left for a new declared job: total − external − Σ the jobs' budgets; may
     *     be negative when over-committed
     * @param jobs the running jobs on it, by display number
     */
    public record GpuMemory(int gpu, long totalMib, long usedMib, long externalMib, long headroomMib,
                            java.util.List<JobMemory> jobs) {
        /**
         * Copies the list.
         *
         * @param gpu see {@link #gpu()}
         * @param totalMib see {@link #totalMib()}
         * @param usedMib see {@link #usedMib()}
         * @param externalMib see {@link #externalMib()}
         * @param headroomMib see {@link #headroomMib()}
         * @param jobs see {@link #jobs()}
         */
        public GpuMemory {
            jobs = java.util.List.copyOf(jobs);
        }

        /** @return what placement holds back on this GPU: total − headroom, in MiB */
        public long reservedMib() {
            return totalMib - headroomMib;
        }
    }

    /**
     * A running job's memory on one GPU, in MiB.
     *
     * @param no its display number
     * @param declaredMib its declaration; empty when undeclared
     * @param usedMib what it holds there now
     * @param peakMib the most it held there
     * @param budgetMib what placement counts it for: its declaration while its peak stays within it, its
     *     buffered peak once it broke it, never less than its use now
     */
    public record JobMemory(int no, java.util.OptionalLong declaredMib, long usedMib, long peakMib, long budgetMib) {
        /**
         * Checks for null.
         *
         * @param no see {@link #no()}
         * @param declaredMib see {@link #declaredMib()}
         * @param usedMib see {@link #usedMib()}
         * @param peakMib see {@link #peakMib()}
         * @param budgetMib see {@link #budgetMib()}
         */
        public JobMemory {
            java.util.Objects.requireNonNull(declaredMib, "declaredMib");
        }
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

package io.gpusched.testkit.replay;

import io.gpusched.model.JobStatus;
import java.time.Duration;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a replay found.
 *
 * @param makespan time from the first dispatch to the last job's end
 * @param runs every job that ran, in start order
 * @param infeasible jobs that could never be placed, with the allocator's reason, by job number
 * @param timeline per GPU index, ascending, the runs that used it, in start order
 * @param busyFraction per GPU index, ascending, the fraction of the makespan it held at least one job
 */
public record ReplayResult(Duration makespan, List<Run> runs, Map<ReplayJob, String> infeasible,
                           Map<Integer, List<Run>> timeline, Map<Integer, Double> busyFraction) {
    /**
     * Copies the collections, the maps in a fixed order (GPU index, job number), so what is printed from
     * them is the same in every run (a {@code Map.copyOf}'s order changes from JVM to JVM).
     *
     * @param makespan see {@link #makespan()}
     * @param runs see {@link #runs()}
     * @param infeasible see {@link #infeasible()}
     * @param timeline see {@link #timeline()}
     * @param busyFraction see {@link #busyFraction()}
     */
    public ReplayResult {
        runs = List.copyOf(runs);
        infeasible = ordered(infeasible, Comparator.comparingInt(ReplayJob::no));
        timeline = ordered(timeline, Comparator.naturalOrder());
        busyFraction = ordered(busyFraction, Comparator.naturalOrder());
    }

    private static <K, V> Map<K, V> ordered(Map<K, V> map, Comparator<? super K> order) {
        TreeMap<K, V> sorted = new TreeMap<>(order);
        map.forEach((k, v) -> sorted.put(Objects.requireNonNull(k), Objects.requireNonNull(v)));
        return Collections.unmodifiableMap(sorted);
    }

    /**
     * One job's placement in the replay.
     *
     * @param job the job
     * @param gpus the GPUs it got, ascending
     * @param start when it started, from the replay's zero
     * @param end when it ended: at its timeout if {@link #timedOut()}
     * @param status how it ended, as the engine's outcome rules judge it ({@link JobStatus#OK} or
     *     {@link JobStatus#TIMEOUT}); empty when it was stopped to run again later
     */
    public record Run(ReplayJob job, List<Integer> gpus, Duration start, Duration end, Optional<JobStatus> status) {
        /**
         * Copies the list.
         *
         * @param job see {@link #job()}
         * @param gpus see {@link #gpus()}
         * @param start see {@link #start()}
         * @param end see {@link #end()}
         * @param status see {@link #status()}
         */
        public Run {
            gpus = List.copyOf(gpus);
            Objects.requireNonNull(status, "status");
        }

        /**
         * @return whether it was stopped to run again later: preempted for a higher-priority job, or its
         *     time slice ended ({@code on-timeout=requeue})
         */
        public boolean preempted() {
            return status.isEmpty();
        }

        /** @return whether it was stopped at its timeout (and so ended as a timeout, not on its own) */
        public boolean timedOut() {
            return status.equals(Optional.of(JobStatus.TIMEOUT));
        }
    }
}

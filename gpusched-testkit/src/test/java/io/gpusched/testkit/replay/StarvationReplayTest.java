package io.gpusched.testkit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.jobs.Scheduling;
import io.gpusched.policy.PolicyOptions;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** No starvation: the head of the queue gets its GPUs within a bound once reservations are on. */
class StarvationReplayTest {
    private static final PolicyOptions DEFAULTS = PolicyOptions.defaults();
    private static final PolicyOptions NEVER_RESERVE = DEFAULTS.withReserveAfter(Duration.ofDays(36_500));

    private static Duration bigStart(ReplayResult r) {
        return r.runs().stream().filter(run -> run.job().gpus() == 4).findFirst().orElseThrow().start();
    }

    @Test
    void theBenchmarkStreamStarvesTheBigJobWithoutReservations_andNotWithThem() {
        List<ReplayJob> jobs = ReplayWorkload.fromJobsFile(Path.of("../bench/starvation/stream.txt"), Optional.empty());
        List<Long> gpus = List.of(24000L, 24000L, 24000L, 24000L);
        Duration before = bigStart(new Replay(PlacementPolicy.defaults(), NEVER_RESERVE, gpus).run(jobs));
        Duration after = bigStart(new Replay(PlacementPolicy.defaults(), DEFAULTS, gpus).run(jobs));
        assertTrue(before.compareTo(Duration.ofHours(8)) > 0, "without reservations it waits out the stream: " + before);
        // Queued at 1 s; reserved 30 min later; every job on the reserved GPUs ends within its 12 min timeout.
        assertTrue(after.compareTo(Duration.ofSeconds(1).plus(DEFAULTS.reserveAfter()).plusMinutes(12)) <= 0,
                "with them it starts within the bound: " + after);
    }

    /** A random machine and stream: 1-GPU jobs with timeouts arriving for hours, one job needing every GPU. */
    record Stream(int gpus, List<ReplayJob> jobs, Duration longestTimeout) {
    }

    static Gen<Stream> streams() {
        return (r, size) -> {
            int gpus = 2 + r.nextInt(4);
            List<ReplayJob> jobs = new ArrayList<>();
            int no = 1;
            long maxTimeout = 0;
            for (int g = 0; g < gpus; g++) {
                long timeout = 60 + r.nextInt(1800);
                maxTimeout = Math.max(maxTimeout, timeout);
                jobs.add(job(no++, 1, 1 + r.nextInt((int) timeout), timeout, 0, false));
            }
            jobs.add(new ReplayJob(no++, "big", OptionalLong.of(20480), gpus, Duration.ofMinutes(30), OptionalLong.empty(),
                    Optional.empty(), Duration.ofSeconds(1), new Scheduling(r.nextInt(3), List.of(), false,
                    Scheduling.OnTimeout.FAIL, Optional.empty(), List.of())));
            long t = 0;
            while (t < 6 * 3600) {
                t += 10 + r.nextInt(300);
                long timeout = 60 + r.nextInt(1800);
                maxTimeout = Math.max(maxTimeout, timeout);
                jobs.add(job(no++, 1, 1 + r.nextInt((int) timeout), timeout, t, r.nextInt(4) == 0));
            }
            return new Stream(gpus, jobs, Duration.ofSeconds(maxTimeout));
        };
    }

    private static ReplayJob job(int no, int gpus, long seconds, long timeout, long at, boolean preemptible) {
        return new ReplayJob(no, "j" + no, OptionalLong.of(20480), gpus, Duration.ofSeconds(seconds), OptionalLong.empty(),
                Optional.of(Duration.ofSeconds(timeout)), Duration.ofSeconds(at), new Scheduling(0, List.of(), preemptible,
                Scheduling.OnTimeout.FAIL, Optional.empty(), List.of()));
    }

    @Test
    void inRandomStreamsTheBigJobStartsWithinReserveAfterPlusTheLongestTimeout() {
        Property.forAll(streams()).tries(60).check(s -> {
            List<Long> totals = java.util.Collections.nCopies(s.gpus(), 24000L);
            ReplayResult r = new Replay(PlacementPolicy.defaults(), DEFAULTS, totals).run(s.jobs());
            Duration bound = Duration.ofSeconds(1).plus(DEFAULTS.reserveAfter()).plus(s.longestTimeout());
            Duration start = r.runs().stream().filter(run -> run.job().command().equals("big")).findFirst().orElseThrow()
                    .start();
            assertTrue(start.compareTo(bound) <= 0, "big job started at " + start + ", bound " + bound);
        });
    }

    @Test
    void aPreemptedJobAlwaysRunsAgainToItsEnd() {
        java.util.concurrent.atomic.AtomicInteger preemptions = new java.util.concurrent.atomic.AtomicInteger();
        Property.forAll(streams()).tries(60).check(s -> {
            List<Long> totals = java.util.Collections.nCopies(s.gpus(), 24000L);
            List<ReplayJob> jobs = new ArrayList<>(s.jobs());
            // The big job outranks the others, all preemptible here: it stops them once it has waited.
            jobs.replaceAll(j -> new ReplayJob(j.no(), j.command(), j.declaredMib(), j.gpus(), j.duration(), j.peakMib(),
                    j.timeout(), j.arrival(), j.command().equals("big")
                    ? new Scheduling(5, List.of(), false, Scheduling.OnTimeout.FAIL, Optional.empty(), List.of())
                    : new Scheduling(0, List.of(), true, Scheduling.OnTimeout.FAIL,
                    Optional.empty(), List.of())));
            ReplayResult r = new Replay(PlacementPolicy.defaults(), DEFAULTS, totals).run(jobs);
            preemptions.addAndGet((int) r.runs().stream().filter(ReplayResult.Run::preempted).count());
            assertEquals(0, r.infeasible().size(), r.infeasible().toString());
            for (ReplayJob j : jobs) {
                long finished = r.runs().stream().filter(run -> run.job() == j && !run.preempted()).count();
                assertEquals(1, finished, "job " + j.no() + " ran to its end " + finished + " times");
            }
        });
        assertTrue(preemptions.get() > 0, "no stream preempted anything: the property said nothing");
    }
}

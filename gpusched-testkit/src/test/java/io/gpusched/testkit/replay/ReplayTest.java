package io.gpusched.testkit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.jobs.Scheduling;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ReplayTest {
    private static ReplayJob job(int no, long mib, double seconds) {
        return new ReplayJob(no, "j" + no, OptionalLong.of(mib), 1, Duration.ofMillis(Math.round(seconds * 1000)),
                OptionalLong.empty());
    }

    private static Replay replay(int gpus) {
        return new Replay(PlacementPolicy.defaults(), java.util.Collections.nCopies(gpus, 24000L));
    }

    @Test
    void run_twoSmallJobsShareOneGpu() {
        ReplayResult r = replay(1).run(List.of(job(1, 10240, 2), job(2, 10240, 3)));
        assertEquals(Duration.ofSeconds(3), r.makespan());
        assertEquals(Duration.ZERO, r.runs().get(1).start());
    }

    @Test
    void run_serialWhenTheyDoNotFit() {
        ReplayResult r = replay(1).run(List.of(job(1, 20000, 2), job(2, 20000, 3), job(3, 20000, 1)));
        assertEquals(Duration.ofSeconds(6), r.makespan());
        assertEquals(List.of(1, 2, 3), r.timeline().get(0).stream().map(x -> x.job().no()).toList());
        assertEquals(1.0, r.busyFraction().get(0), 1e-9);
    }

    @Test
    void run_smallJobBackfillsBehindBlockedHead() {
        // Job 2 (20 GiB) is blocked behind job 1; job 3 (2 GiB) fits beside job 1 and starts at once.
        ReplayResult r = replay(1).run(List.of(job(1, 12000, 4), job(2, 20000, 1), job(3, 2000, 1)));
        ReplayResult.Run third = r.runs().stream().filter(x -> x.job().no() == 3).findFirst().orElseThrow();
        assertEquals(Duration.ZERO, third.start());
        assertEquals(Duration.ofSeconds(5), r.makespan());
    }

    @Test
    void aResultsMaps_runInGpuAndJobOrder_soWhatSimulatePrintsIsTheSameInEveryJvm() {
        java.util.List<ReplayJob> jobs = new java.util.ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            jobs.add(job(i, 20000, 1));
        }
        jobs.add(job(13, 30000, 1));
        jobs.add(job(14, 40000, 1));
        ReplayResult r = replay(12).run(jobs);
        assertEquals(java.util.stream.IntStream.range(0, 12).boxed().toList(), List.copyOf(r.timeline().keySet()));
        assertEquals(List.copyOf(r.timeline().keySet()), List.copyOf(r.busyFraction().keySet()));
        assertEquals(List.of(13, 14), r.infeasible().keySet().stream().map(ReplayJob::no).toList());
    }

    @Test
    void run_infeasibleJobIsReportedAndDoesNotBlock() {
        ReplayResult r = replay(2).run(List.of(job(1, 30000, 1), job(2, 1000, 1)));
        assertEquals(1, r.infeasible().size());
        assertEquals(Duration.ofSeconds(1), r.makespan());
    }

    @Test
    void run_undeclaredJobTakesAWholeGpu() {
        ReplayJob undeclared = new ReplayJob(1, "u", OptionalLong.empty(), 1, Duration.ofSeconds(2), OptionalLong.empty());
        ReplayResult r = replay(1).run(List.of(undeclared, job(2, 1000, 1)));
        assertEquals(Duration.ofSeconds(3), r.makespan());
    }

    @Test
    void run_peakAboveDeclarationRaisesTheBudget() {
        // Declares 8 GiB but peaks at 16000 MiB: once it runs, its budget is 17600, so a 10 GiB job that
        // comes later no longer fits beside it. (Placed in the same instant, both would start: the
        // engine, too, knows nothing but the declaration of a job it has not yet seen run.)
        ReplayJob over = new ReplayJob(1, "o", OptionalLong.of(8192), 1, Duration.ofSeconds(2), OptionalLong.of(16000));
        ReplayJob later = new ReplayJob(2, "l", OptionalLong.of(10240), 1, Duration.ofSeconds(1), OptionalLong.empty(),
                Optional.empty(), Duration.ofMillis(500), Scheduling.DEFAULT);
        ReplayResult r = replay(1).run(List.of(over, later));
        assertEquals(Duration.ofSeconds(3), r.makespan());
    }

    @Test
    void run_multiGpuJobWaitsForEnoughGpus() {
        ReplayJob two = new ReplayJob(2, "t", OptionalLong.of(20000), 2, Duration.ofSeconds(1), OptionalLong.empty());
        ReplayResult r = replay(2).run(List.of(job(1, 20000, 2), two));
        assertEquals(Duration.ofSeconds(3), r.makespan());
        assertEquals(List.of(0, 1), r.runs().get(1).gpus());
    }

    @Test
    void run_emptyQueue() {
        assertEquals(Duration.ZERO, replay(1).run(List.of()).makespan());
    }

    @Test
    void workload_durationsFromSimJobFlagsAndComments() {
        List<ReplayJob> jobs = ReplayWorkload.fromText(String.join("\n",
                "[vram=10G] $GPUSCHED_SIMJOB --vram 9800 --ramp 1 --hold 2.5",
                "[vram=4G] $GPUSCHED_SIMJOB --vram=3000",
                "[vram=2G] python train.py  # duration=90s peak=1500",
                "[vram=2G cancel] python never.py  # duration=1s",
                "python eval.py"), Optional.of(Duration.ofSeconds(7)));
        assertEquals(4, jobs.size());
        assertEquals(Duration.ofMillis(3500), jobs.get(0).duration());
        assertEquals(OptionalLong.of(9800), jobs.get(0).peakMib());
        assertEquals(Duration.ofMillis(1500), jobs.get(1).duration());
        assertEquals(Duration.ofSeconds(90), jobs.get(2).duration());
        assertEquals(OptionalLong.of(1500), jobs.get(2).peakMib());
        assertEquals(Duration.ofSeconds(7), jobs.get(3).duration());
        assertEquals(5, jobs.get(3).no());
    }

    @Test
    void run_jobIsStoppedAtItsTimeoutAndFreesItsGpuThen() {
        // Job 1 would hold the GPU 30.5 s but its timeout is 3 s; job 2 does not fit beside it.
        ReplayJob capped = new ReplayJob(1, "c", OptionalLong.of(20000), 1, Duration.ofMillis(30_500), OptionalLong.empty(),
                Optional.of(Duration.ofSeconds(3)));
        ReplayResult r = replay(1).run(List.of(capped, job(2, 20000, 2)));
        ReplayResult.Run first = r.runs().get(0);
        assertTrue(first.timedOut());
        assertEquals(Duration.ofSeconds(3), first.end());
        assertEquals(Duration.ofSeconds(3), r.runs().get(1).start());
        assertEquals(Duration.ofSeconds(5), r.makespan());
    }

    @Test
    void run_jobThatEndsWithinItsTimeoutIsNotCut() {
        ReplayJob within = new ReplayJob(1, "w", OptionalLong.of(1000), 1, Duration.ofSeconds(2), OptionalLong.empty(),
                Optional.of(Duration.ofSeconds(2)));
        ReplayResult r = replay(1).run(List.of(within));
        assertFalse(r.runs().get(0).timedOut());
        assertEquals(Duration.ofSeconds(2), r.makespan());
    }

    @Test
    void workload_keepsTheTimeout() {
        List<ReplayJob> jobs = ReplayWorkload.fromText(String.join("\n",
                "[vram=1G timeout=3] $GPUSCHED_SIMJOB --vram 500 --ramp 0.5 --hold 30",
                "[vram=1G] $GPUSCHED_SIMJOB --vram 500"), Optional.empty());
        assertEquals(Optional.of(Duration.ofSeconds(3)), jobs.get(0).timeout());
        assertTrue(jobs.get(0).timesOut());
        assertEquals(Optional.empty(), jobs.get(1).timeout());
    }

    @Test
    void workload_missingDurationNamesTheLine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ReplayWorkload.fromText("# c\npython eval.py\n", Optional.empty()));
        assertTrue(e.getMessage().contains(":2:"), e.getMessage());
    }

    @Test
    void gpuSpec_parsesGroups() {
        assertEquals(List.of(81920L, 81920L, 24000L), GpuSpec.parse("2x80G,24000"));
        assertThrows(IllegalArgumentException.class, () -> GpuSpec.parse("ax80G"));
        assertThrows(IllegalArgumentException.class, () -> GpuSpec.parse("2x"));
    }
}

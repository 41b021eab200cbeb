package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.Verdict;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The metrics listener, fed events as the loop would emit them. */
class MetricsTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static SchedulerEvent.JobStarted started(double atS, double waitedS) {
        return new SchedulerEvent.JobStarted(T0.plusMillis((long) (atS * 1000)), 1, "k", "x", List.of(0), OptionalLong.of(100),
                1, 1, 42, Path.of("l"), 1, Duration.ofMillis((long) (waitedS * 1000)));
    }

    private static SchedulerEvent.JobFinished finished(double atS, JobStatus status, long peak, long declared, double tookS) {
        return new SchedulerEvent.JobFinished(T0.plusMillis((long) (atS * 1000)), new JobResult("k", 1, "x", List.of(0), status,
                0, OptionalLong.of(declared), Map.of(0, peak), Verdict.WITHIN, OptionalDouble.empty(),
                Duration.ofMillis((long) (tookS * 1000))), 0.1);
    }

    @Test
    void dispatchLatencyCountsFromTheLaterOfArrivalAndTheLastFreedCapacity() {
        Metrics m = new Metrics(Optional::empty);
        m.accept(started(1.0, 0.25));       // arrived at 0.75, nothing freed before: 0.25 s
        m.accept(finished(10.0, JobStatus.OK, 80, 100, 9));
        m.accept(started(10.04, 9.0));      // waited since 1.04 for the GPU freed at 10.0: 0.04 s
        m.accept(started(30.0, 2.0));       // arrived at 28, after the last end: 2 s
        Histogram.Snapshot l = m.exposition().latencies();
        assertEquals(3, l.count());
        assertEquals(0.25 + 0.04 + 2.0, l.sum(), 1e-9);
        Histogram.Snapshot w = m.exposition().waits();
        assertEquals(0.25 + 9.0 + 2.0, w.sum(), 1e-9);
        assertEquals(3, m.exposition().started());
    }

    @Test
    void finishedJobsAreCountedByStatus_runTimeOnlyForJobsThatRan_ratioOnlyForOkDeclaredMeasured() {
        Metrics m = new Metrics(Optional::empty);
        m.accept(finished(1, JobStatus.OK, 50, 100, 3));
        m.accept(finished(2, JobStatus.FAILED, 90, 100, 4));
        m.accept(new SchedulerEvent.JobFinished(T0, new JobResult("c", 2, "y", List.of(), JobStatus.CANCELLED, 0,
                OptionalLong.empty(), Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO), 0.1));
        Metrics.Exposition x = m.exposition();
        assertEquals(1L, x.finished().get("ok"));
        assertEquals(1L, x.finished().get("failed"));
        assertEquals(1L, x.finished().get("cancelled"));
        assertEquals(0L, x.finished().get("timeout"));
        assertEquals(2, x.runs().count(), "the cancelled-before-start job did not run");
        assertEquals(7.0, x.runs().sum(), 1e-9);
        assertEquals(1, x.ratios().count());
        assertEquals(0.5, x.ratios().sum(), 1e-9);
    }

    @Test
    void queueLengthsComeFromTheBoard_heldApartFromPending() {
        Metrics m = new Metrics(Optional::empty);
        m.accept(new SchedulerEvent.StatusUpdated(T0, new StatusBoard(List.of(StatusBoard.Running.builder(1, "a")
                .gpus(List.of(0)).build()), List.of(
                StatusBoard.Pending.builder(2, "b").reason("needs room").build(),
                StatusBoard.Pending.builder(3, "c").reason("after job 2").held(true).build(),
                StatusBoard.Pending.builder(4, "d").reason("after job 2").held(true).build()), List.of())));
        String text = Metrics.render(m.exposition());
        assertTrue(text.contains("gpusched_queue_jobs{state=\"running\"} 1\n"), text);
        assertTrue(text.contains("gpusched_queue_jobs{state=\"pending\"} 1\n"), text);
        assertTrue(text.contains("gpusched_queue_jobs{state=\"held\"} 2\n"), text);
    }

    private static final long GIB = 1024L * 1024 * 1024;

    /** Two GPUs as NVML reports them: one with its UUID and utilisation, one that reports neither. */
    static Metrics withTwoGpus(BuildInfo build) {
        List<io.gpusched.gpu.GpuStat> gpus = List.of(
                new io.gpusched.gpu.GpuStat(0, Optional.of("GPU-5a2c1b9e-0000-4000-8000-000000000001"), "NVIDIA H100 80GB HBM3",
                        Optional.empty(), 81559, 30000, java.util.OptionalInt.of(37), true),
                new io.gpusched.gpu.GpuStat(1, Optional.empty(), "NVIDIA \"Quoted\" GPU", Optional.empty(), 24000, 0,
                        java.util.OptionalInt.empty(), false));
        List<io.gpusched.event.QueueSnapshot.GpuMemory> memory = List.of(
                new io.gpusched.event.QueueSnapshot.GpuMemory(0, 81559, 30000, 1000, 81559 - 1000 - 40960, List.of(
                        new io.gpusched.event.QueueSnapshot.JobMemory(1, OptionalLong.of(40960), 29000, 29500, 40960))),
                new io.gpusched.event.QueueSnapshot.GpuMemory(1, 24000, 0, 0, 24000, List.of()));
        StatusBoard board = new StatusBoard(List.of(StatusBoard.Running.builder(1, "a").gpus(List.of(0))
                .build()), List.of(), List.of());
        io.gpusched.event.QueueSnapshot snap = new io.gpusched.event.QueueSnapshot(T0, board, java.util.Set.of(1), List.of(), gpus, memory);
        Metrics m = new Metrics(() -> Optional.of(snap), build);
        m.accept(new SchedulerEvent.StatusUpdated(T0, board));
        return m;
    }

    @Test
    void gpuMemoryIsInBytes_labelledWithTheGpusUuidAndModel_andUtilisationIsARatioOnlyWhereReported() {
        String text = Metrics.render(withTwoGpus(new BuildInfo("1.2.3", "abc1234")).exposition());
        String h100 = "{gpu=\"0\",model=\"NVIDIA H100 80GB HBM3\",uuid=\"GPU-5a2c1b9e-0000-4000-8000-000000000001\"}";
        String other = "{gpu=\"1\",model=\"NVIDIA \\\"Quoted\\\" GPU\"}";
        for (String line : List.of(
                "gpusched_gpu_memory_total_bytes" + h100 + " " + 81559L * 1024 * 1024,
                "gpusched_gpu_memory_used_bytes" + h100 + " " + 30000L * 1024 * 1024,
                "gpusched_gpu_memory_declared_bytes" + h100 + " " + 40 * GIB,
                "gpusched_gpu_memory_reserved_bytes" + h100 + " " + (1000L + 40960) * 1024 * 1024,
                "gpusched_gpu_utilization_ratio" + h100 + " 0.37",
                "gpusched_gpu_memory_total_bytes" + other + " " + 24000L * 1024 * 1024,
                "gpusched_gpu_paused" + other + " 1",
                "gpusched_gpu_healthy" + other + " 0")) {
            assertTrue(text.contains(line + "\n"), line + " in\n" + text);
        }
        assertTrue(!text.contains("gpusched_gpu_utilization_ratio{gpu=\"1\""), "no utilisation where none was read:\n" + text);
        assertTrue(!text.contains("_mib"), "no MiB left:\n" + text);
    }

    @Test
    void eachCounterSaysWhenItStartedCounting_perSeries() {
        java.time.Instant created = java.time.Instant.parse("2026-11-26T04:00:00.250Z");
        String text = Metrics.render(new Metrics(Optional::empty, new BuildInfo("0.2.0", "r"), created).exposition());
        assertTrue(text.contains("# TYPE gpusched_jobs_started_total counter\ngpusched_jobs_started_total 0\n"
                + "# HELP gpusched_jobs_started_created When gpusched_jobs_started_total started counting from 0 (this"
                + " scheduler's start), Unix time in seconds.\n# TYPE gpusched_jobs_started_created gauge\n"
                + "gpusched_jobs_started_created 1795665600.25\n"), text);
        for (io.gpusched.model.JobStatus s : io.gpusched.model.JobStatus.values()) {
            assertTrue(text.contains("gpusched_jobs_finished_created{status=\"" + s.journalName() + "\"} 1795665600.25\n"),
                    s + ":\n" + text);
        }
    }

    @Test
    void buildInfoNamesTheVersionAndRevision() {
        String text = Metrics.render(new Metrics(Optional::empty, new BuildInfo("0.2.0", "0123456789abcdef")).exposition());
        assertTrue(text.contains("# TYPE gpusched_build_info gauge\n"
                + "gpusched_build_info{revision=\"0123456789abcdef\",version=\"0.2.0\"} 1\n"), text);
    }

    @Test
    void theBuildsOwnRevisionIsTheCommitItWasBuiltFrom() throws Exception {
        // The cli module's build writes it (pom.xml, build-revision); a checkout always has a HEAD.
        BuildInfo here = BuildInfo.current();
        Process git = new ProcessBuilder("git", "rev-parse", "HEAD").redirectErrorStream(true).start();
        String head = new String(git.getInputStream().readAllBytes()).strip();
        org.junit.jupiter.api.Assumptions.assumeTrue(git.waitFor() == 0, "not built in a git checkout: " + head);
        assertEquals(head, here.revision());
    }
}

package io.gpusched;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobStatus;
import io.gpusched.options.SchedulerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The real engine on simulated GPUs and a virtual clock: runs end when their work is done, not before. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SimulationTest {
    private final List<SchedulerEvent> events = new ArrayList<>();

    private Simulation.Result run(int gpus, Simulation.Job... jobs) {
        return Simulation.run(java.util.Collections.nCopies(gpus, 24000L), SchedulerOptions.defaults(), List.of(jobs),
                events::add);
    }

    private static Simulation.Job job(String line, Duration at, Duration work, OptionalLong peak) {
        return new Simulation.Job(JobSpec.parse(line), at, work, peak);
    }

    private static Simulation.Job job(String line, Duration work) {
        return job(line, Duration.ZERO, work, OptionalLong.empty());
    }

    /** Each start of job {@code no}, as an offset from the simulation's start. */
    private List<Duration> starts(int no) {
        return events.stream().filter(e -> e instanceof SchedulerEvent.JobStarted s && s.no() == no)
                .map(e -> Duration.between(Simulation.START, e.at())).toList();
    }

    private Map<Integer, Duration> finishedAt() {
        return events.stream().filter(SchedulerEvent.JobFinished.class::isInstance).map(SchedulerEvent.JobFinished.class::cast)
                .collect(Collectors.toMap(f -> f.result().no(), f -> Duration.between(Simulation.START, f.at())));
    }

    @Test
    void twoHourLongJobsThatDoNotShareAGpuRunOneAfterTheOther_inUnderASecondEach() {
        long t0 = System.nanoTime();
        Simulation.Result r = run(1, job("[vram=20G] a.py", Duration.ofHours(1)), job("[vram=20G] b.py", Duration.ofHours(1)));
        long realMillis = (System.nanoTime() - t0) / 1_000_000;

        assertEquals(List.of(Duration.ZERO), starts(1));
        assertEquals(List.of(Duration.ofHours(1)), starts(2));
        assertEquals(Map.of(1, Duration.ofHours(1), 2, Duration.ofHours(2)), finishedAt());
        assertTrue(r.summary().results().stream().allMatch(x -> x.status() == JobStatus.OK), r.summary().toString());
        assertEquals("a.py", r.jobs().get(1).spec().command());
        assertTrue(realMillis < 10_000, "two virtual hours took " + realMillis + " ms");
    }

    @Test
    void aPeakAboveTheDeclarationIsSeenOnTheGpus_andKeepsALaterJobOff() {
        // 8 GiB declared, 16000 MiB used: budgeted 17600 once seen, so 10 GiB no longer fits beside it.
        run(1, job("[vram=8G] over.py", Duration.ZERO, Duration.ofSeconds(2), OptionalLong.of(16000)),
                job("[vram=10G] later.py", Duration.ofMillis(500), Duration.ofSeconds(1), OptionalLong.empty()));

        assertEquals(List.of(Duration.ofSeconds(2)), starts(2));
    }

    @Test
    void aTimeSliceKeepsItsWork_soTheJobRunsInSlicesUntilItIsDone() {
        run(1, job("[vram=20G timeout=10 on-timeout=requeue] long.py", Duration.ofSeconds(25)),
                job("[vram=20G] a.py", Duration.ofSeconds(3)), job("[vram=20G] b.py", Duration.ofSeconds(3)));

        assertEquals(List.of(Duration.ZERO, Duration.ofSeconds(16), Duration.ofSeconds(26)), starts(1));
        assertEquals(Duration.ofSeconds(31), finishedAt().get(1), "10 + 3 + 3 + 10 + 5: no work lost, none repeated");
    }

    @Test
    void aJobPinnedToAGpuTheMachineLacksFailsAtOnce_andTheOthersRun() {
        Simulation.Result r = run(1, job("[vram=1G gpu-ids=0,1 gpus=2] two.py", Duration.ofSeconds(1)),
                job("[vram=1G] one.py", Duration.ofSeconds(1)));

        assertEquals(List.of(Duration.ZERO), starts(2));
        assertTrue(starts(1).isEmpty());
        assertEquals(JobStatus.INFEASIBLE, r.summary().results().stream().filter(x -> x.no() == 1).findFirst().orElseThrow()
                .status());
        assertEquals(2, r.jobs().size());
    }

    @Test
    void aSimulationWritesNothingInItsLogDirectory_andPublishesItsStatusBoardOnceAtTheEnd(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path logDir) throws Exception {
        io.gpusched.engine.loop.VirtualTime time = new io.gpusched.engine.loop.VirtualTime(Simulation.START);
        io.gpusched.engine.sim.SimulatedMachine machine = new io.gpusched.engine.sim.SimulatedMachine(time, List.of(24000L));
        io.gpusched.engine.Engine engine = io.gpusched.engine.Engine.simulated(machine, time, time,
                SchedulerOptions.defaults(), logDir, events::add);
        for (String line : List.of("[vram=20G] a.py", "[vram=20G] b.py", "[vram=20G] c.py")) {
            engine.submit(JobSpec.parse(line), new io.gpusched.model.SubmitContext("simulation", logDir,
                    java.util.Optional.of(Map.of())), new java.util.concurrent.CompletableFuture<>(), java.util.Optional.empty())
                    .thenAccept(no -> machine.expect(no, Duration.ofHours(1), OptionalLong.empty(), java.util.Optional.empty()));
        }

        io.gpusched.model.RunSummary summary = engine.run();

        assertEquals(3, summary.results().size(), summary.toString());
        assertTrue(summary.results().stream().allMatch(x -> x.status() == JobStatus.OK), summary.toString());
        assertEquals(Map.of(1, Duration.ofHours(1), 2, Duration.ofHours(2), 3, Duration.ofHours(3)), finishedAt());
        try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.list(logDir)) {
            assertEquals(List.of(), left.toList(), "no journal, lock, run file or log");
        }
        List<SchedulerEvent> boards = events.stream().filter(SchedulerEvent.StatusUpdated.class::isInstance).toList();
        assertEquals(1, boards.size(), "one board, at the end: " + boards);
        assertEquals(events.get(events.size() - 2), boards.get(0), "the board comes just before RunFinished");
    }
}

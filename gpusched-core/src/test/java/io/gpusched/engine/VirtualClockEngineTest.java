package io.gpusched.engine;

import io.gpusched.engine.loop.VirtualTime;
import io.gpusched.engine.spawn.RunDriver;
import io.gpusched.engine.table.JobsSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real loop on a {@link VirtualTime}: it never sleeps; each wait jumps to the next thing that
 * happens (here a run's exit, scheduled on the virtual clock by the driver when the run starts).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class VirtualClockEngineTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path logs;

    private final FakeProcTable procs = new FakeProcTable();
    private final VirtualTime time = new VirtualTime(START);
    private final List<SchedulerEvent> events = new ArrayList<>();

    /** Starts each run as a session that exits 0 after {@code runs} of virtual time. */
    private RunDriver exitingAfter(Duration runs) {
        return new RunDriver() {
            private long nextSid = 80_000;

            @Override
            public Started start(Launch launch) {
                long sid = nextSid++;
                Started s = new Started(sid, procs.live(sid));
                time.at(time.nanos() + runs.toNanos(), () -> procs.end(sid, 0));
                return s;
            }
        };
    }

    private RunSummary run(SchedulerOptions options, RunDriver driver, String... lines) {
        List<JobSpec> jobs = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            JobSpec j = JobSpec.parse(lines[i]);
            jobs.add(j.withKey(JobKeys.key(j.command() + i, 0)));
        }
        Engine engine = new Engine(new StubBackend(1, 24000), options, logs, false, new JobsSource(Optional.empty(), jobs),
                events::add, new Engine.Ports(procs, time.clock(), Optional.of(driver), Optional.empty(), time));
        return engine.run();
    }

    @Test
    void aJobOfAnHourEndsAnHourLaterOnTheVirtualClock_inUnderASecondOfRealTime() {
        long t0 = System.nanoTime();
        // A round and a memory sample a minute: 120 passes of the loop, none of them waiting.
        SchedulerOptions everyMinute = SchedulerOptions.defaults().withPoll(Duration.ofMinutes(1))
                .withSampleInterval(Duration.ofMinutes(1));
        RunSummary summary = run(everyMinute, exitingAfter(Duration.ofHours(1)), "[vram=20G] train.py");
        long realMillis = (System.nanoTime() - t0) / 1_000_000;

        JobResult r = summary.results().get(0);
        assertEquals(JobStatus.OK, r.status());
        assertEquals(Duration.ofHours(1), r.duration(), "it ran an hour of virtual time");
        SchedulerEvent.JobFinished finished = events.stream().filter(SchedulerEvent.JobFinished.class::isInstance)
                .map(SchedulerEvent.JobFinished.class::cast).findFirst().orElseThrow();
        assertEquals(START.plus(Duration.ofHours(1)), finished.at(), "events are dated on the virtual clock");
        assertFalse(summary.interrupted());
        // Generous for a loaded build machine; a wait in real time would take the hour.
        assertTrue(realMillis < 10_000, "an hour took " + realMillis + " ms of real time");
    }

    @Test
    void twoJobsThatDoNotFitRunOneAfterTheOther_eachStartingTheInstantTheGpuIsFreed() {
        run(SchedulerOptions.defaults(), exitingAfter(Duration.ofMinutes(30)), "[vram=20G] a.py", "[vram=20G] b.py");

        List<Instant> starts = events.stream().filter(SchedulerEvent.JobStarted.class::isInstance)
                .map(e -> ((SchedulerEvent.JobStarted) e).at()).toList();
        assertEquals(List.of(START, START.plus(Duration.ofMinutes(30))), starts,
                "the exit frees the GPU and the next round places b at once, not a poll later");
    }

    @Test
    void aTimeoutStopsTheRunOnTheVirtualClock() {
        RunSummary summary = run(SchedulerOptions.defaults(), exitingAfter(Duration.ofHours(2)),
                "[vram=1G timeout=10m] slow.py");

        JobResult r = summary.results().get(0);
        assertEquals(JobStatus.TIMEOUT, r.status());
        assertEquals(Duration.ofMinutes(10), r.duration(), "stopped at its limit exactly: the wait ends there, and"
                + " a virtual clock needs no slack past it");
    }
}

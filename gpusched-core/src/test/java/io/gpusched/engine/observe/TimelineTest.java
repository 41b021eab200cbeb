package io.gpusched.engine.observe;

import io.gpusched.engine.StubBackend;
import io.gpusched.engine.spawn.RunningJob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.model.VramTimeline;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JournalCodec;
import io.gpusched.journal.JournalEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A job's memory timeline: fed where the peaks are measured, readable from another thread, summarised in its done line. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimelineTest {
    @TempDir
    Path dir;

    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @Test
    void aJobsTimelineRisesAndFallsWithItsMemory_itsHighestPointIsItsPeak_andTheDoneLineSummarisesIt() throws Exception {
        StubBackend backend = new StubBackend(1, 24000);
        Path go = dir.resolve("go");
        AtomicReference<Scheduler> self = new AtomicReference<>();
        AtomicReference<VramTimeline> whileRunning = new AtomicReference<>();
        Scheduler s = Scheduler.builder().backend(backend).options(FAST).logDir(dir.resolve("logs"))
                .jobs(List.of(JobSpec.parse("[vram=2G] while [ ! -e " + go + " ]; do sleep 0.02; done")))
                .listener(e -> {
                    if (e instanceof SchedulerEvent.JobStarted st) {
                        backend.processes.add(new GpuProcess(0, st.pid(), 1500));
                    }
                }).build();
        self.set(s);
        Thread driver = new Thread(() -> {
            try {
                awaitPoints(s, 1500, 5);
                backend.processes.replaceAll(p -> new GpuProcess(0, p.pid(), 1800));
                awaitPoints(s, 1800, 5);
                backend.processes.replaceAll(p -> new GpuProcess(0, p.pid(), 900));
                awaitPoints(s, 900, 5);
                whileRunning.set(s.timeline(1).orElseThrow()); // read off the loop's thread
                Files.createFile(go);
            } catch (Exception ex) {
                throw new RuntimeException(ex);
            }
        });
        driver.start();
        RunSummary summary = s.run();
        driver.join();
        JobResult r = summary.results().get(0);
        assertEquals(1800, r.overallPeakMib());
        VramTimeline t = s.timeline(1).orElseThrow();
        assertEquals(1800, t.peakMib());
        assertEquals(1800, t.points().stream().mapToLong(VramTimeline.Point::usedMib).max().orElseThrow());
        assertEquals(List.of(new VramTimeline.Attempt(1, Duration.ZERO, OptionalLong.of(2048))), t.attempts());
        List<Long> values = t.points().stream().map(VramTimeline.Point::usedMib).distinct().filter(v -> v > 0).toList();
        assertEquals(List.of(1500L, 1800L, 900L), values, "in the order they happened");
        assertTrue(whileRunning.get().points().size() <= t.points().size());

        String done = Files.readAllLines(dir.resolve("logs/journal.jsonl")).stream()
                .filter(l -> l.contains("\"event\":\"done\"")).findFirst().orElseThrow();
        JournalEvent.Done d = (JournalEvent.Done) new JournalCodec().decode(done).orElseThrow();
        assertTrue(!d.vramTimeline().isEmpty() && d.vramTimeline().size() <= 32, done);
        assertEquals(1800, d.vramTimeline().stream().mapToLong(JournalEvent.VramPoint::mib).max().orElseThrow(), done);
    }

    @Test
    void anOomRetryIsMarkedOnTheTimelineEvenBeforeItsFirstSample() {
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .jobs(List.of(JobSpec.parse("[vram=100 retries=1] echo 'CUDA out of memory' >&2; exit 1"))).build();
        s.run();
        VramTimeline t = s.timeline(1).orElseThrow();
        assertEquals(1, t.oomRetries().size(), t.toString());
        assertEquals(1, t.oomRetries().get(0).attempt());
        assertTrue(t.oomRetries().get(0).nextMib().orElseThrow() > 100, t.toString());
        // Neither attempt lived to its first sample; both are there with their declarations.
        assertEquals(2, t.attempts().size(), t.toString());
        assertEquals(OptionalLong.of(100), t.attempts().get(0).declaredMib());
        assertEquals(t.oomRetries().get(0).nextMib(), t.attempts().get(1).declaredMib());
    }

    @Test
    void timelinesOfARunThatKeepsNothing_holdNoTimeline_andGiveTheDoneLineNoPoints_whereKeptOnesDo() {
        RunningJob rj = new RunningJob(JobSpec.parse("[vram=2G] train"), 1, OptionalLong.of(2048), List.of(0), 7,
                Path.of("job1.log"), Instant.EPOCH, 0, 1, 0, Optional.empty());
        rj.currentMib.put(0, 1500L);
        Timelines kept = new Timelines();
        Timelines none = Timelines.none(); // a simulation's
        for (Timelines t : List.of(kept, none)) {
            t.sample(rj, Instant.EPOCH.plusSeconds(1));
            t.oomRetry(2, 1, Instant.EPOCH, OptionalLong.of(100), OptionalLong.of(200), Instant.EPOCH.plusSeconds(1));
        }
        assertEquals(1500, kept.timeline(1).orElseThrow().peakMib());
        assertEquals(1, kept.timeline(2).orElseThrow().oomRetries().size());
        assertFalse(kept.ended(1, 1, Instant.EPOCH, OptionalLong.of(2048)).isEmpty());
        assertTrue(none.timeline(1).isEmpty());
        assertTrue(none.timeline(2).isEmpty());
        assertTrue(none.ended(1, 1, Instant.EPOCH, OptionalLong.of(2048)).isEmpty());
        assertTrue(none.timeline(1).isEmpty(), "ended keeps nothing either");
    }

    private static void awaitPoints(Scheduler s, long mib, int n) throws InterruptedException {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); ; Thread.sleep(10)) {
            long seen = s.timeline(1).map(t -> t.points().stream().filter(p -> p.usedMib() == mib).count()).orElse(0L);
            if (seen >= n) {
                return;
            }
            assertTrue(System.nanoTime() < end, "never " + n + " samples of " + mib + " MiB: " + s.timeline(1));
        }
    }
}

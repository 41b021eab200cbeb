package io.gpusched.engine;

import io.gpusched.engine.table.JobsSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The engine's speed-ups keep behaviour: grouped started fsync, skipped re-plans, reused board rows. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineWorkSkippingTest {
    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(10)).withKillGrace(Duration.ofMillis(500));

    @Test
    void jobsSource_versionChangesOnlyWithTheQueue() throws Exception {
        Path f = dir.resolve("jobs.txt");
        Files.writeString(f, "[vram=1G] a\n");
        JobsSource src = new JobsSource(Optional.of(f), List.of());
        src.refresh();
        long v1 = src.version();
        List<JobSpec> jobs = src.jobs();
        Files.writeString(f, "[vram=1G] a\n"); // rewritten, same content
        Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.from(Instant.now().plusSeconds(5)));
        src.refresh();
        assertEquals(v1, src.version());
        assertSame(jobs, src.jobs(), "the cached list is reused while the queue is unchanged");
        Files.writeString(f, "[vram=1G] a\n[vram=1G] b\n");
        Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.from(Instant.now().plusSeconds(10)));
        src.refresh();
        assertNotEquals(v1, src.version());
        long v2 = src.version();
        src.submit(JobSpec.parse("c"));
        assertNotEquals(v2, src.version());
        assertEquals(3, src.jobs().size());
    }

    @Test
    void blockedQueue_keepsItsReasonsAndBoardRowsAcrossIdleRounds() throws Exception {
        Path f = dir.resolve("jobs.txt");
        StringBuilder sb = new StringBuilder("[vram=20G] sleep 0.6\n");
        for (int i = 0; i < 50; i++) {
            sb.append("[vram=20G] true ").append(i).append('\n');
        }
        Files.writeString(f, sb);
        RunSummary s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .jobsFile(f).listener(events::add).build().run();
        assertEquals(51, s.count(JobStatus.OK));
        List<StatusBoard> boards = events.stream().filter(e -> e instanceof SchedulerEvent.StatusUpdated)
                .map(e -> ((SchedulerEvent.StatusUpdated) e).board()).toList();
        // While job 1 sleeps, idle rounds reuse the same pending rows, each with the allocator's reason.
        long reused = 0;
        for (int i = 1; i < boards.size(); i++) {
            if (boards.get(i).pending().size() == 50 && boards.get(i).pending() == boards.get(i - 1).pending()) {
                reused++;
            }
        }
        assertTrue(reused > 5, "idle rounds re-plan nothing; reused " + reused);
        StatusBoard b = boards.stream().filter(x -> x.pending().size() == 50).findFirst().orElseThrow();
        assertTrue(b.pending().get(49).reason().contains("MiB"), b.pending().get(49).reason());
    }

    @Test
    void jobsWaitingForTheSameWords_shareOneInstanceOfThem_whetherPlannedOrJoinedSince() throws Exception {
        Path go = dir.resolve("go");
        List<JobSpec> jobs = new java.util.ArrayList<>();
        jobs.add(JobSpec.parse("[vram=20G] while [ ! -e " + go + " ]; do sleep 0.02; done"));
        for (int i = 0; i < 5; i++) {
            jobs.add(JobSpec.parse("[vram=20G] true planned-" + i));
        }
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST.withWatch(true))
                .logDir(dir.resolve("logs")).jobs(jobs).listener(events::add).build();
        java.util.concurrent.CompletableFuture<RunSummary> run = java.util.concurrent.CompletableFuture.supplyAsync(s::run);
        try {
            StatusBoard planned = awaitBoard(b -> b.pending().size() == 5 && b.running().size() == 1);
            for (int i = 0; i < 5; i++) {
                s.submit(JobSpec.parse("[vram=20G] true joined-" + i)).number().get(20, TimeUnit.SECONDS);
            }
            StatusBoard joined = awaitBoard(b -> b.pending().size() == 10);
            // Equal words are one string: 100,000 queued jobs of a few shapes hold a few reasons (issue #27).
            java.util.Map<String, java.util.Set<String>> instances = new java.util.HashMap<>();
            for (StatusBoard b : List.of(planned, joined)) {
                for (StatusBoard.Pending p : b.pending()) {
                    instances.computeIfAbsent(p.reason(), r -> java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()))
                            .add(p.reason());
                }
            }
            assertEquals(1, instances.size(), "the ten jobs wait for the same words: " + instances.keySet());
            String words = instances.keySet().iterator().next();
            assertTrue(words.startsWith("needs 1 GPU with ≥ "), words);
            assertEquals(1, instances.get(words).size(), "equal reasons held as distinct strings");
        } finally {
            Files.createFile(go);
            s.close();
            run.get(30, TimeUnit.SECONDS);
        }
    }

    private StatusBoard awaitBoard(java.util.function.Predicate<StatusBoard> p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            for (SchedulerEvent e : events) {
                if (e instanceof SchedulerEvent.StatusUpdated u && p.test(u.board())) {
                    return u.board();
                }
            }
            assertTrue(System.nanoTime() < deadline, "timed out waiting for a board");
            Thread.sleep(10);
        }
    }

    @Test
    void jobsStartedInOneRound_areAllJournaledBeforeTheyAreReported() throws Exception {
        Path logs = dir.resolve("logs");
        List<Long> journaledWhenReported = new CopyOnWriteArrayList<>();
        Scheduler.builder().backend(new StubBackend(2, 24000)).options(FAST).logDir(logs)
                .jobs(List.of(JobSpec.parse("[vram=1G] sleep 0.2"), JobSpec.parse("[vram=1G] sleep 0.2"),
                        JobSpec.parse("[vram=1G] sleep 0.2")))
                .listener(e -> {
                    if (e instanceof SchedulerEvent.JobStarted) {
                        try {
                            journaledWhenReported.add(Files.readAllLines(logs.resolve("journal.jsonl")).stream()
                                    .filter(l -> l.contains("\"started\"")).count());
                        } catch (java.io.IOException ex) {
                            throw new java.io.UncheckedIOException(ex);
                        }
                    }
                }).build().run();
        // All three start in the first round: by the first report, all three started events are written.
        assertEquals(List.of(3L, 3L, 3L), journaledWhenReported);
        assertFalse(Files.readString(logs.resolve("journal.jsonl")).isEmpty());
    }
    @Test
    void serialJobs_forceTheJournalOncePerJob_theOutcomeWithTheNextStart_andReportInOrder() throws Exception {
        int n = 8;
        List<JobSpec> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(JobSpec.parse("[vram=20G] true " + i)); // one at a time on the one GPU
        }
        Path logs = dir.resolve("logs");
        List<String> reports = new CopyOnWriteArrayList<>();
        Engine engine = new Engine(new StubBackend(1, 24000), FAST, Instant::now, logs, true,
                new JobsSource(Optional.empty(), jobs), e -> {
                    if (e instanceof SchedulerEvent.JobStarted s) {
                        reports.add("start " + s.no());
                    } else if (e instanceof SchedulerEvent.JobFinished f) {
                        reports.add("end " + f.result().no());
                    }
                });
        RunSummary s = engine.run();
        assertEquals(n, s.count(JobStatus.OK));
        List<String> expected = new java.util.ArrayList<>();
        for (int i = 1; i <= n; i++) {
            expected.add("start " + i);
            expected.add("end " + i);
        }
        // Each job's end is reported before the next one's start, as when each had its own fsync.
        assertEquals(expected, reports);
        // One fsync per start (its launching and started lines, with the outcome of the exit that freed
        // the GPU) and one for the last outcome; two per job when the outcome was forced before the round.
        long forces = engine.journalForces();
        assertTrue(forces >= n + 1 && forces <= n + 2, "fsyncs for " + n + " serial jobs: " + forces);
    }
}

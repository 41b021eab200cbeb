package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The log directory's disk fills up under a running scheduler, then space returns. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DiskFullTest {
    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private SmallDisk disk() throws Exception {
        return SmallDisk.mountOrSkip(dir.resolve("disk"), 512);
    }

    @Test
    void fullDiskPausesNewStartsKeepsTrackingAndResumesWhenSpaceReturns() throws Exception {
        try (SmallDisk disk = disk()) {
            Path go = dir.resolve("go");
            // Both need most of the one GPU, so they run one after the other.
            JobSpec first = JobSpec.parse("[vram=20000] while [ ! -e " + go + " ]; do sleep 0.02; done");
            JobSpec second = JobSpec.parse("[vram=20001] true");
            SchedulerOptions opts = SchedulerOptions.defaults().withPoll(Duration.ofMillis(50))
                    .withSampleInterval(Duration.ofMillis(20));
            Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(opts)
                    .logDir(disk.root.resolve("logs")).jobs(List.of(first, second)).listener(events::add).build();
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);

            await(e -> e instanceof SchedulerEvent.JobStarted j && j.no() == 1);
            disk.fill();
            disk.fillSlack(disk.root.resolve("logs/journal.jsonl"));
            Files.createFile(go);
            // The first job's end cannot be journaled: said once, and the second job must wait.
            await(e -> e instanceof SchedulerEvent.Warning w && w.message().contains("no new job starts"));
            await(e -> e instanceof SchedulerEvent.JobFinished f && f.result().no() == 1);
            await(e -> e instanceof SchedulerEvent.StatusUpdated u && u.board().pending().stream()
                    .anyMatch(p -> p.reason().contains("cannot write the journal")));
            Thread.sleep(300); // several rounds: none may start the second job
            assertFalse(events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobStarted j && j.no() == 2),
                    "a job started although its start could not be journaled");
            assertEquals(1, events.stream().filter(e -> e instanceof SchedulerEvent.Warning w
                    && w.message().contains("no new job starts")).count(), "the full disk is reported once");

            disk.free();
            RunSummary summary = run.get(30, TimeUnit.SECONDS);

            assertEquals(2, summary.count(JobStatus.OK));
            assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w
                    && w.message().contains("writable again")));
            try (Journal j = Journal.open(disk.root.resolve("logs/journal.jsonl"), false)) {
                assertEquals("ok", j.state().record(first.key()).status(), "the outcome held in memory reached the file");
                assertEquals("ok", j.state().record(second.key()).status());
                assertEquals(List.of(), j.loadWarnings());
            }
        }
    }

    @Test
    void anOomRetryThatCannotBeJournaledKeepsTheRunsExitFile() throws Exception {
        try (SmallDisk disk = disk()) {
            Path go = dir.resolve("go");
            // The OOM message reaches the log before the disk fills; the exit comes after.
            JobSpec oom = JobSpec.parse("[vram=1000 retries=1] echo 'CUDA out of memory' >&2;"
                    + " while [ ! -e " + go + " ]; do sleep 0.02; done; exit 1");
            SchedulerOptions opts = SchedulerOptions.defaults().withPoll(Duration.ofMillis(50))
                    .withSampleInterval(Duration.ofMillis(20));
            Path logs = disk.root.resolve("logs");
            Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(opts)
                    .logDir(logs).jobs(List.of(oom)).listener(events::add).build();
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
            await(e -> e instanceof SchedulerEvent.JobStarted j && j.no() == 1);
            Path log = logs.resolve("job001_gpu0.log");
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                 !(Files.exists(log) && Files.readString(log).contains("CUDA out of memory")); Thread.sleep(10)) {
                assertTrue(System.nanoTime() < end, "the job never wrote its OOM message");
            }
            disk.fill();
            disk.fillSlack(logs.resolve("journal.jsonl"));
            Files.createFile(go);
            await(e -> e instanceof SchedulerEvent.RequeuedAfterOom);
            // The oom line is not on disk: the exit file is what still proves how run 1 ended.
            assertTrue(Files.exists(logs.resolve("runs/job001.run1.exit")), "removed before its oom line was written");
            disk.free();
            assertEquals(JobStatus.FAILED_OOM, run.get(30, TimeUnit.SECONDS).results().get(0).status());
        }
    }

    @Test
    void journalKeepsRefusedEventsInOrderAndWritesThemWhenSpaceReturns() throws Exception {
        try (SmallDisk disk = disk()) {
            Path file = disk.root.resolve("journal.jsonl");
            String big = "x".repeat(3000);
            try (Journal j = Journal.open(file, false)) {
                j.append(new JournalEvent.Seen("a#0", 1, "a"));
                disk.fill();
                boolean refused = false;
                // Lines of 3 KB into the journal page's free 4 KB: one fits, the next is cut after its head.
                for (int i = 0; i < 5; i++) {
                    try {
                        j.append(new JournalEvent.Seen("big" + i + "#0", 2 + i, big));
                    } catch (JournalException e) {
                        refused = true;
                    }
                }
                assertTrue(refused, "the full disk was not noticed");
                assertTrue(j.behind());
                assertEquals(7, j.state().nextNo(), "refused events are folded all the same");
                disk.free();
                j.force();
                assertFalse(j.behind());
            }
            try (Journal again = Journal.open(file, false)) {
                assertEquals(List.of(), again.loadWarnings(), "a line was torn or written twice");
                assertEquals(7, again.state().nextNo());
                assertEquals(big, again.state().record("big4#0").command());
            }
        }
    }

    private void await(Predicate<SchedulerEvent> p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (events.stream().noneMatch(p)) {
            assertTrue(System.nanoTime() < deadline, "timed out; events: " + events);
            Thread.sleep(10);
        }
    }
}

package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.model.JobStatus;
import io.gpusched.model.JournalUnwritableException;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A submission's number is given only once its journal line is on disk; one the journal cannot take is
 * refused with {@link JournalUnwritableException} and uses up no number. The disk is a real, full tmpfs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DurableAcknowledgementTest {
    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private SmallDisk disk() throws Exception {
        return SmallDisk.mountOrSkip(dir.resolve("disk"), 512);
    }

    @Test
    void aSubmissionTheJournalCannotTakeIsRefused_usesNoNumber_andSubmissionsAreTakenAgainOnceSpaceReturns()
            throws Exception {
        try (SmallDisk disk = disk()) {
            Path logs = disk.root.resolve("logs");
            Path journal = logs.resolve("journal.jsonl");
            Path go = dir.resolve("go");
            Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).logDir(logs).listener(events::add)
                    .options(SchedulerOptions.defaults().withPoll(Duration.ofMillis(50))
                            .withSampleInterval(Duration.ofMillis(20)).withWatch(true)).build();
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
            try {
                await(e -> e instanceof SchedulerEvent.RunStarted);
                JobHandle running = s.submit(JobSpec.parse("[vram=1G] while [ ! -e " + go + " ]; do sleep 0.02; done"));
                assertEquals(1, running.number().get());
                await(e -> e instanceof SchedulerEvent.JobStarted j && j.no() == 1);

                disk.fill();
                disk.fillSlack(journal);
                long size = Files.size(journal);
                for (int i = 0; i < 3; i++) {
                    JobHandle refused = s.submit(JobSpec.parse("[vram=1G] echo refused-" + i));
                    ExecutionException e = assertThrows(ExecutionException.class, () -> refused.number().get(5, TimeUnit.SECONDS));
                    JournalUnwritableException why = assertInstanceOf(JournalUnwritableException.class, e.getCause());
                    assertEquals(journal, why.journal());
                    assertTrue(why.getMessage().contains(journal.toString()) && why.getMessage().contains("No space left")
                            && why.getMessage().contains("free space"), why.getMessage());
                    assertInstanceOf(JournalUnwritableException.class,
                            assertThrows(ExecutionException.class, () -> refused.result().get(5, TimeUnit.SECONDS)).getCause());
                }
                assertEquals(size, Files.size(journal), "a refused submission left bytes in the journal");
                assertEquals(1, count(e -> e instanceof SchedulerEvent.Warning w && w.message().contains("submissions are refused")),
                        "the refusals are said once");
                assertFalse(running.result().isDone(), "the running job was disturbed by the refusals");

                disk.free();
                JobHandle taken = s.submit(JobSpec.parse("[vram=1G] echo taken"));
                assertEquals(2, taken.number().get(5, TimeUnit.SECONDS), "the number the refused ones would have had");
                await(e -> e instanceof SchedulerEvent.Warning w && w.message().contains("takes submissions again"));
                Files.createFile(go);
                assertEquals(JobStatus.OK, running.result().get(20, TimeUnit.SECONDS).status());
                assertEquals(JobStatus.OK, taken.result().get(20, TimeUnit.SECONDS).status());
            } finally {
                s.close();
                run.get(20, TimeUnit.SECONDS);
            }
            try (Journal j = Journal.open(journal, false)) {
                assertEquals(List.of("s1", "s2"), j.state().submissions().stream().map(JournalEvent.Submitted::key).toList());
                assertEquals(3, j.state().nextNo());
                assertFalse(Files.readString(journal).contains("refused-"), "a refused submission reached the journal");
            }
        }
    }

    @Test
    void aLineTheDiskCutsShortIsTakenBackWhole_andTheJournalIsAsIfItWasNeverAppended() throws Exception {
        try (SmallDisk disk = disk()) {
            Path file = disk.root.resolve("journal.jsonl");
            String big = "x".repeat(3000);
            try (Journal j = Journal.open(file, false)) {
                j.append(new JournalEvent.Seen("a#0", 1, "a"));
                disk.fill();
                // Lines of 3 KB into the journal page's free 4 KB: one fits, the next is cut after its head.
                JournalException refused = null;
                int taken = 0;
                for (int i = 0; i < 5 && refused == null; i++) {
                    long before = Files.size(file);
                    int nextNo = j.state().nextNo();
                    try {
                        j.appendOrNothing(new JournalEvent.Seen("big" + i + "#0", nextNo, big));
                        taken++;
                    } catch (JournalException e) {
                        refused = e;
                        assertEquals(before, Files.size(file), "the head of the refused line stayed in the file");
                        assertEquals(nextNo, j.state().nextNo(), "the refused line's number was used up");
                        assertFalse(j.behind(), "the refused line was queued to be written later");
                    }
                }
                assertTrue(refused != null && refused.getMessage().contains("No space left"), String.valueOf(refused));
                assertEquals(1, taken);
                j.force();
                disk.free();
                j.appendOrNothing(new JournalEvent.Seen("after#0", j.state().nextNo(), "after"));
                j.force();
            }
            try (Journal again = Journal.open(file, false)) {
                assertEquals(List.of(), again.loadWarnings(), "a line was torn or written twice");
                assertEquals(4, again.state().nextNo(), "a, big0, after: no number skipped");
                assertEquals(java.util.OptionalInt.of(3), again.state().record("after#0").no());
            }
        }
    }

    private long count(Predicate<SchedulerEvent> p) {
        return events.stream().filter(p).count();
    }

    private void await(Predicate<SchedulerEvent> p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (events.stream().noneMatch(p)) {
            assertTrue(System.nanoTime() < deadline, "timed out; events: " + events);
            Thread.sleep(10);
        }
    }
}

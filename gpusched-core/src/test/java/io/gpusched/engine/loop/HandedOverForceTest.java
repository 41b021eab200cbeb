package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.engine.spawn.RunFiles;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #27: the fsync of a round that followed exits runs on the journal's own thread, so the loop can
 * take the next exit and start the next run meanwhile; what the fsync covers is still reported only
 * after it, and in order. The journal's thread is held here by a gate the test opens.
 */
class HandedOverForceTest {
    @TempDir
    Path dir;

    private final List<String> reported = new CopyOnWriteArrayList<>();
    private final CountDownLatch gate = new CountDownLatch(1);
    private ExecutorService syncer;

    @AfterEach
    void openGate() {
        gate.countDown();
        if (syncer != null) {
            syncer.shutdownNow();
        }
    }

    private Durability durability(Journal journal) {
        LoopClock clock = new LoopClock(Instant::now, System::nanoTime);
        Reporter reporter = new Reporter(e -> reported.add(((SchedulerEvent.Warning) e).message()), clock);
        Durability d = new Durability(journal, RunFiles.none(dir), reporter, clock, () -> { }, () -> {
            syncer = Executors.newSingleThreadExecutor();
            // Whatever is handed over waits behind this until the test opens the gate: a slow disk.
            syncer.submit(() -> {
                gate.await();
                return null;
            });
            return syncer;
        });
        reporter.holdFor(d);
        this.reporter = reporter;
        return d;
    }

    private Reporter reporter;

    private void say(String what) {
        reporter.emit(new SchedulerEvent.Warning(Instant.now(), what));
    }

    private static JournalEvent seen(String name, int no) {
        return new JournalEvent.Seen(name + "#0", no, name);
    }

    private static long waitFor(AtomicLong done) throws InterruptedException {
        for (int i = 0; i < 1000 && done.get() == 0; i++) {
            Thread.sleep(10);
        }
        assertTrue(done.get() > 0, "the handed-over fsync never ran");
        return done.get();
    }

    @Test
    void aRoundsFsyncHandedOver_letsTheLoopWriteTheNextRound_andItsReportsWaitForTheDisk() throws Exception {
        Path file = dir.resolve("journal.jsonl");
        try (Journal journal = Journal.open(file, true)) {
            Durability d = durability(journal);
            AtomicLong done = new AtomicLong();
            d.beginGroup();
            d.record(List.of(seen("a", 1)));
            say("job 1 finished");
            d.endGroupLater(done::set);

            // The disk has not forced it: nothing reported, the line counts as unforced, yet it is in the file.
            assertEquals(List.of(), reported);
            assertTrue(journal.hasUnforced());
            assertEquals(0, journal.forces());
            assertEquals(1, Files.readAllLines(file).size(), "written before the group ended");

            // Meanwhile the loop takes the next exit and writes its round, without waiting for the disk.
            d.beginGroup();
            d.record(List.of(seen("b", 2)));
            say("job 2 finished");
            assertEquals(2, Files.readAllLines(file).size());
            assertEquals(List.of(), reported);

            gate.countDown();
            d.forced(waitFor(done));
            // The first group's report goes once its fsync is done; the second's waits for its own.
            assertEquals(List.of("job 1 finished"), reported);
            assertEquals(1, journal.forces());
            assertTrue(journal.hasUnforced(), "the second group's line is not forced yet");

            d.endGroup();
            assertEquals(List.of("job 1 finished", "job 2 finished"), reported);
            assertEquals(2, journal.forces());
            assertFalse(journal.hasUnforced());
        }
    }

    @Test
    void aGroupEndingWhileAForceIsHandedOver_waitsForIt_soReportsKeepTheirOrder() throws Exception {
        Path file = dir.resolve("journal.jsonl");
        try (Journal journal = Journal.open(file, true)) {
            Durability d = durability(journal);
            d.beginGroup();
            d.record(List.of(seen("a", 1)));
            say("first");
            d.endGroupLater(no -> { });
            d.beginGroup();
            d.record(List.of(seen("b", 2)));
            say("second");
            Thread opener = new Thread(() -> {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                gate.countDown();
            });
            opener.start();
            // Not handed over: it waits for the first group's fsync, whose reports go first.
            d.endGroup();
            assertEquals(List.of("first", "second"), reported);
            assertFalse(journal.hasUnforced());
            assertEquals(2, journal.forces());
            opener.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    @Test
    void aReportOutsideAnyGroup_waitsBehindTheForceInFlight() throws Exception {
        try (Journal journal = Journal.open(dir.resolve("journal.jsonl"), true)) {
            Durability d = durability(journal);
            AtomicLong done = new AtomicLong();
            d.beginGroup();
            d.record(List.of(seen("a", 1)));
            say("job 1 started");
            d.endGroupLater(done::set);
            // A board or warning between rounds may not overtake the report the disk still holds.
            say("board");
            assertEquals(List.of(), reported);
            gate.countDown();
            d.forced(waitFor(done));
            assertEquals(List.of("job 1 started", "board"), reported);
            say("later");
            assertEquals(List.of("job 1 started", "board", "later"), reported);
        }
    }

    @Test
    void closingTheRun_waitsForTheForceInFlight_andEndsTheJournalThread() throws Exception {
        try (Journal journal = Journal.open(dir.resolve("journal.jsonl"), true)) {
            Durability d = durability(journal);
            d.beginGroup();
            d.record(List.of(seen("a", 1)));
            say("last report");
            d.endGroupLater(no -> { });
            gate.countDown();
            d.close();
            assertEquals(List.of("last report"), reported);
            assertFalse(journal.hasUnforced());
            assertTrue(syncer.awaitTermination(10, TimeUnit.SECONDS), "the journal's thread outlived the run");
        }
    }
}

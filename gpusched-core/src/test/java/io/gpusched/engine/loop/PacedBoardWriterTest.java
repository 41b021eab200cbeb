package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.RunSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The status files are written off the loop's thread, at most once per interval, the newest board last. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PacedBoardWriterTest {
    @TempDir
    Path dir;

    private static SchedulerEvent.StatusUpdated board(int second) {
        return new SchedulerEvent.StatusUpdated(Instant.ofEpochSecond(second), new StatusBoard(List.of(), List.of(), List.of()));
    }

    private static void awaitTrue(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what);
            Thread.sleep(2);
        }
    }

    @Test
    void aBurstOfBoards_isWrittenAtMostOncePerInterval_andTheNewestLands() throws Exception {
        List<SchedulerEvent> written = new CopyOnWriteArrayList<>();
        PacedBoardWriter paced = new PacedBoardWriter(written::add, TimeUnit.MILLISECONDS.toNanos(300), System::nanoTime);
        long t0 = System.nanoTime();
        for (int i = 1; i <= 50; i++) {
            paced.accept(board(i));
        }
        SchedulerEvent.StatusUpdated newest = board(50);
        awaitTrue(() -> !written.isEmpty() && written.get(written.size() - 1).equals(newest), "the newest board is written");
        long took = System.nanoTime() - t0;
        // The first write goes out at once (nothing was written before) with the newest board by then; the
        // rest wait for the interval: fifty boards handed over in a burst make at most two writes, the
        // last the newest, and a second one only after the interval.
        assertTrue(written.size() <= 2, "writes: " + written.size());
        assertTrue(written.size() == 1 || took >= TimeUnit.MILLISECONDS.toNanos(300), "the second write waited for the interval");
    }

    @Test
    void theLoopHandsTheBoardOver_withoutWaitingForTheFiles() throws Exception {
        CountDownLatch diskIsSlow = new CountDownLatch(1);
        List<SchedulerEvent> written = new CopyOnWriteArrayList<>();
        PacedBoardWriter paced = new PacedBoardWriter(e -> {
            try {
                diskIsSlow.await();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            written.add(e);
        }, 0, System::nanoTime);
        long t0 = System.nanoTime();
        paced.accept(board(1));
        paced.accept(board(2));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "accept returned while the write hangs");
        assertTrue(written.isEmpty());
        diskIsSlow.countDown();
        awaitTrue(() -> written.contains(board(2)), "the newest board is written once the disk answers");
    }

    @Test
    void theEndOfTheRun_isWrittenBeforeAcceptReturns_afterTheNewestBoard() throws Exception {
        List<SchedulerEvent> written = new CopyOnWriteArrayList<>();
        // An hour between writes: only the first board goes out on its own; the end must flush the newest.
        PacedBoardWriter paced = new PacedBoardWriter(written::add, TimeUnit.HOURS.toNanos(1), System::nanoTime);
        paced.accept(board(1));
        awaitTrue(() -> written.size() == 1, "the first board is written at once");
        paced.accept(board(2));
        paced.accept(board(3));
        SchedulerEvent.RunFinished end = new SchedulerEvent.RunFinished(Instant.ofEpochSecond(4),
                new RunSummary(List.of(), false));
        paced.accept(end);
        assertEquals(List.of(board(1), board(3), end), List.copyOf(written));
    }

    @Test
    void aBoardOfManyJobs_isWrittenOnTheCallersThreadBeforeAcceptReturns_soTwoAreNeverHeldAtOnce() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        List<SchedulerEvent> written = new CopyOnWriteArrayList<>();
        // An hour between writes: a small board after the first would wait; a large one never does.
        PacedBoardWriter paced = new PacedBoardWriter(e -> {
            threads.add(Thread.currentThread().getName());
            written.add(e);
        }, TimeUnit.HOURS.toNanos(1), System::nanoTime);
        paced.accept(board(1));
        awaitTrue(() -> written.size() == 1, "the first board is written at once");
        paced.accept(board(2)); // owed for an hour
        List<StatusBoard.Pending> many = java.util.stream.IntStream.rangeClosed(1, PacedBoardWriter.LOOP_THREAD_ROWS + 1)
                .mapToObj(no -> StatusBoard.Pending.builder(no, "true").build()).toList();
        SchedulerEvent.StatusUpdated large = new SchedulerEvent.StatusUpdated(Instant.ofEpochSecond(3),
                new StatusBoard(List.of(), many, List.of()));
        paced.accept(large);
        // Written before accept returned, on this thread, and the small board it supersedes never after it.
        assertEquals(List.of(board(1), large), List.copyOf(written));
        assertEquals(Thread.currentThread().getName(), threads.get(1));
        Thread.sleep(50);
        assertEquals(2, written.size(), "the superseded board is not written later");
    }

    @Test
    void theRealFiles_showTheLastBoardAndFinished_whenTheRunEnds() throws Exception {
        Path status = dir.resolve("status.txt");
        PacedBoardWriter paced = new PacedBoardWriter(new StatusBoardWriter(status));
        for (int i = 1; i <= 20; i++) {
            paced.accept(board(i));
        }
        paced.accept(new SchedulerEvent.RunFinished(Instant.ofEpochSecond(30), new RunSummary(List.of(), false)));
        String json = Files.readString(dir.resolve("status.json"));
        assertTrue(json.contains("\"finished\":true"), json);
        assertTrue(json.contains(Instant.ofEpochSecond(20).toString()), "the last board's time: " + json);
        assertTrue(Files.readString(status).startsWith("gpusched status @ "), Files.readString(status));
    }
}

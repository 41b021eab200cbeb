package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code queue} asked after its asker saw their job run shows it running, though the round that
 * started it has not published its board yet: its spawns, their fsync, the listeners and the board
 * come in that order on the loop's thread, and a slow disk or listener (here, a listener held on purpose)
 * leaves the job running under the last board. MultiUserServeTest once read "0 running, 0 pending, 0
 * done" there, under load, after alice's job had written its files.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueAfterStartTest {
    @TempDir
    Path dir;

    private static String rows(QueueView q) {
        return "board at " + q.at() + ": running " + q.board().running().stream().map(Row::no).toList()
                + ", pending " + q.board().pending().stream().map(Row::no).toList();
    }

    @Test
    void aQueueAskedAfterAJobRan_waitsForTheBoardOfTheRoundThatStartedIt() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch listenerReached = new CountDownLatch(1);
        try (RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 0).options(RunningScheduler.quick())
                .listener(e -> {
                    if (e instanceof SchedulerEvent.JobStarted s && s.no() == 1) {
                        listenerReached.countDown();
                        try {
                            held.await(20, TimeUnit.SECONDS);
                        } catch (InterruptedException x) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }).build());
             ServiceServer server = ServiceServer.start(running.scheduler(), dir.resolve("run/gpusched.sock"));
             GpuschedClient submitter = GpuschedClient.connect(server.socket());
             GpuschedClient asker = GpuschedClient.connect(server.socket())) {
            Path work = Files.createDirectories(dir.resolve("work"));
            assertEquals(1, submitter.submit("[vram=1G] echo ran > ran; sleep 30", work,
                    Optional.of(Map.of("PATH", "/usr/bin:/bin"))));
            assertTrue(listenerReached.await(20, TimeUnit.SECONDS), "job 1 never reported started");
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); !Files.exists(work.resolve("ran")); Thread.sleep(10)) {
                assertTrue(System.nanoTime() < end, "the job never ran");
            }
            Optional<io.gpusched.event.QueueSnapshot> last = running.scheduler().snapshot();
            assertFalse(last.isPresent() && last.get().board().running().stream().anyMatch(r -> r.no() == 1),
                    "the loop is held before its board; the last one shows job 1 not running yet: " + last);

            CompletableFuture<QueueView> answer = CompletableFuture.supplyAsync(asker::queue);
            // Let go of the loop a while later: an answer from the last board would have come by then.
            CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS).execute(held::countDown);
            QueueView q = answer.get(20, TimeUnit.SECONDS);
            assertTrue(q.board().running().stream().anyMatch(r -> r.no() == 1),
                    "asked after job 1 ran, the queue must show it running; " + rows(q));
            assertEquals(0, held.getCount(), "answered once the round's board was out");
        } finally {
            held.countDown();
        }
    }
}

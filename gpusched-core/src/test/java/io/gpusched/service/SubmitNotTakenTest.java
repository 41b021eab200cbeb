package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.protocol.Request;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A submission the scheduler's loop does not take in time is answered "not queued" only when it is
 * certain: it is taken back first, so it is never queued later behind its client's back (who would send
 * it again, and get it twice).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubmitNotTakenTest {
    @TempDir
    Path dir;

    @Test
    void aSubmissionTheLoopDidNotTakeInTimeIsTakenBack_answeredNotQueued_andNeverQueuedAfter() throws Exception {
        HeldLoop loop = new HeldLoop();
        // The loop let go first, then the scheduler closed (which waits for its loop).
        try (RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 24000).listener(loop).build());
             loop) {
            Requests requests = new Requests(running.scheduler(), true, Optional.empty(), Optional.empty(), Optional.empty(),
                    Duration.ofMillis(300));
            loop.hold(running.scheduler(), dir);

            List<String> answer = requests.answer(new Request.Submit("[vram=1G] echo never-queued", dir.toString(),
                    Optional.of(Map.of()), Optional.empty(), Optional.empty(), OptionalInt.empty()), "ada").get(10, TimeUnit.SECONDS);

            assertEquals(1, answer.size());
            assertTrue(answer.get(0).contains("\"code\":\"failed\"") && answer.get(0).contains("it was not queued"), answer.get(0));
            loop.release();
            running.scheduler().whenSnapshotCurrent().get(10, TimeUnit.SECONDS);
            Thread.sleep(300); // a few rounds: what the loop had queued, it has taken by now
            running.scheduler().whenSnapshotCurrent().get(10, TimeUnit.SECONDS);
            var board = running.scheduler().snapshot().orElseThrow().board();
            assertFalse(board.pending().stream().anyMatch(p -> p.command().contains("never-queued")), board.toString());
            assertFalse(Files.readString(dir.resolve("logs/journal.jsonl")).contains("never-queued"), "journaled");
            assertTrue(board.pending().stream().anyMatch(p -> p.command().contains("wake")), board.toString());
        }
    }
}

package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.protocol.Request;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A preview may decide the whole queue on the scheduler's one loop: a user gets one at a time, so their
 * previews sent back to back on many connections cannot hold everyone else's submissions behind them.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreviewPerUserTest {
    @TempDir
    Path dir;

    @Test
    void aUserWithAPreviewBeingDecidedIsRefusedASecond_whileAnotherUsersIsDecided() throws Exception {
        HeldLoop loop = new HeldLoop();
        // The loop let go first, then the scheduler closed (which waits for its loop).
        try (RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 24000).listener(loop).build());
             loop) {
            Requests requests = new Requests(running.scheduler(), true, Optional.empty(), Optional.empty(), Optional.empty());
            Request preview = new Request.Preview("[vram=1G] echo x", dir.toString());
            loop.hold(running.scheduler(), dir);
            CompletableFuture<List<String>> first = CompletableFuture.supplyAsync(() -> requests.answer(preview, "ada").join());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); !requests.previewing("ada"); Thread.sleep(5)) {
                assertTrue(System.nanoTime() < end, "ada's first preview never reached the loop");
            }
            List<String> second = CompletableFuture.supplyAsync(() -> requests.answer(preview, "ada").join()).get(5, TimeUnit.SECONDS);
            assertTrue(second.get(0).contains("one preview at a time per user") && second.get(0).contains("\"code\":\"failed\""),
                    second.toString());
            CompletableFuture<List<String>> bobs = CompletableFuture.supplyAsync(() -> requests.answer(preview, "bob").join());
            Thread.sleep(200);
            assertFalse(bobs.isDone(), "bob's preview waits for the loop, not refused: " + (bobs.isDone() ? bobs.join() : ""));
            loop.release();
            assertTrue(first.get(20, TimeUnit.SECONDS).get(0).contains("\"ok\":true"), first.join().toString());
            assertTrue(bobs.get(20, TimeUnit.SECONDS).get(0).contains("\"ok\":true"), bobs.join().toString());
            assertTrue(requests.answer(preview, "ada").join().get(0).contains("\"ok\":true"), "her next one is decided");
        }
    }
}

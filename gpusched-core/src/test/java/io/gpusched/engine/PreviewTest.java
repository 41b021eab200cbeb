package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.Scheduler;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.SubmitContext;
import io.gpusched.model.SubmitPreview;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched submit --dry-run}: what a job would do now is what it does once submitted, whether the
 * preview is decided alone against the last plan (a job that waits) or with the whole queue.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PreviewTest {
    @TempDir
    Path dir;

    @Test
    void aPreviewSaysWhatTheSameJobSubmittedThenIsToldOnTheBoard_waitingOrStarting() throws Exception {
        // Two jobs hold both GPUs; none of those queued behind them fits beside them, so the GPUs and the
        // queue stay as they are while the test looks.
        StringBuilder file = new StringBuilder("[vram=20G priority=9] sleep 30\n[vram=20G priority=9] sleep 30\n");
        for (int i = 0; i < 200; i++) {
            file.append("[vram=").append(i % 3 == 0 ? "16G" : "20G").append(" priority=").append(i % 4).append("] echo queued ")
                    .append(i).append('\n');
        }
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), file);
        Scheduler s = Scheduler.builder().backend(new StubBackend(2, 24000)).jobsFile(jobs).logDir(dir.resolve("logs"))
                .options(SchedulerOptions.defaults().withWatch(true).withPoll(Duration.ofMillis(50))
                        .withKillGrace(Duration.ofMillis(200)))
                .build();
        CompletableFuture<?> run = CompletableFuture.runAsync(s::run);
        try {
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                 s.snapshot().map(q -> q.board().running().size() != 2 || q.board().pending().size() < 150).orElse(true);
                 Thread.sleep(20)) {
                assertTrue(System.nanoTime() < end, "the queue filled: " + s.snapshot());
            }
            SubmitContext me = new SubmitContext(System.getProperty("user.name"), dir, Optional.of(Map.of()), Optional.empty(),
                    Optional.empty(), java.util.OptionalInt.empty());
            for (String line : List.of("[vram=20G] echo mine", "[vram=20G priority=9] echo urgent", "[vram=1G] echo small",
                    "[vram=12G priority=2] echo mid", "[gpus=2] echo both")) {
                SubmitPreview p = s.preview(JobSpec.parse(line), me);
                int no = s.submit(JobSpec.parse(line), me).number().get(10, TimeUnit.SECONDS);
                SubmitPreview told = told(s, no);
                assertEquals(told, p, line);
                if (told instanceof SubmitPreview.Starts) {
                    break; // the GPUs are not what the next preview saw
                }
            }
        } finally {
            s.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }

    /** What the board shows the job as once the loop has taken it: waiting and why, or started where. */
    private static SubmitPreview told(Scheduler s, int no) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(10)) {
            s.whenSnapshotCurrent().get(10, TimeUnit.SECONDS);
            var board = s.snapshot().orElseThrow().board();
            Optional<SubmitPreview> p = board.pending().stream().filter(r -> r.no() == no).findFirst()
                    .map(r -> (SubmitPreview) new SubmitPreview.Waits(r.reason()));
            p = p.or(() -> board.running().stream().filter(r -> r.no() == no).findFirst()
                    .map(r -> new SubmitPreview.Starts(r.gpus())));
            if (p.isPresent()) {
                return p.get();
            }
            assertTrue(System.nanoTime() < end, "job " + no + " is on the board");
        }
    }
}

package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.CancelOutcome;
import io.gpusched.QueueFullException;
import io.gpusched.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.SchedulerOptions;
import io.gpusched.SubmitContext;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A user with as many jobs not yet ended as the cap allows gets no more; the refusal leaves no trace. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueCapTest {
    @TempDir
    Path dir;

    /** One GPU whose memory another process holds whole: every declared job waits. */
    private static final class FullGpu implements GpuBackend {
        @Override
        public GpuSnapshot snapshot() {
            return new GpuSnapshot(List.of(GpuStat.of(0, 24000, 24000)), List.of());
        }

        @Override
        public String describe() {
            return "one full gpu";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void theSubmissionOverTheCapIsRefusedAsQueueFull_withoutUsingANumber_andOthersAndLaterOnesGoOn() throws Exception {
        SchedulerOptions o = SchedulerOptions.defaults().withWatch(true).withPoll(Duration.ofMillis(50));
        Scheduler scheduler = Scheduler.builder().backend(new FullGpu()).options(o).logDir(dir.resolve("logs"))
                .jobs(List.of()).maxQueuedPerUser(2).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(scheduler::run);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); scheduler.snapshot().isEmpty(); Thread.sleep(10)) {
            assertTrue(System.nanoTime() < end, "no first round");
        }
        Path work = Files.createDirectories(dir.resolve("work"));
        try (ServiceServer server = ServiceServer.start(scheduler, dir.resolve("run/gpusched.sock"));
             GpuschedClient c = GpuschedClient.connect(server.socket())) {
            assertEquals(1, c.submit("[vram=1G] true", work, Optional.empty()));
            assertEquals(2, c.submit("[vram=1G] true", work, Optional.empty()));
            ServiceException full = assertThrows(ServiceException.class, () -> c.submit("[vram=1G] true", work,
                    Optional.empty()));
            assertEquals("queue_full", full.code());
            assertEquals(c.user() + " already has 2 jobs queued or running, the most one user may have (gpusched serve"
                    + " --max-queued-per-user 2); wait for some to end, or cancel some", full.getMessage());

            QueueFullException api = assertThrows(QueueFullException.class, () -> scheduler.submit(
                    JobSpec.parse("[vram=1G] true"), new SubmitContext(c.user(), work, Optional.empty())));
            assertEquals(2, api.limit());
            int other = scheduler.submit(JobSpec.parse("[vram=1G] true"), new SubmitContext("someone-else", work,
                    Optional.empty())).number().get(10, TimeUnit.SECONDS);
            assertEquals(3, other, "the refusals used no number, and the cap is per user");

            assertEquals(CancelOutcome.CANCELLED, c.cancel(1));
            assertEquals(4, c.submit("[vram=1G] true", work, Optional.empty()), "an ended job makes room");
        } finally {
            scheduler.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }
}

package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.CancelOutcome;
import io.gpusched.model.QueueFullException;
import io.gpusched.Scheduler;
import io.gpusched.model.SubmitContext;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A user with as many jobs not yet ended as the cap allows gets no more; the refusal leaves no trace. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueCapTest {
    @TempDir
    Path dir;

    @Test
    void theSubmissionOverTheCapIsRefusedAsQueueFull_withoutUsingANumber_andOthersAndLaterOnesGoOn() throws Exception {
        // One GPU whose memory another process holds whole: every declared job waits.
        RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 24000).maxQueuedPerUser(2).build());
        Scheduler scheduler = running.scheduler();
        Path work = Files.createDirectories(dir.resolve("work"));
        try (running;
             ServiceServer server = ServiceServer.start(scheduler, dir.resolve("run/gpusched.sock"));
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
        }
    }
    @Test
    void submissionsWhoseEnvironmentsWouldPassTheUsersShare_areRefused_evenByTheNextDaemon_untilSomeEnd() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        // Distinct environments of about 300,000 bytes each (none shared with another): three fit in 1 MiB.
        java.util.function.IntFunction<Optional<java.util.Map<String, String>>> env = i -> Optional.of(java.util.Map.of(
                "PATH", "/usr/bin:/bin", "BIG", String.valueOf((char) ('a' + i)).repeat(300_000)));
        try (RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 24000).maxQueuedSizePerUser(1).build());
             ServiceServer server = ServiceServer.start(running.scheduler(), dir.resolve("run/gpusched.sock"));
             GpuschedClient c = GpuschedClient.connect(server.socket())) {
            for (int i = 1; i <= 3; i++) {
                assertEquals(i, c.submit("[vram=1G] true", work, env.apply(i)));
            }
            ServiceException full = assertThrows(ServiceException.class, () -> c.submit("[vram=1G] true", work, env.apply(4)));
            assertEquals("queue_full", full.code());
            assertTrue(full.getMessage().startsWith(c.user() + "'s 3 jobs queued or running hold 900"), full.getMessage());
            assertTrue(full.getMessage().contains("(gpusched serve --max-queued-size-per-user 1M)"), full.getMessage());
            assertEquals(4, running.scheduler().submit(JobSpec.parse("[vram=1G] true"), new SubmitContext("someone-else", work,
                    env.apply(5))).number().get(10, TimeUnit.SECONDS), "the refusal used no number, and the share is per user");
        }
        // A restarted daemon folds the same share from its journal.
        try (RunningScheduler running = RunningScheduler.start(RunningScheduler.builder(dir, 24000).maxQueuedSizePerUser(1).build());
             ServiceServer server = ServiceServer.start(running.scheduler(), dir.resolve("run/gpusched.sock"));
             GpuschedClient c = GpuschedClient.connect(server.socket())) {
            assertEquals("queue_full", assertThrows(ServiceException.class,
                    () -> c.submit("[vram=1G] true", work, env.apply(6))).code());
            ServiceException alone = assertThrows(ServiceException.class, () -> c.submit("[vram=1G] true", work, Optional.of(
                    java.util.Map.of("BIG", "x".repeat(900_000)))));
            assertTrue(alone.getMessage().contains("'s 3 jobs"), alone.getMessage());
            assertEquals(CancelOutcome.CANCELLED, c.cancel(1));
            assertEquals(5, c.submit("[vram=1G] true", work, env.apply(7)), "an ended job gives its share back");
        }
    }
}

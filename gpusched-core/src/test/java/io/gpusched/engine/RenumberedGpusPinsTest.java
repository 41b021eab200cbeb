package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A job pinned by index ({@code gpu-ids=1}, {@code --gpu-ids 1}) waits while the GPUs are renumbered:
 * its submitter named the device they saw at that index, so the pin stays on that device (by its UUID,
 * read when the daemon accepted the job), not on the index, which another device has now.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RenumberedGpusPinsTest extends RenumberingDaemon {
    @Test
    void anIndexPinFollowsTheDeviceThatHadTheIndexWhenTheJobWasSubmitted() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        start(machine);
        JobHandle holder = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1);
        JobHandle pinned = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=1] true"));
        QueueSnapshot waiting = snapshotWhere(s -> s.board().pending().size() == 1);

        // A device appears before it: GPU-bbbb is gpu 2 now, and gpu 1 is an empty device.
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        snapshotWhere(s -> s.gpus().size() == 3);
        Thread.sleep(300);
        assertFalse(pinned.result().isDone(), "started on the device that took index 1");
        assertTrue(Files.readString(dir.resolve("logs").resolve("journal.jsonl")).contains("gpu-ids=GPU-bbbb"),
                "journaled as pinned to the device, for a restart");
        assertEquals("1 on GPU-bbbb", waiting.board().pending().get(0).gpusAsked().orElseThrow(),
                "the queue shows the device the index was read as");

        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
        assertEquals(JobStatus.CANCELLED, holder.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(JobStatus.OK, pinned.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(List.of(2), pinned.result().get().gpus(), "on its device, where it is listed now");
    }

    @Test
    void anIndexPinFollowsItsDeviceAcrossARestartThatRenumberedTheGpus() throws Exception {
        start(new UuidBackend("GPU-aaaa", "GPU-bbbb"));
        snapshotWhere(s -> s.gpus().size() == 2);
        scheduler.pause(1);
        scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=1] true"));
        snapshotWhere(s -> s.board().pending().size() == 1);
        scheduler.close();
        run.get(20, TimeUnit.SECONDS);

        start(new UuidBackend("GPU-aaaa", "GPU-cccc", "GPU-bbbb"));
        snapshotWhere(s -> s.gpus().size() == 3 && s.board().pending().size() == 1);
        Thread.sleep(300);
        QueueSnapshot waiting = scheduler.snapshot().orElseThrow();
        assertEquals(1, waiting.board().pending().size(), "started on gpu 1, which is another device now: "
                + waiting.board());
        assertTrue(waiting.board().pending().get(0).reason().endsWith("gpu2 is paused"), waiting.board().toString());
        scheduler.resume(2);
        QueueSnapshot done = snapshotWhere(s -> s.board().done().size() == 1);
        assertEquals(JobStatus.OK, done.board().done().get(0).status());
        assertEquals(List.of(2), done.board().done().get(0).gpus());
    }

    @Test
    void aJobsFileLinePinnedByIndexFollowsTheDeviceThatHadTheIndexWhenTheLineWasTaken() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=20G gpu-ids=GPU-bbbb] sleep 30\n");
        run(on(machine, FAST).jobsFile(jobs).build());
        snapshotWhere(s -> s.board().running().size() == 1);
        Files.writeString(jobs, "[vram=20G gpu-ids=1] true\n", java.nio.file.StandardOpenOption.APPEND);
        // Taken and bound in one round: the GPUs read at that round name the device at index 1.
        QueueSnapshot waiting = snapshotWhere(s -> s.board().pending().size() == 1);

        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        snapshotWhere(s -> s.gpus().size() == 3);
        Thread.sleep(300);
        QueueSnapshot after = scheduler.snapshot().orElseThrow();
        assertEquals(1, after.board().pending().size(), "started on the device that took index 1: " + after.board());
        assertEquals(waiting.board().pending().get(0).no(), after.board().pending().get(0).no());
        assertEquals(Optional.of("1 on GPU-bbbb"), after.board().pending().get(0).gpusAsked(),
                "the queue shows the device the index was read as");

        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
        QueueSnapshot done = snapshotWhere(s -> s.board().done().stream().anyMatch(r -> r.status() == JobStatus.OK));
        assertEquals(List.of(2), done.board().done().stream().filter(r -> r.status() == JobStatus.OK).findFirst()
                .orElseThrow().gpus(), "on its device, where it is listed now");
    }
}

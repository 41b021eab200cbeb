package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobStatus;
import java.nio.file.Files;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A paused GPU is renumbered (NVML renumbers devices when MIG instances are made or destroyed on an
 * earlier GPU, or one falls off the bus): the pause stays on the device the admin paused, not on the
 * index, which another device has now.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RenumberedGpusPausesTest extends RenumberingDaemon {
    @Test
    void pauseFollowsTheDeviceAcrossARenumbering() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        start(machine);
        snapshotWhere(s -> s.gpus().size() == 2);
        scheduler.pause(1);
        assertTrue(journal().contains("\"device\":\"GPU-bbbb\""), journal());

        // A device appears before it: GPU-bbbb is gpu 2 now, and gpu 1 is another, unpaused device.
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        snapshotWhere(s -> s.gpus().size() == 3 && s.pausedGpus().equals(Set.of(2)));
        assertEquals(List.of("gpu 1 (GPU-bbbb), paused, is listed as gpu 2 now: the GPUs were renumbered (MIG"
                + " instances created or destroyed?); its pause follows it to gpu 2"), warnings());

        JobHandle onTheNewDevice = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-cccc] true"));
        assertEquals(JobStatus.OK, onTheNewDevice.result().get(20, TimeUnit.SECONDS).status(),
                "gpu 1 took it: the pause left with the device that had index 1");
        JobHandle onThePaused = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] true"));
        QueueSnapshot waiting = snapshotWhere(s -> s.board().pending().size() == 1);
        assertTrue(waiting.board().pending().get(0).reason().endsWith("gpu2 is paused"),
                waiting.board().pending().toString());
        Thread.sleep(200);
        assertFalse(onThePaused.result().isDone(), "placed on the paused device");

        scheduler.resume(2);
        assertEquals(JobStatus.OK, onThePaused.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(List.of(2), onThePaused.result().get().gpus());
        assertEquals(Set.of(), snapshotWhere(s -> s.pausedGpus().isEmpty()).pausedGpus());
    }

    @Test
    void pauseFollowsTheDeviceAcrossARestartThatRenumberedIt() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        start(machine);
        snapshotWhere(s -> s.gpus().size() == 2);
        scheduler.pause(1);

        // Renumbered while no scheduler ran (MIG reconfigured, a reboot): the pause is found by its device.
        restart(new UuidBackend("GPU-aaaa", "GPU-cccc", "GPU-bbbb"));
        assertEquals(Set.of(2), snapshotWhere(s -> s.gpus().size() == 3 && s.pausedGpus().equals(Set.of(2)))
                .pausedGpus());
        JobHandle job = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-cccc] true"));
        assertEquals(JobStatus.OK, job.result().get(20, TimeUnit.SECONDS).status());
    }

    @Test
    void aPauseJournaledByIndexAloneIsBoundToTheDeviceAtThatIndexAtTheFirstRead_andFollowsIt() throws Exception {
        // A line as gpusched wrote pauses before they named devices.
        Files.createDirectories(dir.resolve("logs"));
        Files.writeString(dir.resolve("logs").resolve("journal.jsonl"),
                "{\"key\":\"gpu1\",\"event\":\"gpu_paused\",\"gpu\":1,\"paused\":true}\n");
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        start(machine);
        assertEquals(Set.of(1), snapshotWhere(s -> s.gpus().size() == 2).pausedGpus());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!journal().contains("\"gpu\":1,\"device\":\"GPU-bbbb\",\"paused\":true")) {
            assertTrue(System.nanoTime() < deadline, journal());
            Thread.sleep(10);
        }

        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        assertEquals(Set.of(2), snapshotWhere(s -> s.gpus().size() == 3 && s.pausedGpus().equals(Set.of(2)))
                .pausedGpus());
        restart(new UuidBackend("GPU-aaaa", "GPU-cccc", "GPU-bbbb"));
        assertEquals(Set.of(2), snapshotWhere(s -> s.gpus().size() == 3).pausedGpus(), "and after a restart");
    }

    @Test
    void aPausedDeviceThatLeftIsShownAtItsLastIndexWhileNoOtherDeviceHasIt_andCanBeResumedThere() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        start(machine);
        snapshotWhere(s -> s.gpus().size() == 2);
        scheduler.pause(1);
        machine.uuids = List.of("GPU-aaaa");
        assertEquals(Set.of(1), snapshotWhere(s -> s.gpus().size() == 1).pausedGpus());
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc");
        assertEquals(Set.of(), snapshotWhere(s -> s.gpus().size() == 2 && s.pausedGpus().isEmpty()).pausedGpus(),
                "another device at its index is not paused");
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        assertEquals(Set.of(2), snapshotWhere(s -> s.gpus().size() == 3 && !s.pausedGpus().isEmpty()).pausedGpus(),
                "back, and still paused");
        machine.uuids = List.of("GPU-aaaa");
        snapshotWhere(s -> s.gpus().size() == 1 && s.pausedGpus().equals(Set.of(2)));
        scheduler.resume(2);
        assertEquals(Set.of(), snapshotWhere(s -> s.pausedGpus().isEmpty()).pausedGpus());
    }
}

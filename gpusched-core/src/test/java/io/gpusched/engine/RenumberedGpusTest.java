package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobStatus;
import io.gpusched.options.SchedulerOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The backend renumbers its GPUs under a running job (NVML does when MIG instances are created or
 * destroyed on an earlier GPU): the job's declaration must stay on its device, not on the index it
 * started at, which another device has now.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RenumberedGpusTest extends RenumberingDaemon {
    /** Waits until {@code n} warnings were said, and a few samples more, so that one too many would show. */
    private List<String> warningsOnceThere(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (warnings().size() < n) {
            assertTrue(System.nanoTime() < deadline, "timed out; warnings: " + warnings());
            Thread.sleep(10);
        }
        Thread.sleep(150);
        return warnings();
    }

    @Test
    void aRunningJobsDeclarationFollowsItsDeviceWhenTheGpusAreRenumbered_andNothingIsPlacedOverIt() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        run(on(machine, FAST).build());
        JobHandle first = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1 && s.board().running().get(0).gpus().equals(List.of(1)));

        // A device appears before it (MIG instances made on gpu 0, say): GPU-bbbb is gpu 2 now, and gpu 1 is
        // an empty device.
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        snapshotWhere(s -> s.gpus().size() == 3);
        JobHandle second = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] true"));
        QueueSnapshot waiting = snapshotWhere(s -> s.board().pending().size() == 1);
        assertTrue(waiting.board().pending().get(0).reason().contains("gpu2"), waiting.board().pending().toString());
        Thread.sleep(300);
        assertFalse(second.result().isDone(), "placed over the running job's 20G declaration on GPU-bbbb");
        assertEquals(List.of("gpu 1 (GPU-bbbb), where job 1 runs, is listed as gpu 2 now: the GPUs were renumbered"
                + " (MIG instances created or destroyed?); its declaration and memory are counted on gpu 2"),
                warnings(), "said once, over many samples");
        // The device that took index 1 is free: a job pinned there by index starts at once.
        JobHandle third = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=1] true"));
        assertEquals(JobStatus.OK, third.result().get(20, TimeUnit.SECONDS).status());

        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
        assertEquals(JobStatus.CANCELLED, first.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(JobStatus.OK, second.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(List.of(2), second.result().get().gpus());
    }

    @Test
    void aDeviceThatLeavesTheListUnderARunningJobIsSaidOnce() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        run(on(machine, FAST).build());
        scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=1] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1);
        machine.uuids = List.of("GPU-aaaa");
        snapshotWhere(s -> s.gpus().size() == 1);
        Thread.sleep(300);
        assertEquals(List.of("gpu 1 (GPU-bbbb), where job 1 runs, is no longer listed: its memory there cannot be"
                + " measured; gpusched cancel 1 stops it"), warnings());
        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
    }

    @Test
    void aDeviceLostBackAndLostAgainIsSaidEachTime_andBackAtANewIndexToo() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        run(on(machine, FAST).build());
        scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=1] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1);
        String gone = "gpu 1 (GPU-bbbb), where job 1 runs, is no longer listed: its memory there cannot be measured;"
                + " gpusched cancel 1 stops it";
        String back = "gpu 1 (GPU-bbbb), where job 1 runs, is listed as gpu 1 again: its declaration and memory are"
                + " counted there";
        machine.uuids = List.of("GPU-aaaa");
        assertEquals(List.of(gone), warningsOnceThere(1));
        machine.uuids = List.of("GPU-aaaa", "GPU-bbbb");
        assertEquals(List.of(gone, back), warningsOnceThere(2));
        machine.uuids = List.of("GPU-aaaa");
        assertEquals(List.of(gone, back, gone), warningsOnceThere(3), "lost again is said again");
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        assertEquals(List.of(gone, back, gone, "gpu 1 (GPU-bbbb), where job 1 runs, is listed as gpu 2 now: the GPUs"
                + " were renumbered (MIG instances created or destroyed?); its declaration and memory are counted on"
                + " gpu 2"), warningsOnceThere(4), "back at another index");
        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
    }

    @Test
    void aDeviceListedUnhealthyUnderARunningJob_asNvmlListsALostGpu_isSaidEachTimeItIsLost() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        run(on(machine, FAST).build());
        scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=1] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1);
        String lost = "gpu 1 (GPU-bbbb), where job 1 runs, is listed unhealthy (lost, or unreadable): its memory there"
                + " cannot be measured; gpusched cancel 1 stops it";
        String back = "gpu 1 (GPU-bbbb), where job 1 runs, is listed as gpu 1 again: its declaration and memory are"
                + " counted there";
        machine.unhealthy = java.util.Set.of("GPU-bbbb");
        assertEquals(List.of(lost), warningsOnceThere(1));
        machine.unhealthy = java.util.Set.of(); // reset
        assertEquals(List.of(lost, back), warningsOnceThere(2));
        machine.unhealthy = java.util.Set.of("GPU-bbbb");
        assertEquals(List.of(lost, back, lost), warningsOnceThere(3), "lost after a reset is said again");
        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
    }

    /**
     * The backend's own warning of a lost GPU is said when it appears, not once for good: said once by its
     * text, a GPU lost, reset and lost again was not said the second time in the daemon's log.
     */
    @Test
    void aBackendWarningIsSaidWhenItAppears_andAgainWhenItComesBack_butNotWhileItStands() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        run(on(machine, FAST).build());
        snapshotWhere(s -> s.gpus().size() == 2);
        String lost = "NVML: GPU 1 is lost (GPU is lost); reset the GPU or reboot; no jobs will be placed on it";
        machine.warnings = List.of(lost);
        assertEquals(List.of(lost), warningsOnceThere(1));
        Thread.sleep(300); // reads while it stands: not said again
        assertEquals(List.of(lost), warnings());
        machine.warnings = List.of(); // reset
        Thread.sleep(300);
        machine.warnings = List.of(lost);
        assertEquals(List.of(lost, lost), warningsOnceThere(2), "lost again after a reset is said again");
    }

    @Test
    void aRunningJobsUtilisationIsReadOnItsDevice_notOnTheDeviceThatTookItsIndex() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        machine.util = java.util.Map.of("GPU-aaaa", 0, "GPU-bbbb", 90, "GPU-cccc", 0);
        run(on(machine, FAST).build());
        JobHandle job = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1);
        Thread.sleep(200);
        // An idle device appears before it: gpu 1 reads 0 % now, GPU-bbbb (gpu 2) still 90 %.
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        warningsOnceThere(1);
        Thread.sleep(300);
        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
        assertEquals(90.0, job.result().get(20, TimeUnit.SECONDS).avgUtilPercent().orElseThrow(), 1e-9,
                "every sample read GPU-bbbb at 90 %, wherever it was listed");
    }

    @Test
    void theQueueShowsWhereARunningJobRunsNow_theJournalAndItsResultWhereItStarted() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        run(on(machine, FAST).build());
        JobHandle job = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1 && s.board().running().get(0).gpus().equals(List.of(1)));
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        QueueSnapshot moved = snapshotWhere(s -> s.gpus().size() == 3 && s.board().running().size() == 1
                && !s.memory().get(2).jobs().isEmpty());
        assertEquals(List.of(2), moved.board().running().get(0).gpus(), "gpusched queue shows where it runs now");
        assertEquals(java.util.Set.of(2), moved.board().running().get(0).currentMib().keySet(),
                "its memory is shown on the GPU it is shown on (gpusched top draws it there)");
        assertEquals(List.of(), moved.memory().get(1).jobs(), "the device at gpu 1 holds none of it");
        assertEquals(1, moved.memory().get(2).jobs().get(0).no());
        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(1));
        assertEquals(List.of(1), job.result().get(20, TimeUnit.SECONDS).gpus(), "its result keeps where it started");
        String journal = java.nio.file.Files.readString(dir.resolve("logs").resolve("journal.jsonl"));
        assertTrue(journal.contains("\"gpus\":[1]"), journal);
        assertFalse(journal.contains("\"gpus\":[2]"), journal);
    }

    @Test
    void aPreemptibleJobWhoseDeviceMovedIsPreemptedForTheJobThatNeedsItsDevice() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        SchedulerOptions options = FAST.withPolicy(io.gpusched.policy.PolicyOptions.defaults()
                .withReserveAfter(Duration.ofMillis(300)));
        run(on(machine, options).build());
        scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb preemptible] sleep 30"));
        snapshotWhere(s -> s.board().running().size() == 1);
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        warningsOnceThere(1);
        // It needs GPU-bbbb, now gpu 2, which the preemptible job holds: the reservation there must stop
        // that job, not look for it on gpu 1, where it started.
        JobHandle urgent = scheduler.submit(JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb priority=5] true"));
        assertEquals(JobStatus.OK, urgent.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(List.of(2), urgent.result().get().gpus());
    }
}

package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A running job's memory notices (its declaration exceeded, its peak grown) and the peaks its
 * {@code done} line and result keep name the GPU where its device is listed when they are said: after
 * the GPUs were renumbered under it, that is not the index it started at, which another device has now.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RenumberedGpusMemoryEventsTest extends RenumberingDaemon {
    /** Verbose: the growth notices are said only then. */
    private static final SchedulerOptions VERBOSE = FAST.withVerbose(true);

    private static void await(BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(10);
        }
    }

    private <T extends SchedulerEvent> List<T> all(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void exceededDeclarationGrowthAndPeaksNameTheDevicesCurrentIndexAfterARenumbering() throws Exception {
        UuidBackend machine = new UuidBackend("GPU-aaaa", "GPU-bbbb");
        run(on(machine, VERBOSE).build());
        Path pid = dir.resolve("job.pid");
        Path go = dir.resolve("go");
        JobHandle job = scheduler.submit(JobSpec.parse("[vram=1G gpu-ids=GPU-bbbb] echo $$ > " + pid
                + "; while [ ! -f " + go + " ]; do sleep 0.02; done"));
        await(() -> {
            try {
                return Files.exists(pid) && !Files.readString(pid).isBlank();
            } catch (java.io.IOException e) {
                return false;
            }
        }, "the job's pid");
        long leader = Long.parseLong(Files.readString(pid).strip());

        // GPU-bbbb (gpu 1 at the start) is gpu 2 now; then the job uses 3000 MiB there, over its 1G.
        machine.uuids = List.of("GPU-aaaa", "GPU-cccc", "GPU-bbbb");
        await(() -> events.stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w
                && w.message().contains("is listed as gpu 2 now")), "the renumbering said");
        machine.uses = List.of(new UuidBackend.Use("GPU-bbbb", leader, 3000));
        await(() -> !all(SchedulerEvent.ExceededDeclaration.class).isEmpty(), "the declaration exceeded");
        SchedulerEvent.ExceededDeclaration over = all(SchedulerEvent.ExceededDeclaration.class).get(0);
        assertEquals(2, over.gpu(), "where its device is listed now, not gpu 1, another device's now");
        assertEquals(Optional.of("GPU-bbbb"), over.uuid());
        assertEquals(3000, over.observedMib());
        await(() -> !all(SchedulerEvent.VramGrew.class).isEmpty(), "its growth said");
        for (SchedulerEvent.VramGrew grew : all(SchedulerEvent.VramGrew.class)) {
            assertEquals(java.util.Set.of(2), grew.currentMib().keySet(), grew.toString());
        }
        // The board is published at a round's end, paced: the one after the renumbering shows where it runs now.
        snapshotWhere(q -> q.board().running().size() == 1 && q.board().running().get(0).gpus().equals(List.of(2)));

        machine.uses = List.of();
        Files.createFile(go);
        JobResult result = job.result().get(20, TimeUnit.SECONDS);
        assertEquals(JobStatus.OK, result.status());
        assertEquals(Map.of(2, 3000L), result.peakMib(), "its peak, on the GPU its device is listed at now");
        assertEquals(List.of(1), result.gpus(), "where it started, as its started line says");
        String journal = Files.readString(dir.resolve("logs").resolve("journal.jsonl"));
        assertTrue(journal.contains("\"peak_mib\":{\"2\":3000}"), journal);
    }
}

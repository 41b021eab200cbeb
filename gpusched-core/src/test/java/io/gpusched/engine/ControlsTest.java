package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.CancelOutcome;
import io.gpusched.model.GpuschedException;
import io.gpusched.JobHandle;
import io.gpusched.model.JobStatus;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Cancel by number or handle, pause and resume GPUs, and the queue snapshot other threads read. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControlsTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults().withWatch(true)
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();
    private Scheduler scheduler;
    private CompletableFuture<RunSummary> run;

    private void start(int gpus) throws InterruptedException {
        scheduler = Scheduler.builder().backend(new StubBackend(gpus, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .listener(events::add).build();
        run = CompletableFuture.supplyAsync(scheduler::run);
        await(e -> e instanceof SchedulerEvent.StatusUpdated);
    }

    @AfterEach
    void stop() throws Exception {
        if (scheduler != null) {
            scheduler.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }

    private void await(Predicate<SchedulerEvent> p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (events.stream().noneMatch(p)) {
            assertTrue(System.nanoTime() < deadline, "timed out; events: " + events);
            Thread.sleep(10);
        }
    }

    private QueueSnapshot snapshotWhere(Predicate<QueueSnapshot> p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            QueueSnapshot s = scheduler.snapshot().orElseThrow();
            if (p.test(s)) {
                return s;
            }
            assertTrue(System.nanoTime() < deadline, "timed out; last snapshot: " + s);
            Thread.sleep(10);
        }
    }

    @Test
    void cancelStopsARunningJobAndNeverStartsAPendingOne() throws Exception {
        start(1);
        JobHandle holder = scheduler.submit(JobSpec.parse("sleep 30")); // undeclared: holds the GPU alone
        JobHandle waiting = scheduler.submit(JobSpec.parse("[vram=1G] touch " + dir.resolve("ran")));
        snapshotWhere(s -> s.board().running().size() == 1 && s.board().pending().size() == 1);

        assertEquals(CancelOutcome.CANCELLED, waiting.cancel());
        assertEquals(JobStatus.CANCELLED, waiting.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(CancelOutcome.STOPPING, scheduler.cancel(holder.number().get()));
        assertEquals(JobStatus.CANCELLED, holder.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(CancelOutcome.ALREADY_ENDED, holder.cancel());
        assertEquals(CancelOutcome.NOT_FOUND, scheduler.cancel(999));
        assertFalse(Files.exists(dir.resolve("ran")), "the cancelled pending job ran");
        String journal = Files.readString(dir.resolve("logs/journal.jsonl"));
        assertEquals(2, journal.lines().filter(l -> l.contains("\"status\":\"cancelled\"")).count(), journal);
    }

    @Test
    void boardRowsCarryEachJobsDeclarationAndPriority_forATopLikeView() throws Exception {
        start(1);
        scheduler.submit(JobSpec.parse("[vram=2G priority=4] sleep 30"));
        scheduler.submit(JobSpec.parse("[vram=22G priority=-2] true")); // fits the GPU, not beside the first: waits
        scheduler.submit(JobSpec.parse("sleep 30")); // undeclared: waits for the GPU to be idle
        QueueSnapshot s = snapshotWhere(q -> q.board().running().size() == 1 && q.board().pending().size() == 2);
        StatusBoard.Running r = s.board().running().get(0);
        assertEquals(java.util.OptionalLong.of(2048), r.declaredMib());
        assertEquals(4, r.priority());
        assertEquals(List.of(-2, 0), s.board().pending().stream().map(StatusBoard.Pending::priority).sorted().toList());
        String json = io.gpusched.event.JsonEventWriter.valueToJson(s.board());
        assertTrue(json.contains("\"declared_mib\":2048,\"priority\":4,\"rule\":null}"), json);
        assertTrue(json.contains("\"priority\":-2,\"rule\":null,\"gpus_asked\":\"1\""), json);
    }

    @Test
    void aPausedGpuTakesNoNewJobButRunningOnesContinueAndItNeverMakesAJobInfeasible() throws Exception {
        start(2);
        JobHandle running = scheduler.submit(JobSpec.parse("[vram=1G] sleep 0.5"));
        snapshotWhere(s -> s.board().running().size() == 1);
        int busy = scheduler.snapshot().orElseThrow().board().running().get(0).gpus().get(0);
        scheduler.pause(0);
        scheduler.pause(1);
        // Needs both GPUs: with both paused it waits, saying why, instead of failing as infeasible.
        JobHandle both = scheduler.submit(JobSpec.parse("[vram=1G gpus=2] true"));
        QueueSnapshot waiting = snapshotWhere(s -> s.board().pending().size() == 1);
        assertEquals(Set.of(0, 1), waiting.pausedGpus());
        StatusBoard.Pending p = waiting.board().pending().get(0);
        assertTrue(p.reason().endsWith("gpu0, gpu1 are paused"), p.reason());
        assertEquals(JobStatus.OK, running.result().get(20, TimeUnit.SECONDS).status(), "the running job (on gpu" + busy
                + ") continued");
        Thread.sleep(200);
        assertFalse(both.result().isDone(), "placed on paused GPUs");
        scheduler.resume(0);
        scheduler.resume(1);
        assertEquals(JobStatus.OK, both.result().get(20, TimeUnit.SECONDS).status());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.GpuPauseChanged c && c.gpu() == 1 && !c.paused()));
        GpuschedException unknown = assertThrows(GpuschedException.class, () -> scheduler.pause(7));
        assertEquals("no GPU 7 here; GPUs: [0, 1]", unknown.getMessage());
    }

    @Test
    void aPauseHoldsAcrossARestart() throws Exception {
        start(1);
        scheduler.pause(0);
        scheduler.close();
        run.get(20, TimeUnit.SECONDS);
        events.clear();

        start(1);
        JobHandle job = scheduler.submit(JobSpec.parse("[vram=1G] true"));
        QueueSnapshot s = snapshotWhere(q -> q.board().pending().size() == 1);
        assertEquals(Set.of(0), s.pausedGpus());
        assertTrue(s.board().pending().get(0).reason().endsWith("gpu0 is paused"), s.board().pending().toString());
        scheduler.resume(0);
        assertEquals(JobStatus.OK, job.result().get(20, TimeUnit.SECONDS).status());
    }

    @Test
    void aPauseOfAGpuTheMachineNoLongerHasIsShownAndCanBeResumed_butNotPausedAgain() throws Exception {
        start(2);
        scheduler.pause(1);
        scheduler.close();
        run.get(20, TimeUnit.SECONDS);
        events.clear();

        start(1); // the same journal, one GPU fewer: gpu1 fell off the bus, or was taken out
        assertEquals(Set.of(1), scheduler.snapshot().orElseThrow().pausedGpus());
        scheduler.resume(1);
        assertEquals(Set.of(), snapshotWhere(s -> s.pausedGpus().isEmpty()).pausedGpus());
        GpuschedException gone = assertThrows(GpuschedException.class, () -> scheduler.pause(1));
        assertEquals("no GPU 1 here; GPUs: [0]", gone.getMessage());
        assertThrows(GpuschedException.class, () -> scheduler.resume(1));
    }

    @Test
    void controlsBeforeTheRunStartsAreRefusedAndQueueNothing() {
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .build();
        assertThrows(GpuschedException.class, () -> s.pause(0));
        assertThrows(GpuschedException.class, () -> s.cancel(1));
        assertTrue(s.snapshot().isEmpty());
    }
}

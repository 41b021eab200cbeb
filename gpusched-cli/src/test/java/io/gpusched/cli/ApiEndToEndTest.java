package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.jobs.JobSpec;
import io.gpusched.testkit.fake.ScriptedGpuBackend;
import io.gpusched.testkit.sim.SimulatedGpuBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The library API, end to end, with real processes: what an embedding tool relies on. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ApiEndToEndTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults().withPoll(Duration.ofMillis(100))
            .withSampleInterval(Duration.ofMillis(50)).withKillGrace(Duration.ofMillis(500));
    /** A pid above Linux's maximum, so it is never a process of ours: an external GPU user. */
    private static final long EXTERNAL = 1L << 23;

    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private Scheduler scheduler(GpuBackend backend, List<JobSpec> jobs) {
        return Scheduler.builder().backend(backend).options(FAST).logDir(dir.resolve("logs")).jobs(jobs)
                .listener(events::add).build();
    }

    private <T extends SchedulerEvent> T await(Class<T> type, Predicate<T> matching) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            for (SchedulerEvent e : events) {
                if (type.isInstance(e) && matching.test(type.cast(e))) {
                    return type.cast(e);
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + events);
    }

    private int indexOf(Predicate<SchedulerEvent> p) {
        for (int i = 0; i < events.size(); i++) {
            if (p.test(events.get(i))) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void submittedJobsCompleteTheirFuturesAndGetDistinctKeys() throws Exception {
        ScriptedGpuBackend gpus = ScriptedGpuBackend.withGpus(1, 24_000);
        Scheduler s = scheduler(gpus, List.of());
        JobHandle failing = s.submit(JobSpec.parse("[vram=1G] exit 3"));
        JobHandle twin = s.submit(JobSpec.parse("[vram=1G] exit 3"));
        RunSummary summary = s.run();
        JobResult r = failing.result().get(10, TimeUnit.SECONDS);
        assertEquals(JobStatus.FAILED, r.status());
        assertEquals(3, r.exitCode());
        assertNotEquals(r.key(), twin.result().get(10, TimeUnit.SECONDS).key());
        assertEquals(3, summary.exitCode());
    }

    @Test
    void externalTroughIsNotPackable() throws Exception {
        ScriptedGpuBackend gpus = ScriptedGpuBackend.withGpus(1, 24_000).process(0, EXTERNAL, 20_000);
        Scheduler s = scheduler(gpus, List.of());
        JobHandle h = s.submit(JobSpec.parse("[vram=10G] true"));
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        assertTrue(gpus.awaitSnapshotCount(3, Duration.ofSeconds(10)));
        // The external process drops to 2000 MiB: 22000 looks free, but its peak (20000 x 1.1) still holds.
        gpus.removeProcess(EXTERNAL).process(0, EXTERNAL, 2_000);
        int seen = gpus.snapshotCount();
        assertTrue(gpus.awaitSnapshotCount(seen + 10, Duration.ofSeconds(10)));
        assertEquals(-1, indexOf(e -> e instanceof SchedulerEvent.JobStarted), "placed into an external trough");
        SchedulerEvent.StatusUpdated board = await(SchedulerEvent.StatusUpdated.class, b -> !b.board().pending().isEmpty());
        assertTrue(board.board().pending().get(0).reason().contains("best is gpu0 with 2000 MiB"), board.toString());
        gpus.removeProcess(EXTERNAL); // it exits: its peak is forgotten
        assertEquals(JobStatus.OK, h.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(0, run.get(20, TimeUnit.SECONDS).exitCode());
    }

    @Test
    void escalatedBudgetShrinksHeadroomForTheNextJob() throws Exception {
        try (SimulatedGpuBackend gpus = new SimulatedGpuBackend(1)) {
            // Declares 4096 but grows to 12000: its budget becomes ceil(12000 x 1.1) = 13200, leaving 10800 MiB.
            Scheduler s = scheduler(gpus, List.of(JobSpec.parse(
                    "[vram=4096] $GPUSCHED_SIMJOB --vram 12000 --ramp 0.2 --hold 1.5")));
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
            await(SchedulerEvent.ExceededDeclaration.class, e -> true);
            await(SchedulerEvent.StatusUpdated.class, b -> b.board().running().stream().anyMatch(r -> r.peakMib() == 12_000));
            // Needs 11264 + 512: fits the stale declaration (19904 free) but not the escalated budget.
            JobHandle next = s.submit(JobSpec.parse("[vram=11G] $GPUSCHED_SIMJOB --vram 100 --ramp 0.05 --hold 0.05"));
            assertEquals(JobStatus.OK, next.result().get(20, TimeUnit.SECONDS).status());
            int firstDone = indexOf(e -> e instanceof SchedulerEvent.JobFinished f && f.result().no() == 1);
            int secondStart = indexOf(e -> e instanceof SchedulerEvent.JobStarted j && j.no() == 2);
            assertTrue(firstDone >= 0 && firstDone < secondStart, events.toString());
            assertEquals(0, run.get(20, TimeUnit.SECONDS).exitCode());
        }
    }

    @Test
    void failingBackendPausesDispatchKeepsReapingAndResumes() throws Exception {
        ScriptedGpuBackend gpus = ScriptedGpuBackend.withGpus(1, 24_000);
        Scheduler s = scheduler(gpus, List.of(JobSpec.parse("[vram=1G] sleep 1"), JobSpec.parse("[vram=30G] true")));
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        await(SchedulerEvent.JobStarted.class, e -> true);
        gpus.failAlways(true);
        JobHandle later = s.submit(JobSpec.parse("[vram=1G] echo after"));
        SchedulerEvent.BackendFailed paused = await(SchedulerEvent.BackendFailed.class, SchedulerEvent.BackendFailed::dispatchPaused);
        assertEquals(FAST.backendFailureLimit(), paused.consecutive());
        // The running job's exit is still handled while the backend is down.
        await(SchedulerEvent.JobFinished.class, f -> f.result().no() == 1);
        assertFalse(later.result().isDone(), "nothing is launched without a fresh snapshot");
        gpus.failAlways(false);
        await(SchedulerEvent.BackendRecovered.class, e -> true);
        assertEquals(JobStatus.OK, later.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(1, run.get(20, TimeUnit.SECONDS).exitCode(), "the 30G job is infeasible");
    }

    @Test
    void closeTerminatesRunningJobsJournalsThemInterruptedAndARestartRunsThemAgain() throws Exception {
        Path pid = dir.resolve("pid");
        List<JobSpec> jobs = List.of(JobSpec.parse("[vram=1G] echo $$ > " + pid + "; exec sleep 30"));
        try (SimulatedGpuBackend gpus = new SimulatedGpuBackend(1)) {
            Scheduler s = scheduler(gpus, jobs);
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
            await(SchedulerEvent.JobStarted.class, e -> true);
            while (!Files.exists(pid) || Files.readString(pid).isBlank()) {
                Thread.sleep(10);
            }
            s.close();
            RunSummary summary = run.get(20, TimeUnit.SECONDS);
            assertTrue(summary.interrupted());
            assertEquals(130, summary.exitCode());
            long p = Long.parseLong(Files.readString(pid).strip());
            assertFalse(ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false), "job survived close()");
            List<String> journal = Files.readAllLines(dir.resolve("logs/journal.jsonl"));
            assertTrue(journal.get(journal.size() - 1).contains("\"event\":\"interrupted\""), journal.toString());
        }
        events.clear();
        try (SimulatedGpuBackend gpus = new SimulatedGpuBackend(1)) {
            Scheduler again = scheduler(gpus, List.of(JobSpec.parse("[vram=1G] echo $$ > " + pid + "; exec sleep 30")));
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(again::run);
            await(SchedulerEvent.JobStarted.class, e -> true);
            again.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void gpuProcessesFromAnotherPidNamespaceAreReportedOnceAndPeaksAreNa() throws Exception {
        // Only pids that do not exist here: what NVML shows a container without --pid=host.
        ScriptedGpuBackend gpus = ScriptedGpuBackend.withGpus(1, 24_000).process(0, EXTERNAL, 3_000);
        RunSummary s = scheduler(gpus, List.of(JobSpec.parse("[vram=4G] sleep 0.4"))).run();
        long warnings = events.stream().filter(e -> e instanceof SchedulerEvent.Warning w
                && w.message().contains("PIDs that do not exist in this PID namespace")).count();
        assertEquals(1, warnings);
        assertEquals(io.gpusched.model.Verdict.UNATTRIBUTED, s.results().get(0).verdict());
        assertEquals(0, s.exitCode());
    }
}

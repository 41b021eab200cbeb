package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A GPU backend that fails now and then, fails for a long stretch, or hangs: running jobs are still
 * reaped and timed out, and nothing is placed on data the scheduler did not just read.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BackendFaultsTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofMillis(200);
    /** The default 10 s bound: only the tests about hangs use a short one, so no other call overruns. */
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20))
            .withKillGrace(Duration.ofMillis(500));
    private static final SchedulerOptions BOUNDED = FAST.withBackendTimeout(BOUND);

    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private Scheduler scheduler(FaultyBackend gpus, SchedulerOptions options, List<JobSpec> jobs,
                                Consumer<SchedulerEvent> also) {
        return Scheduler.builder().backend(gpus).options(options).logDir(dir.resolve("logs")).jobs(jobs)
                .listener(events::add).listener(also).build();
    }

    private static List<JobSpec> jobs(String... lines) {
        return java.util.Arrays.stream(lines).map(JobSpec::parse).toList();
    }

    private <E extends SchedulerEvent> E await(Class<E> type, Predicate<E> matches) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (SchedulerEvent e : events) {
                if (type.isInstance(e) && matches.test(type.cast(e))) {
                    return type.cast(e);
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + events);
    }

    private long count(Class<? extends SchedulerEvent> type) {
        return events.stream().filter(type::isInstance).count();
    }

    /** The journal's {@code done} lines, by key: status and returncode. */
    private Map<String, String> doneInJournal() throws Exception {
        return Files.readAllLines(dir.resolve("logs/journal.jsonl")).stream()
                .filter(l -> l.contains("\"event\":\"done\""))
                .collect(Collectors.toMap(l -> field(l, "key"), l -> field(l, "status") + "/" + number(l, "returncode")));
    }

    private static String field(String json, String name) {
        int at = json.indexOf("\"" + name + "\":\"") + name.length() + 4;
        return json.substring(at, json.indexOf('"', at));
    }

    private static String number(String json, String name) {
        int at = json.indexOf("\"" + name + "\":") + name.length() + 3;
        int end = at;
        while (end < json.length() && (Character.isDigit(json.charAt(end)) || json.charAt(end) == '-')) {
            end++;
        }
        return json.substring(at, end);
    }

    @ParameterizedTest(name = "every {0}th snapshot fails")
    @ValueSource(ints = {2, 3})
    void intermittentFailuresKeepRunningJobsTrackedAndEndingWithTheRightOutcome(int every) throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        gpus.failing = n -> n % every == 0;
        Path pid = dir.resolve("worker.pid");
        Path go = dir.resolve("go");
        List<JobSpec> jobs = jobs(
                "[vram=4000] echo $$ > " + pid + "; while [ ! -f " + go + " ]; do sleep 0.02; done",
                "[vram=1G] sleep 0.3; exit 3",
                "[vram=1G timeout=0.4s] sleep 30",
                "[vram=1G] true");
        Scheduler s = scheduler(gpus, FAST, jobs, e -> { });
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        assertTrue(FaultyBackend.await(() -> Files.exists(pid) && !readOr(pid).isBlank(), WAIT));
        gpus.processes.add(new GpuProcess(0, Long.parseLong(readOr(pid).strip()), 3900));
        // Long enough for both failing and answered samples to see the job's memory.
        int seen = gpus.calls.get();
        assertTrue(FaultyBackend.await(() -> gpus.calls.get() >= seen + 4 * every, WAIT));
        gpus.processes.clear();
        Files.createFile(go);
        RunSummary summary = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        Map<String, JobResult> byCommand = summary.results().stream()
                .collect(Collectors.toMap(JobResult::command, r -> r));
        assertEquals(4, byCommand.size(), summary.results().toString());
        JobResult tracked = byCommand.get(jobs.get(0).command());
        assertEquals(JobStatus.OK, tracked.status());
        assertEquals(Map.of(0, 3900L), tracked.peakMib(), "the job's memory was tracked through the failures");
        assertEquals(JobStatus.FAILED, byCommand.get(jobs.get(1).command()).status());
        assertEquals(3, byCommand.get(jobs.get(1).command()).exitCode());
        assertEquals(JobStatus.TIMEOUT, byCommand.get(jobs.get(2).command()).status());
        assertEquals(JobStatus.OK, byCommand.get(jobs.get(3).command()).status());
        assertEquals(Map.of(jobs.get(0).key(), "ok/0", jobs.get(1).key(), "failed/3", jobs.get(3).key(), "ok/0"),
                Map.of(jobs.get(0).key(), doneInJournal().get(jobs.get(0).key()),
                        jobs.get(1).key(), doneInJournal().get(jobs.get(1).key()),
                        jobs.get(3).key(), doneInJournal().get(jobs.get(3).key())));
        assertTrue(doneInJournal().get(jobs.get(2).key()).startsWith("timeout/"), doneInJournal().toString());
        assertEquals(124, summary.exitCode(), "a timed-out job counts as 124, above the failed job's 3");
        // Which calls fail (a round's or a sample's) is up to timing, so no count of reported failures
        // or recoveries is asserted here; the next test covers those.
        assertTrue(gpus.failed.get() >= 4, "failures were injected: " + gpus.failed.get());
    }

    @Test
    void dispatchPausesAtTheFailureLimitKeepsReapingAndResumesWhenTheBackendAnswers() throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        Path go = dir.resolve("go");
        SchedulerOptions options = FAST.withBackendFailureLimit(3);
        Scheduler s = scheduler(gpus, options, jobs("[vram=1G] while [ ! -f " + go + " ]; do sleep 0.02; done; exit 5"), e -> { });
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        await(SchedulerEvent.JobStarted.class, e -> true);
        gpus.failing = n -> true;
        JobHandle later = s.submit(JobSpec.parse("[vram=1G] echo after"));
        await(SchedulerEvent.BackendFailed.class, f -> f.consecutive() == 5);
        Files.createFile(go);
        JobResult first = await(SchedulerEvent.JobFinished.class, f -> f.result().no() == 1).result();
        assertEquals(JobStatus.FAILED, first.status(), "an exit is reaped while the backend fails");
        assertEquals(5, first.exitCode());
        int failedSoFar = gpus.failed.get();
        assertTrue(FaultyBackend.await(() -> gpus.failed.get() >= failedSoFar + 3, WAIT));
        assertFalse(later.result().isDone(), "nothing is launched without a fresh snapshot");
        assertEquals(1, count(SchedulerEvent.JobStarted.class));

        gpus.failing = n -> false;
        SchedulerEvent.BackendRecovered recovered = await(SchedulerEvent.BackendRecovered.class, e -> true);
        assertEquals(JobStatus.OK, later.result().get(WAIT.toSeconds(), TimeUnit.SECONDS).status());
        assertEquals(5, run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode());

        List<SchedulerEvent.BackendFailed> failures = events.stream()
                .filter(e -> e instanceof SchedulerEvent.BackendFailed).map(e -> (SchedulerEvent.BackendFailed) e).toList();
        assertEquals(recovered.failures(), failures.size(), "one streak, reported in full on recovery");
        for (int i = 0; i < failures.size(); i++) {
            assertEquals(i + 1, failures.get(i).consecutive());
            assertEquals(i + 1 >= 3, failures.get(i).dispatchPaused(), "paused from the 3rd failure on: " + failures.get(i));
        }
        int recoveredAt = events.indexOf(recovered);
        int secondStart = indexOf(e -> e instanceof SchedulerEvent.JobStarted j && j.no() == 2);
        assertTrue(recoveredAt < secondStart, "the second job started only after the backend answered again");
    }

    @Test
    void aBackendHungPastTheBoundDoesNotStopExitsBeingReapedOrTimeoutsEnforced() throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        Path go = dir.resolve("go");
        List<Boolean> hungWhenFinished = new CopyOnWriteArrayList<>();
        int[] started = {0};
        // Armed on the engine's own thread as the second job is reported started: its next snapshot call
        // hangs, and that call necessarily comes before any timeout is checked again.
        Consumer<SchedulerEvent> arm = e -> {
            if (e instanceof SchedulerEvent.JobStarted && ++started[0] == 2) {
                gpus.hangNextCall(gpus.current());
            }
            if (e instanceof SchedulerEvent.JobFinished) {
                hungWhenFinished.add(gpus.hanging());
            }
        };
        Scheduler s = scheduler(gpus, BOUNDED, jobs(
                "[vram=1G] while [ ! -f " + go + " ]; do sleep 0.02; done; exit 4",
                "[vram=1G timeout=0.5s] sleep 30"), arm);
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            assertTrue(FaultyBackend.await(gpus::hanging, WAIT), "the backend never hung");
            Files.createFile(go);
            RunSummary summary = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(List.of(true, true), hungWhenFinished, "both jobs ended while the backend hung");
            Map<Integer, JobResult> byNo = summary.results().stream().collect(Collectors.toMap(JobResult::no, r -> r));
            assertEquals(JobStatus.FAILED, byNo.get(1).status());
            assertEquals(4, byNo.get(1).exitCode());
            assertEquals(JobStatus.TIMEOUT, byNo.get(2).status());
            // The call that hung may have been a between-rounds sample (whose failure is not reported);
            // every round after it reports the stuck call against the bound.
            assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.BackendFailed f
                    && f.message().contains("over the 0.2 s bound")), events.toString());
            assertEquals(1, gpus.mostAtOnce.get(), "calls were stacked on the hung one");
            assertEquals(1, gpus.callers.size(), "one worker thread only");
            assertTrue(FaultyBackend.await(() -> gpus.callers.stream().noneMatch(Thread::isAlive), WAIT),
                    "the worker outlived the run");
        } finally {
            gpus.release();
        }
    }

    @Test
    void noJobIsLaunchedOnTheLateAnswerOfACallThatOverranTheBound() throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        gpus.usedMib = 24_000;
        AtomicBoolean freed = new AtomicBoolean();
        List<Boolean> freedWhenStarted = new CopyOnWriteArrayList<>();
        Scheduler s = scheduler(gpus, BOUNDED, jobs("[vram=1G] true"), e -> {
            if (e instanceof SchedulerEvent.JobStarted) {
                freedWhenStarted.add(freed.get());
            }
        });
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            assertTrue(FaultyBackend.await(() -> gpus.calls.get() >= 3, WAIT));
            // When the hung call finally answers, it says the GPU is idle: true when it was asked, no
            // longer true now. Placing on it would put the job on a full GPU.
            gpus.hangNextCall(new GpuSnapshot(List.of(GpuStat.of(0, 24_000, 0)), List.of()));
            assertTrue(FaultyBackend.await(gpus::hanging, WAIT));
            // Not a timing assertion: this only makes sure the call outlives the bound before it answers.
            Thread.sleep(4 * BOUND.toMillis());
            gpus.release();
            assertTrue(FaultyBackend.await(() -> !gpus.hanging(), WAIT));
            int after = gpus.calls.get();
            assertTrue(FaultyBackend.await(() -> gpus.calls.get() >= after + 5 || run.isDone(), WAIT));
            assertEquals(0, count(SchedulerEvent.JobStarted.class), "a job was placed on the late, stale answer");
            assertTrue(count(SchedulerEvent.BackendRecovered.class) > 0, "the overrun counted as a failed query");
            freed.set(true);
            gpus.usedMib = 0;
            assertEquals(0, run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode());
            assertEquals(List.of(true), freedWhenStarted, "started only once the GPU was really free");
        } finally {
            gpus.release();
        }
    }

    private int indexOf(Predicate<SchedulerEvent> p) {
        for (int i = 0; i < events.size(); i++) {
            if (p.test(events.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static String readOr(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "";
        }
    }
}

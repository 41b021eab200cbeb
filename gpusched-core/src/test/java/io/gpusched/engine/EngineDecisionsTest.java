package io.gpusched.engine;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.table.JobsSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.RunSummary;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's decisions with no process at all: runs start through a {@link FakeRunDriver}, process
 * facts and signals come from a {@link FakeProcTable}, and the test says how each run ends. Only the
 * journal and the logs are files, in a temporary directory.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EngineDecisionsTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path logs;

    private final FakeProcTable procs = new FakeProcTable();
    private final FakeRunDriver driver = new FakeRunDriver(procs);
    private final EngineUnderTest loop = new EngineUnderTest();
    private Engine engine;
    private CompletableFuture<RunSummary> run;

    @AfterEach
    void stop() throws Exception {
        loop.stop();
    }

    private void start(SchedulerOptions options, StubBackend gpus, String... lines) {
        List<JobSpec> jobs = java.util.Arrays.stream(lines).map(JobSpec::parse).toList();
        List<JobSpec> keyed = new java.util.ArrayList<>();
        Map<String, Integer> seen = new java.util.HashMap<>();
        for (JobSpec j : jobs) {
            int occurrence = seen.merge(j.command(), 1, Integer::sum) - 1;
            keyed.add(j.withKey(io.gpusched.jobs.JobKeys.key(j.command(), occurrence)));
        }
        engine = loop.start(sink -> new Engine(gpus, options, logs, false, new JobsSource(Optional.empty(), keyed), sink,
                new Engine.Ports(procs, new LoopClock(Instant::now, System::nanoTime), Optional.of(driver))));
        run = loop.run();
    }

    private <T extends SchedulerEvent> T await(Class<T> type, Predicate<T> what) throws InterruptedException {
        return loop.await(type, what);
    }

    private JobResult finished(int no) throws InterruptedException {
        return loop.finished(no);
    }

    private List<String> journalLines() throws Exception {
        return Files.readAllLines(logs.resolve("journal.jsonl"));
    }

    private void deadSchedulerWrote(JournalEvent... lines) {
        try (Journal j = Journal.open(logs.resolve("journal.jsonl"), false)) {
            j.append(List.of(lines));
        }
    }

    @Test
    void aProcessIsGivenItsScriptTokenAndRunFiles() throws Exception {
        start(FAST, new StubBackend(1, 24000), "[vram=4G] python a.py");
        FakeRunDriver.Run r = driver.nextStart();
        assertTrue(r.launch().command().contains("python a.py"), r.launch().command());
        assertTrue(r.launch().runToken().startsWith(logs.toAbsolutePath().toString()), r.launch().runToken());
        assertTrue(r.launch().files().pid().getFileName().toString().startsWith("job001.run"), r.launch().files().toString());
        driver.exit(r, "", 0);
        assertEquals(JobStatus.OK, finished(1).status());
    }

    @Test
    void aStandInThatStartsNoProcessIsGivenNothingAProcessReads_andItsJobRunsAsAnyOther() throws Exception {
        driver.startsProcesses = false;
        start(FAST, new StubBackend(1, 24000), "[vram=4G] python a.py");
        FakeRunDriver.Run r = driver.nextStart();
        assertEquals("", r.launch().command(), "no script is made for a run of no process");
        assertEquals("", r.launch().runToken());
        assertEquals(Optional.empty(), r.launch().workDir());
        assertEquals(Optional.empty(), r.launch().environment());
        assertEquals(List.of(0), r.launch().gpus());
        assertEquals("1", r.launch().jobVars().get("GPUSCHED_JOB_NO"), "what the stand-in runs is found by number");
        SchedulerEvent.JobStarted started = await(SchedulerEvent.JobStarted.class, e -> e.no() == 1);
        assertEquals(r.launch().log(), started.log(), "the job's log is still named as for a process");
        driver.exit(r, "", 0);
        assertEquals(JobStatus.OK, finished(1).status());
    }

    @Test
    void undeclaredJobWaitsForFullyIdleGpu_whileADeclaredOneSharesTheBusyOne() throws Exception {
        StubBackend gpus = new StubBackend(2, 24000);
        // Someone else's process holds 6 GB of GPU 0: a job that declares no memory must not go there.
        gpus.processes.add(new io.gpusched.gpu.GpuProcess(0, 999_999, 6000));
        start(FAST, gpus, "[vram=4G] small", "undeclared", "undeclared");

        FakeRunDriver.Run first = driver.nextStart();
        FakeRunDriver.Run second = driver.nextStart();
        Map<Integer, List<Integer>> placed = Map.of(first.no(), first.launch().gpus(), second.no(),
                second.launch().gpus());
        assertEquals(Map.of(1, List.of(0), 2, List.of(1)), placed,
                "the declared job shares the busy GPU, the undeclared one takes the idle one");
        Thread.sleep(200);
        assertEquals(2, driver.runs.size(), "the second undeclared job waits: no GPU is fully idle");
        SchedulerEvent.StatusUpdated board = await(SchedulerEvent.StatusUpdated.class,
                u -> u.board().pending().size() == 1);
        assertEquals(3, board.board().pending().get(0).no());
        assertTrue(board.board().pending().get(0).reason().contains("fully idle GPU"), board.board().pending().toString());

        driver.exit(first, "", 0);
        driver.exit(second, "", 0);
        FakeRunDriver.Run third = driver.nextStart();
        assertEquals(1, third.launch().gpus().size());
        driver.exit(third, "", 0);
        assertFalse(run.get(10, TimeUnit.SECONDS).interrupted());
    }

    @Test
    void oomIsJournaledBeforeTheRequeueEvent_andTheNextAttemptAsksForTheBump() throws Exception {
        // What the journal holds at the moment the requeue is reported.
        CompletableFuture<List<String>> journalAtRequeue = new CompletableFuture<>();
        loop.onEvent(e -> {
            if (e instanceof SchedulerEvent.RequeuedAfterOom) {
                try {
                    journalAtRequeue.complete(journalLines());
                } catch (Exception x) {
                    journalAtRequeue.completeExceptionally(x);
                }
            }
        });
        start(FAST.withOomRetries(1), new StubBackend(1, 24000), "[vram=4G] train.py");

        FakeRunDriver.Run first = driver.nextStart();
        driver.exit(first, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n", 1);
        FakeRunDriver.Run retry = driver.nextStart();
        List<String> journal = journalAtRequeue.get(10, TimeUnit.SECONDS);
        assertTrue(journal.stream().anyMatch(l -> l.contains("\"event\":\"oom\"")),
                "the oom line is in the journal before the requeue is reported: " + journal);

        SchedulerEvent.RequeuedAfterOom requeued = await(SchedulerEvent.RequeuedAfterOom.class, r -> true);
        SchedulerEvent.JobStarted again = await(SchedulerEvent.JobStarted.class, s -> s.attempt() == 2);
        assertEquals(OptionalLong.of(4096), requeued.oldMib());
        assertEquals(requeued.nextMib(), again.declaredMib());
        assertTrue(again.declaredMib().getAsLong() > 4096, "the retry asks for more: " + again.declaredMib());

        driver.exit(retry, "done\n", 0);
        assertEquals(JobStatus.OK, finished(1).status());
    }

    @Test
    void aJobThatFailedInAnEarlierRunIsRetriedWithRetryFailed_andItsRetryIsJournaledFirst() throws Exception {
        JobSpec job = JobSpec.parse("flaky.sh").withKey(io.gpusched.jobs.JobKeys.key("flaky.sh", 0));
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                new JournalEvent.Launching(job.key(), 1, List.of(0)),
                new JournalEvent.Started(job.key(), 4242, List.of(0)),
                new JournalEvent.Done(job.key(), "failed", 3, Map.of(), OptionalDouble.empty()));
        start(FAST.withRetryFailed(true), new StubBackend(1, 24000), "flaky.sh");

        FakeRunDriver.Run again = driver.nextStart();
        assertEquals(1, again.no());
        List<String> journal = journalLines();
        assertTrue(journal.stream().anyMatch(l -> l.contains("\"event\":\"retry\"")), journal.toString());
        SchedulerEvent.AlreadyEnded said = await(SchedulerEvent.AlreadyEnded.class, a -> a.no() == 1);
        assertEquals(JobStatus.FAILED, said.status());
        driver.exit(again, "", 0);
        assertEquals(JobStatus.OK, finished(1).status());
    }

    @Test
    void aUniqueLineWaitsWhileAnEarlierLineOfTheSameJobRuns_andRunsOnceThatOneFails() throws Exception {
        start(FAST, new StubBackend(2, 24000), "[vram=1G] train.sh", "[vram=1G unique] train.sh");

        FakeRunDriver.Run first = driver.nextStart();
        assertEquals(1, first.no());
        SchedulerEvent.Warning told = await(SchedulerEvent.Warning.class, w -> w.message().contains("is unique"));
        assertTrue(told.message().contains("same job as line 1 (job 1)"), told.message());
        Thread.sleep(150);
        assertEquals(1, driver.runs.size(), "a free GPU, but line 1 stands for line 2");

        driver.exit(first, "no data\n", 2);
        FakeRunDriver.Run second = driver.nextStart();
        assertEquals(2, second.no(), "line 1 failed: it no longer stands for line 2");
        driver.exit(second, "", 0);
        assertEquals(JobStatus.FAILED, finished(1).status());
        assertEquals(JobStatus.OK, finished(2).status());
    }

    @Test
    void aJobWhoseDependencyFailedFailsWithoutEverStarting() throws Exception {
        start(FAST, new StubBackend(1, 24000), "[vram=1G name=prep] prep.sh", "[vram=1G after=prep] train.sh");

        FakeRunDriver.Run prep = driver.nextStart();
        assertEquals(1, prep.no());
        Thread.sleep(100);
        assertEquals(1, driver.runs.size(), "train waits for prep");
        driver.exit(prep, "no data\n", 2);

        assertEquals(JobStatus.FAILED, finished(1).status());
        SchedulerEvent.DependencyFailed failed = await(SchedulerEvent.DependencyFailed.class, d -> d.no() == 2);
        assertTrue(failed.reason().contains("prep"), failed.reason());
        assertEquals(JobStatus.DEPENDENCY_FAILED, finished(2).status());
        run.get(10, TimeUnit.SECONDS);
        assertEquals(1, driver.runs.size(), "train never started");
    }

    @Test
    void orphanRecovery_aGoneSessionIsSettledFromItsExitFile_aLiveOneIsTakenUp_aGoneOneWithoutStatusRunsAgain()
            throws Exception {
        JobSpec ended = JobSpec.parse("[vram=1G] ended.sh").withKey(io.gpusched.jobs.JobKeys.key("ended.sh", 0));
        JobSpec alive = JobSpec.parse("[vram=1G] alive.sh").withKey(io.gpusched.jobs.JobKeys.key("alive.sh", 0));
        JobSpec killed = JobSpec.parse("[vram=1G] killed.sh").withKey(io.gpusched.jobs.JobKeys.key("killed.sh", 0));
        deadSchedulerWrote(new JournalEvent.Seen(ended.key(), 1, ended.command()),
                new JournalEvent.Seen(alive.key(), 2, alive.command()),
                new JournalEvent.Seen(killed.key(), 3, killed.command()),
                new JournalEvent.Launching(ended.key(), 1, List.of(0)), new JournalEvent.Started(ended.key(), 5001, List.of(0)),
                new JournalEvent.Launching(alive.key(), 2, List.of(0)), new JournalEvent.Started(alive.key(), 5002, List.of(0)),
                new JournalEvent.Launching(killed.key(), 3, List.of(0)), new JournalEvent.Started(killed.key(), 5003, List.of(0)));
        Files.createDirectories(logs.resolve("runs"));
        Files.writeString(logs.resolve("runs/job001.run1.exit"), "0\n");
        procs.live(5002);
        start(FAST, new StubBackend(1, 24000), "[vram=1G] ended.sh", "[vram=1G] alive.sh", "[vram=1G] killed.sh");

        assertEquals(JobStatus.OK, finished(1).status(), "settled from its exit file, not run again");
        await(SchedulerEvent.OrphanAdopted.class, a -> a.no() == 2 && a.pgid().equals(OptionalLong.of(5002)));
        await(SchedulerEvent.OrphanRequeued.class, r -> r.no() == 3);
        FakeRunDriver.Run rerun = driver.nextStart();
        assertEquals(3, rerun.no(), "only the one killed before its command ended runs again");

        Files.writeString(logs.resolve("runs/job002.run2.exit"), "0\n");
        procs.end(5002, 0);
        assertEquals(JobStatus.OK, finished(2).status());
        driver.exit(rerun, "", 0);
        assertEquals(JobStatus.OK, finished(3).status());
        assertEquals(1, driver.runs.size());
    }

    @Test
    void cancelOfARunningJobSendsSigtermToItsSession_andItEndsCancelled() throws Exception {
        start(FAST, new StubBackend(1, 24000), "[vram=1G] serve.py");
        FakeRunDriver.Run serve = driver.nextStart();
        await(SchedulerEvent.JobStarted.class, s -> s.no() == 1);

        assertEquals(CancelOutcome.STOPPING, engine.cancel(1).get(10, TimeUnit.SECONDS));
        assertEquals(JobStatus.CANCELLED, finished(1).status());
        assertEquals(new FakeProcTable.Signal(serve.sid(), false), procs.signals.get(0), "SIGTERM first");
        assertEquals(143, finished(1).exitCode());
    }
}

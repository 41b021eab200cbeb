package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.cluster.ClusterAttempt;
import io.gpusched.cluster.ClusterDriver;
import io.gpusched.cluster.ClusterReport;
import io.gpusched.cluster.ClusterRun;
import io.gpusched.engine.table.JobsSource;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.RunSummary;
import io.gpusched.model.Verdict;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine with a cluster that places its runs itself, as Slurm does ({@link ClusterDriver}): the engine
 * orders and hands over, picks no GPU, signals no process, and judges each attempt on what the cluster
 * measured, with the same outcome rules as a local run. No process at all.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RunsElsewhereTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path logs;

    /** A cluster stand-in: each hand-over is a "job" with an id; the test says how it starts and ends. */
    private final class Cluster implements ClusterDriver {
        final class Job implements ClusterRun {
            final long id;
            final ClusterAttempt attempt;
            final CompletableFuture<List<Integer>> running = new CompletableFuture<>();
            final CompletableFuture<ClusterReport> ended = new CompletableFuture<>();
            final AtomicInteger cancels = new AtomicInteger();

            Job(long id, ClusterAttempt attempt) {
                this.id = id;
                this.attempt = attempt;
            }

            int no() {
                return attempt.no();
            }

            @Override
            public long id() {
                return id;
            }

            @Override
            public String request() {
                return "shard:1";
            }

            @Override
            public Path log() {
                return logs.resolve("cluster-" + id + ".log");
            }

            @Override
            public CompletableFuture<List<Integer>> running() {
                return running;
            }

            @Override
            public CompletableFuture<ClusterReport> ended() {
                return ended;
            }

            @Override
            public void cancel() {
                cancels.incrementAndGet();
            }

            /** It printed {@code log}, ended with {@code exit} on {@code gpu}, peaking at {@code peakMib}. */
            void end(int exit, int gpu, long peakMib, String log) throws Exception {
                Files.writeString(log(), log);
                running.complete(List.of(gpu));
                ended.complete(new ClusterReport(exit, List.of(gpu), Map.of(gpu, peakMib), OptionalDouble.of(90),
                        Duration.ofMillis(2_500), Measurement.MEASURED, Optional.empty()));
            }
        }

        final List<Job> jobs = new CopyOnWriteArrayList<>();
        private final BlockingQueue<Job> submitted = new LinkedBlockingQueue<>();
        private long nextId = 100;

        /** Commands whose hand-over the cluster refuses, as sbatch refuses a request no node can meet. */
        final java.util.Set<String> refuses = java.util.concurrent.ConcurrentHashMap.newKeySet();

        @Override
        public synchronized ClusterRun submit(ClusterAttempt a) throws io.gpusched.cluster.AttemptRefusedException {
            if (refuses.contains(a.spec().command())) {
                throw new io.gpusched.cluster.AttemptRefusedException("jobs.txt:" + a.spec().line() + ": no node has "
                        + a.spec().gpus() + " GPUs");
            }
            Job j = new Job(nextId++, a);
            jobs.add(j);
            submitted.add(j);
            return j;
        }

        @Override
        public String describe() {
            return "a test's cluster";
        }

        Job next() throws InterruptedException {
            Job j = submitted.poll(10, TimeUnit.SECONDS);
            if (j == null) {
                throw new AssertionError("nothing handed over within 10 s; so far: " + jobs.size());
            }
            return j;
        }
    }

    private final FakeProcTable procs = new FakeProcTable();
    private final Cluster cluster = new Cluster();
    private final EngineUnderTest loop = new EngineUnderTest();
    private final List<SchedulerEvent> events = loop.events();
    private Engine engine;
    private CompletableFuture<RunSummary> run;

    @AfterEach
    void stop() throws Exception {
        loop.stop();
    }

    private void start(SchedulerOptions options, String... lines) {
        List<JobSpec> keyed = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            JobSpec j = JobSpec.parse(lines[i]);
            keyed.add(j.withKey(io.gpusched.jobs.JobKeys.key(j.command(), 0)));
        }
        // One GPU of 1000 MiB here: none of the jobs below would fit it; the driver's system places them.
        engine = loop.start(sink -> new Engine(new StubBackend(1, 1000), options, logs, false,
                new JobsSource(Optional.empty(), keyed), sink, new Engine.Ports(procs,
                        new LoopClock(Instant::now, System::nanoTime), Optional.of(new FakeRunDriver(procs)), Optional.of(cluster))));
        run = loop.run();
    }

    private <T extends SchedulerEvent> T await(Class<T> type, Predicate<T> what) throws InterruptedException {
        return loop.await(type, what);
    }

    private JobResult finished(int no) throws InterruptedException {
        return loop.finished(no);
    }

    @Test
    void everyJobIsHandedOverAtOnceOnNoGpuOfOurs_andJudgedOnWhatTheDriverMeasured() throws Exception {
        start(FAST, "[vram=4G] train.py", "[vram=4G] eval.py");
        Cluster.Job first = cluster.next();
        Cluster.Job second = cluster.next();
        assertEquals(List.of(1, 2), List.of(first.no(), second.no()), "both at once, in queue order");
        assertEquals(java.util.OptionalLong.of(4096), first.attempt.declaredMib());
        await(SchedulerEvent.StatusUpdated.class, u -> u.board().running().size() == 2);

        first.end(0, 2, 3900, "done\n");
        JobResult r = finished(first.no());
        assertEquals(JobStatus.OK, r.status());
        assertEquals(List.of(2), r.gpus(), "the GPUs its system gave it");
        assertEquals(Map.of(2, 3900L), r.peakMib());
        assertEquals(Verdict.WITHIN, r.verdict());
        assertEquals(Measurement.MEASURED, r.measurement());
        assertEquals(Duration.ofMillis(2_500), r.duration(), "timed by its system's clock");

        second.end(0, 0, 5000, "");
        assertEquals(Verdict.OVER, finished(second.no()).verdict(), "5000 MiB against 4096 declared");
        assertFalse(run.get(10, TimeUnit.SECONDS).interrupted());
        assertTrue(procs.signals.isEmpty(), "no process was signalled: " + procs.signals);
    }

    @Test
    void aCudaOomItReportsIsHandedOverAgainWithTheBumpedDeclaration() throws Exception {
        start(FAST.withOomRetries(1), "[vram=4G] train.py");
        Cluster.Job first = cluster.next();
        first.end(1, 0, 4000, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
        Cluster.Job retry = cluster.next();
        retry.running.complete(List.of(1));
        SchedulerEvent.RequeuedAfterOom requeued = await(SchedulerEvent.RequeuedAfterOom.class, e -> true);
        SchedulerEvent.JobStarted again = await(SchedulerEvent.JobStarted.class, s -> s.attempt() == 2);
        assertTrue(again.declaredMib().getAsLong() > 4096, "the retry asks for more: " + again.declaredMib());
        assertEquals(again.declaredMib(), retry.attempt.declaredMib());
        assertEquals(2, retry.attempt.attempt());
        assertEquals(requeued.nextMib(), again.declaredMib());
        retry.end(0, 0, 4000, "");
        assertEquals(JobStatus.OK, finished(1).status());
    }

    @Test
    void aCancelAsksItsSystem_andTheJobEndsCancelledWhenItsSystemSaysSo() throws Exception {
        start(FAST, "[vram=1G] sleep 100");
        Cluster.Job job = cluster.next();
        job.running.complete(List.of(0));
        SchedulerEvent.JobStarted started = await(SchedulerEvent.JobStarted.class, s -> true);
        assertEquals(List.of(0), started.gpus(), "reported when its command started there, on the cluster's GPU");
        assertEquals(CancelOutcome.STOPPING, engine.cancel(1).get(10, TimeUnit.SECONDS));
        assertEquals(1, job.cancels.get());
        // Past the kill grace: no SIGKILL for a run with no session here; its system ends it.
        Thread.sleep(700);
        assertTrue(procs.signals.isEmpty(), "no process was signalled: " + procs.signals);
        assertTrue(events.stream().noneMatch(e -> e instanceof SchedulerEvent.KillEscalated), events.toString());
        job.ended.complete(new ClusterReport(143, List.of(0), Map.of(), OptionalDouble.empty(), Duration.ofSeconds(1),
                Measurement.NONE_SEEN, Optional.empty()));
        assertEquals(JobStatus.CANCELLED, finished(1).status());
    }

    @Test
    void itsTimeLimitIsTheClusters_soTheEngineDoesNotStopIt_butATimeoutItReportsIsOne() throws Exception {
        start(FAST, "[vram=1G timeout=1s] sleep 100");
        Cluster.Job job = cluster.next();
        Thread.sleep(1_300);
        assertEquals(0, job.cancels.get(), "Slurm's --time enforces it, from when it really started");
        assertTrue(events.stream().noneMatch(e -> e instanceof SchedulerEvent.JobStopping), events.toString());
        job.ended.complete(new ClusterReport(RunSummary.TIMEOUT_EXIT, List.of(0), Map.of(0, 10L), OptionalDouble.empty(),
                Duration.ofSeconds(60), Measurement.MEASURED, Optional.of(SchedulerEvent.StopReason.TIMEOUT)));
        JobResult r = finished(1);
        assertEquals(JobStatus.TIMEOUT, r.status());
        assertEquals(RunSummary.TIMEOUT_EXIT, r.exitCode());
    }

    @Test
    void anAttemptItsSystemRefusesFailsAlone_itsDependantsAsAFailedJobs_andTheRestRun() throws Exception {
        cluster.refuses.add("big.py");
        start(FAST, "[name=big gpus=9] big.py", "[after=big] report.py", "[vram=1G] small.py");
        Cluster.Job small = cluster.next();
        assertEquals(3, small.no(), "the job after the refused one was handed over");
        JobResult refused = finished(1);
        assertEquals(JobStatus.INFEASIBLE, refused.status());
        SchedulerEvent.JobInfeasible why = await(SchedulerEvent.JobInfeasible.class, e -> e.no() == 1);
        assertEquals("jobs.txt:1: no node has 9 GPUs", why.reason());
        assertEquals(JobStatus.DEPENDENCY_FAILED, finished(2).status(), "as after a failed local job");
        small.end(0, 0, 500, "");
        assertEquals(JobStatus.OK, finished(3).status());
        RunSummary s = run.get(10, TimeUnit.SECONDS);
        assertFalse(s.interrupted());
        assertEquals(1, cluster.jobs.size(), "only the refused job's dependant was never handed over");
        List<String> journal = Files.readAllLines(logs.resolve("journal.jsonl"));
        assertTrue(journal.stream().anyMatch(l -> l.contains("\"status\":\"infeasible\"")), journal.toString());
    }

    @Test
    void aStopLeavesItRunningInItsSystem_journaledAsStartedForTheNextSchedulerToFollow() throws Exception {
        start(FAST, "[vram=1G] sleep 100");
        Cluster.Job job = cluster.next();
        engine.stop();
        assertTrue(run.get(10, TimeUnit.SECONDS).interrupted());
        assertEquals(0, job.cancels.get(), "not cancelled: it goes on in its system");
        List<String> journal = Files.readAllLines(logs.resolve("journal.jsonl"));
        assertTrue(journal.get(journal.size() - 1).contains("\"event\":\"started\""), journal.toString());
        assertTrue(journal.stream().anyMatch(l -> l.contains("\"event\":\"slurm_submitted\"") && l.contains("\"slurm_job\":100")),
                "the cluster's id, for the next scheduler to follow it by: " + journal);
    }
}

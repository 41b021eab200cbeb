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
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An embedder's view: two schedulers in one JVM on different log directories, fed from many threads
 * at once and closed from yet another, do not see each other's jobs, events, journals or boards.
 */
@Timeout(60)
class TwoSchedulersTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults().withWatch(true)
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));
    private static final int THREADS = 4;
    private static final int PER_THREAD = 5;

    @TempDir
    Path dir;

    @Test
    void twoSchedulersSubmittedToFromManyThreadsDoNotInterfere() throws Exception {
        List<SchedulerEvent> eventsA = new CopyOnWriteArrayList<>();
        List<SchedulerEvent> eventsB = new CopyOnWriteArrayList<>();
        Scheduler a = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST)
                .logDir(dir.resolve("a")).listener(eventsA::add).build();
        Scheduler b = Scheduler.builder().backend(new StubBackend(2, 24000)).options(FAST)
                .logDir(dir.resolve("b")).listener(eventsB::add).build();
        CompletableFuture<RunSummary> runA = CompletableFuture.supplyAsync(a::run, Executors.newSingleThreadExecutor());
        CompletableFuture<RunSummary> runB = CompletableFuture.supplyAsync(b::run, Executors.newSingleThreadExecutor());

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<JobHandle>>> submitted = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            submitted.add(pool.submit(() -> {
                go.await();
                List<JobHandle> handles = new ArrayList<>();
                for (int i = 0; i < PER_THREAD; i++) {
                    handles.add(a.submit(JobSpec.parse("[vram=100M] echo a-" + thread + "-" + i)));
                    handles.add(b.submit(JobSpec.parse("[vram=100M] echo b-" + thread + "-" + i)));
                }
                return handles;
            }));
        }
        go.countDown();
        List<JobHandle> all = new ArrayList<>();
        for (Future<List<JobHandle>> f : submitted) {
            all.addAll(f.get(30, TimeUnit.SECONDS));
        }
        for (JobHandle h : all) {
            JobResult r = h.result().get(30, TimeUnit.SECONDS);
            assertEquals(JobStatus.OK, r.status(), r.toString());
            assertEquals(h.command(), r.command());
        }
        pool.shutdown();

        // close both from a third thread
        Thread closer = new Thread(() -> {
            a.close();
            b.close();
        });
        closer.start();
        closer.join(30_000);
        RunSummary sa = runA.get(30, TimeUnit.SECONDS);
        RunSummary sb = runB.get(30, TimeUnit.SECONDS);

        int n = THREADS * PER_THREAD;
        assertEquals(n, sa.results().size());
        assertEquals(n, sb.results().size());
        assertTrue(sa.results().stream().allMatch(r -> r.command().startsWith("echo a-")));
        assertTrue(sb.results().stream().allMatch(r -> r.command().startsWith("echo b-")));
        assertEquals(n, eventsA.stream().filter(SchedulerEvent.JobFinished.class::isInstance).count());
        assertEquals(n, eventsB.stream().filter(SchedulerEvent.JobFinished.class::isInstance).count());
        assertFalse(eventsA.stream().anyMatch(e -> e instanceof SchedulerEvent.JobStarted s && s.command().contains("b-")));

        String journalA = Files.readString(dir.resolve("a/journal.jsonl"));
        String journalB = Files.readString(dir.resolve("b/journal.jsonl"));
        assertTrue(journalA.contains("echo a-0-0") && !journalA.contains("echo b-"), journalA);
        assertTrue(journalB.contains("echo b-0-0") && !journalB.contains("echo a-"), journalB);
        assertTrue(Files.readString(dir.resolve("a/status.txt")).contains(n + " done"));
        assertTrue(Files.readString(dir.resolve("b/status.txt")).contains(n + " done"));
    }

    @Test
    void closeRacingRunAlwaysStopsIt() throws Exception {
        for (int i = 0; i < 20; i++) {
            Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST)
                    .logDir(dir.resolve("race" + i)).build();
            Thread loop = new Thread(s::run);
            loop.start();
            s.close(); // may come before, while or after run() starts: it must stop it in every case
            loop.join(10_000);
            assertFalse(loop.isAlive(), "run() ignored a close() in round " + i);
        }
    }

    @Test
    void closeBeforeRunMakesRunReturnInterrupted() {
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(dir.resolve("c")).build();
        s.close();
        RunSummary summary = s.run();
        assertTrue(summary.interrupted());
        assertEquals(130, summary.exitCode());
    }
}

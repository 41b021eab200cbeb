package io.gpusched.engine;

import io.gpusched.engine.ending.OwnerTails;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.table.JobsSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JournalEvent;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.SubmitContext;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed job's output, read as its owner, is read off the scheduler's loop: its owner can make that
 * read hang (a SIGSTOP to gpusched-runas once it runs as them, a FUSE file that never answers), and every
 * user's jobs would wait for a loop that waited on it. With no root and no process: runs start through a
 * {@link FakeRunDriver}, and the read as the owner is an {@link OwnerTails} that hangs until the test
 * lets it go.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OwnerTailOffTheLoopTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults().withWatch(true).withOomRetries(1)
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path logs;

    private final FakeProcTable procs = new FakeProcTable();
    private final FakeRunDriver driver = new FakeRunDriver(procs);
    private final EngineUnderTest loop = new EngineUnderTest();
    private Engine engine;

    /** Let go by the test: until then every read as an owner hangs. */
    private final CountDownLatch letGo = new CountDownLatch(1);
    /** Counted down as each read begins. */
    private final CountDownLatch reading = new CountDownLatch(1);
    private final AtomicInteger reads = new AtomicInteger();

    /** Every submission runs as its owner; each read waits for {@link #letGo}, then reads the file. */
    private final OwnerTails hanging = new OwnerTails() {
        @Override
        public boolean runsAsOwner(JournalEvent.Submitted s) {
            return true;
        }

        @Override
        public boolean canRead() {
            return true;
        }

        @Override
        public Optional<String> read(String owner, Path log, int maxBytes) {
            reads.incrementAndGet();
            reading.countDown();
            try {
                letGo.await();
                return Optional.of(Files.readString(log));
            } catch (Exception e) {
                return Optional.of("");
            }
        }
    };

    @AfterEach
    void stop() throws Exception {
        letGo.countDown();
        loop.stop();
    }

    private void start() {
        engine = loop.start(sink -> new Engine(new StubBackend(1, 24000), FAST, logs, false,
                new JobsSource(Optional.empty(), List.of()), sink,
                new Engine.Ports(procs, new LoopClock(Instant::now, System::nanoTime), Optional.of(driver))
                        .withOwnerTails(hanging)));
    }

    /**
     * Starts the engine with job 1 running as alice, its output (her file) holding {@code output}: its run,
     * for the test to end.
     */
    private FakeRunDriver.Run jobOneRunsWritingItsOutput(String output) throws Exception {
        start();
        assertEquals(1, submit("[vram=4G] python big.py").get(10, TimeUnit.SECONDS));
        FakeRunDriver.Run big = driver.nextStart();
        // A job run as its owner writes its output to their file (the job's log), not the wrapper's.
        Files.writeString(loop.await(SchedulerEvent.JobStarted.class, s -> s.no() == 1).log(), output);
        return big;
    }

    private CompletableFuture<Integer> submit(String line) {
        return engine.submit(JobSpec.parse(line), new SubmitContext("alice", logs, Optional.empty()),
                new CompletableFuture<JobResult>(), Optional.empty());
    }

    @Test
    void whileAFailedJobsOutputReadHangs_theLoopGoesOn_andTheJobIsSettledWhenTheReadReturns_anOomRetried() throws Exception {
        FakeRunDriver.Run big = jobOneRunsWritingItsOutput("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
        driver.exit(big, "", 1);
        assertTrue(reading.await(10, TimeUnit.SECONDS), "the failed job's output is read as its owner");

        // The read hangs. The loop takes a submission and starts it on the GPU the ended job freed.
        assertEquals(2, submit("[vram=4G] python other.py").get(5, TimeUnit.SECONDS),
                "a submission is taken while the read hangs");
        FakeRunDriver.Run other = driver.nextStart();
        assertEquals(2, other.no(), "another job starts while the read hangs");
        // Meanwhile the ended job is neither pending nor ended: it shows as running, and a cancel does nothing.
        assertEquals(Optional.of(io.gpusched.model.JobStage.RUNNING), engine.state(1).get(5, TimeUnit.SECONDS));
        assertEquals(CancelOutcome.ALREADY_ENDED, engine.cancel(1).get(5, TimeUnit.SECONDS));
        assertFalse(loop.events().stream().anyMatch(e -> e instanceof SchedulerEvent.JobFinished f && f.result().no() == 1
                || e instanceof SchedulerEvent.RequeuedAfterOom r && r.no() == 1), "not settled before its read returns");
        assertEquals(1, driver.runs.size() - 1, "the ended job was not started again meanwhile");

        // The read returns, late but within its time: the OOM it found retries the job, as from the loop.
        letGo.countDown();
        loop.await(SchedulerEvent.RequeuedAfterOom.class, r -> r.no() == 1);
        driver.exit(other, "", 0);
        FakeRunDriver.Run retry = driver.nextStart();
        assertEquals(1, retry.no(), "the OOM's retry starts");
        driver.exit(retry, "", 0);
        assertEquals(JobStatus.OK, loop.finished(1).status());
        assertEquals(JobStatus.OK, loop.finished(2).status());
        assertEquals(1, reads.get(), "only the failed attempt's output was read");
    }

    @Test
    void aReadThatNeverReturns_settlesItsJobAsFailedAfterItsLimit_andPausesItsOwnersReads() throws Exception {
        FakeRunDriver.Run big = jobOneRunsWritingItsOutput("RuntimeError: CUDA out of memory.\n");
        driver.exit(big, "", 1);
        assertTrue(reading.await(10, TimeUnit.SECONDS));
        // Never let go: the loop gives up on the read at its limit and settles the job without it.
        JobResult first = loop.finished(1);
        assertEquals(JobStatus.FAILED, first.status(), "with its output unread, no OOM is seen: failed, not retried");
        loop.await(SchedulerEvent.Warning.class, w -> w.message().contains("could not be read as alice"));
        // Her next failure is settled at once, its output not read: her one reading thread still hangs.
        assertEquals(2, submit("[vram=4G] python next.py").get(5, TimeUnit.SECONDS));
        FakeRunDriver.Run next = driver.nextStart();
        driver.exit(next, "RuntimeError: CUDA out of memory.\n", 1);
        assertEquals(JobStatus.FAILED, loop.finished(2).status());
        assertEquals(1, reads.get(), "no second read of hers while one hangs and her reads are paused");
    }

    @Test
    void aStopWhileTheReadHangsLeavesTheJobStarted_andTheNextSchedulerSettlesItFromItsExitFileAndOutput() throws Exception {
        FakeRunDriver.Run big = jobOneRunsWritingItsOutput("RuntimeError: CUDA out of memory.\n");
        // As the real wrapper does: the exit file, then the exit.
        Files.writeString(big.launch().files().exit(), "1\n");
        driver.exit(big, "", 1);
        assertTrue(reading.await(10, TimeUnit.SECONDS));

        // The stop does not wait for a read its owner may hold forever; it loses nothing either.
        engine.stop();
        loop.run().get(10, TimeUnit.SECONDS);
        loop.await(SchedulerEvent.Warning.class, w -> w.message().contains("job 1 ended as the scheduler stopped"));
        List<String> journal = Files.readAllLines(logs.resolve("journal.jsonl"));
        assertTrue(journal.stream().anyMatch(l -> l.contains("\"event\":\"started\"")), journal.toString());
        assertFalse(journal.stream().anyMatch(l -> l.contains("\"event\":\"done\"") || l.contains("\"event\":\"oom\"")
                || l.contains("\"event\":\"interrupted\"")), "no outcome: the next scheduler records it " + journal);
        assertTrue(Files.exists(big.launch().files().exit()), "its exit file is kept for the next scheduler");

        // The next scheduler finds it ended while none watched, records it from its exit file, and, its output
        // (her file, read as her) showing the CUDA OOM, retries it once with a bigger declaration.
        letGo.countDown();
        EngineUnderTest next = new EngineUnderTest();
        try {
            next.start(sink -> new Engine(new StubBackend(1, 24000), FAST, logs, false,
                    new JobsSource(Optional.empty(), List.of()), sink,
                    new Engine.Ports(procs, new LoopClock(Instant::now, System::nanoTime), Optional.of(driver))
                            .withOwnerTails(hanging)));
            next.await(SchedulerEvent.Warning.class, w -> w.message().contains("recorded from " + big.launch().files().exit()));
            next.await(SchedulerEvent.RequeuedAfterOom.class, r -> r.no() == 1 && r.attempt() == 1);
            FakeRunDriver.Run retry = driver.nextStart();
            assertEquals(2, driver.runs.size(), "run again once, as its OOM retry");
            driver.exit(retry, "", 0);
            assertEquals(JobStatus.OK, next.finished(1).status());
        } finally {
            next.stop();
        }
    }
}

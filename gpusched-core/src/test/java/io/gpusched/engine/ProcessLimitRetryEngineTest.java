package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.engine.ending.OwnerTails;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.table.JobsSource;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.SubmitContext;
import io.gpusched.outcome.ProcessLimitRetry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job whose owner is at her process limit (gpusched-runas's exec refused with EAGAIN) is not failed at
 * once: the limit passes as her other processes end. It waits, pending, says why, and is tried again after
 * a back-off; it fails, with that cause, only when its tries are used up. Before, the first refusal failed
 * it. Runs start no process ({@link FakeRunDriver}); the loop's ticker is stepped over the back-offs. As
 * root only, where a submission runs as its owner.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProcessLimitRetryEngineTest {
    /** What gpusched-runas writes to the root wrapper's log when her exec is refused, before it exits 126. */
    private static final String REFUSAL = "gpusched-runas: cannot run /bin/sh as alice: Resource temporarily unavailable:"
            + " alice has as many processes as the scheduler's limit allows (RLIMIT_NPROC 40); the job did not run\n";

    @TempDir
    Path logs;

    private final FakeProcTable procs = new FakeProcTable();
    private final FakeRunDriver driver = new FakeRunDriver(procs);
    private final EngineUnderTest loop = new EngineUnderTest();
    /** How far the loop's ticker is stepped ahead of the real one. */
    private final AtomicLong ahead = new AtomicLong();
    private Engine engine;

    private final OwnerTails asOwner = new EveryJobAsOwner();

    @AfterEach
    void stop() throws Exception {
        loop.stop();
    }

    private void submitAsAlice() throws Exception {
        assumeTrue(JobOutput.RUNS_AS_OWNERS, "only a root scheduler runs a submission as its owner");
        engine = loop.start(sink -> new Engine(new StubBackend(1, 24000), FakeDriverEngine.FAST, logs, false,
                new JobsSource(Optional.empty(), List.of()), sink,
                new Engine.Ports(procs, new LoopClock(Instant::now, () -> System.nanoTime() + ahead.get()),
                        Optional.of(driver)).withOwnerTails(asOwner)));
        assertEquals(1, engine.submit(JobSpec.parse("python train.py"), new SubmitContext("alice", logs, Optional.empty()),
                new CompletableFuture<JobResult>(), Optional.empty()).get(10, TimeUnit.SECONDS));
    }

    private List<String> warnings() {
        return loop.events().stream().filter(e -> e instanceof SchedulerEvent.Warning)
                .map(e -> ((SchedulerEvent.Warning) e).message()).toList();
    }

    private boolean finished() {
        return loop.events().stream().anyMatch(e -> e instanceof SchedulerEvent.JobFinished);
    }

    @Test
    void aJobRefusedForItsOwnersProcessLimit_waitsItsBackOff_saysWhy_andRunsWhenTheLimitHasPassed() throws Exception {
        submitAsAlice();
        driver.exit(driver.nextStart(), REFUSAL, 126);
        loop.await(SchedulerEvent.Warning.class, w -> w.message().contains("waits 15 s to be tried again (try 2 of 7)"));
        assertTrue(warnings().stream().anyMatch(w -> w.startsWith("job 1: cannot run /bin/sh as alice: Resource temporarily"
                + " unavailable: alice has as many processes as the scheduler's limit allows (RLIMIT_NPROC 40); it did"
                + " not run, and waits 15 s")), warnings().toString());
        // No spinning: some 25 rounds of 20 ms, and no try before its 15 s.
        Thread.sleep(500);
        assertEquals(1, driver.runs.size(), "tried again before its back-off: " + driver.runs);
        assertFalse(finished(), "the first refusal failed it: " + loop.events());
        assertTrue(Files.readString(logs.resolve("journal.jsonl")).contains("\"event\":\"interrupted\""),
                "journaled pending again, as an interrupted run is");

        ahead.addAndGet(Duration.ofSeconds(15).toNanos());
        FakeRunDriver.Run second = driver.nextStart();
        driver.exit(second, "", 0);
        JobResult r = loop.finished(1);
        assertEquals(JobStatus.OK, r.status());
        assertEquals(0, r.exitCode());
    }

    @Test
    void aJobRefusedOnEveryTry_failsWithTheRefusalAsItsCause_onceItsTriesAreUsedUp() throws Exception {
        submitAsAlice();
        Duration waited = Duration.ZERO;
        for (int attempt = 1; attempt <= ProcessLimitRetry.RETRIES + 1; attempt++) {
            driver.exit(driver.nextStart(), REFUSAL, 126);
            if (attempt <= ProcessLimitRetry.RETRIES) {
                int tryNo = attempt + 1;
                SchedulerEvent.Warning w = loop.await(SchedulerEvent.Warning.class,
                        e -> e.message().contains("(try " + tryNo + " of 7)"));
                long seconds = Long.parseLong(w.message().replaceAll(".*waits ([0-9]+) s.*", "$1"));
                waited = waited.plusSeconds(seconds);
                ahead.addAndGet(Duration.ofSeconds(seconds).toNanos());
            }
        }
        // 15 s, 30 s, 1, 2, 4 and 5 min: bounded, about 13 minutes in all.
        assertEquals(Duration.ofSeconds(15 + 30 + 60 + 120 + 240 + 300), waited);
        JobResult r = loop.finished(1);
        assertEquals(JobStatus.FAILED, r.status());
        assertEquals(126, r.exitCode());
        assertEquals("cannot run /bin/sh as alice: Resource temporarily unavailable: alice has as many processes as the"
                + " scheduler's limit allows (RLIMIT_NPROC 40)", r.cause().orElseThrow());
        assertEquals(7, driver.runs.size());
        assertTrue(warnings().stream().anyMatch(w -> w.contains("the command did not run; tried 7 times over 12 minutes,"
                + " and alice's processes stayed at the limit")), warnings().toString());
    }

    @Test
    void anotherRefusalWordedLikeIt_failsAtOnce() throws Exception {
        submitAsAlice();
        // A directory she named after the limit's line: her refusal starts otherwise, and is not retried.
        driver.exit(driver.nextStart(), "gpusched-runas: cannot enter /home/alice/x: alice has as many processes as the"
                + " scheduler's limit allows (RLIMIT_NPROC 40) as alice: Permission denied; the job did not run\n", 126);
        assertEquals(JobStatus.FAILED, loop.finished(1).status());
        assertEquals(1, driver.runs.size());
    }
}

package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.engine.ending.OwnerTails;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.SubmitContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a job's output goes is its owner's to know (and an admin's): {@code logs N} names it to no one
 * else. A run as its owner that gpusched-runas refused (her output a link, a FIFO, another user's file,
 * a directory she cannot write) ends with gpusched-runas's line as its cause, which every user's
 * {@code queue} and {@code show N} print: that line names the output file, so it must not reach them.
 * With no process: runs start through a {@link FakeRunDriver}, which writes the refusal to the root
 * wrapper's log as gpusched-runas does. As root only, where a submission runs as its owner.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OthersOutputPathTest {
    @TempDir
    Path logs;

    private final FakeDriverEngine fake = new FakeDriverEngine();
    private final FakeRunDriver driver = fake.driver;
    private final EngineUnderTest loop = fake.loop;

    /** Every submission runs as its owner; her output reads as empty. */
    private final OwnerTails asOwner = new EveryJobAsOwner();

    @AfterEach
    void stop() throws Exception {
        fake.stop();
    }

    @Test
    void aRefusedOutputsPath_isNotInTheCauseEveryUserSees_butStaysInTheDaemonsLog() throws Exception {
        assumeTrue(JobOutput.RUNS_AS_OWNERS, "only a root scheduler runs a submission as its owner");
        Engine engine = fake.start(logs, List.of(), ports -> ports.withOwnerTails(asOwner));
        Path output = logs.resolve("merger-with-acme").resolve("due-diligence.log");
        assertEquals(1, engine.submit(JobSpec.parse("python eval.py"),
                new SubmitContext("alice", logs, Optional.empty()).withOutput(output),
                new CompletableFuture<JobResult>(), Optional.empty()).get(10, TimeUnit.SECONDS));
        FakeRunDriver.Run run = driver.nextStart();
        // What gpusched-runas writes to the root wrapper's log when her output is a link, then exit 126.
        driver.exit(run, "gpusched-runas: output " + output + " is a symbolic link; gpusched writes a job's output only"
                + " to a regular file; name the file itself with --output; the job did not run\n", 126);

        JobResult r = loop.finished(1);
        assertEquals(JobStatus.FAILED, r.status());
        String cause = r.cause().orElseThrow();
        assertFalse(cause.contains("merger-with-acme") || cause.contains(logs.toString()),
                "the queue's cause names no part of her output's path: " + cause);
        assertEquals("its output (gpusched logs 1 names it) is a symbolic link; gpusched writes a job's output only to a"
                + " regular file; name the file itself with --output", cause);
        assertTrue(loop.events().stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w
                        && w.message().contains(output + " is a symbolic link")),
                "the daemon's own log (root's) still names the file: " + loop.events());
    }

    @Test
    void aWorkingDirectoryHerJobCouldNotEnter_isNotInTheCauseEveryUserSees() throws Exception {
        assumeTrue(JobOutput.RUNS_AS_OWNERS, "only a root scheduler runs a submission as its owner");
        Engine engine = fake.start(logs, List.of(), ports -> ports.withOwnerTails(asOwner));
        Path cwd = logs.resolve("layoffs-2027");
        assertEquals(1, engine.submit(JobSpec.parse("python plan.py"), new SubmitContext("alice", cwd, Optional.empty()),
                new CompletableFuture<JobResult>(), Optional.empty()).get(10, TimeUnit.SECONDS));
        FakeRunDriver.Run run = driver.nextStart();
        // What gpusched-runas writes when, as her, it cannot enter the directory she submitted from.
        driver.exit(run, "gpusched-runas: cannot enter " + cwd + " as alice: Permission denied; the job did not run\n", 126);

        String cause = loop.finished(1).cause().orElseThrow();
        assertFalse(cause.contains("layoffs-2027"), "the queue's cause names no part of her directory: " + cause);
        assertEquals("cannot enter its working directory as alice: Permission denied", cause);
    }
}

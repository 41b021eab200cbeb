package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.SubmitContext;
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
 * A start that fails (its output refused, its directory gone) leaves its job pending, "could not start":
 * the next round tries it again, though nothing else happens on an idle machine, so the job runs once its
 * cause is mended. With no process: starts go to a {@link FakeRunDriver} that refuses them on demand.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LaunchRetryTest {
    @TempDir
    Path logs;

    private final FakeDriverEngine fake = new FakeDriverEngine();
    private final FakeRunDriver driver = fake.driver;
    private final EngineUnderTest loop = fake.loop;

    @AfterEach
    void stop() throws Exception {
        fake.stop();
    }

    @Test
    void aStartThatFailedIsTriedAgainAtTheNextRound_andRunsOnceItsCauseIsMended() throws Exception {
        driver.refusing = "output /data/run.log is a symbolic link; name the file itself with --output";
        Engine engine = fake.start(logs, List.of(), ports -> ports);
        assertEquals(1, engine.submit(JobSpec.parse("[vram=1G] python train.py"),
                new SubmitContext("alice", logs, Optional.empty()), new CompletableFuture<JobResult>(), Optional.empty())
                .get(10, TimeUnit.SECONDS));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (driver.refused.get() < 3 && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertTrue(driver.refused.get() >= 3, "tried again at later rounds, nothing else happening: "
                + driver.refused.get() + " tries");
        assertEquals(1, loop.events().stream().filter(e -> e instanceof SchedulerEvent.Warning w
                && w.message().contains("is a symbolic link")).count(), "said once, not at every try: " + loop.events());

        driver.refusing = null; // the link removed
        FakeRunDriver.Run run = driver.nextStart();
        assertEquals(1, run.no());
        driver.exit(run, "", 0);
        assertEquals(JobStatus.OK, loop.finished(1).status());
    }
}

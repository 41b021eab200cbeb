package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.policy.Dependencies;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep of more named jobs than {@link Dependencies#REMEMBERED}, every one after a {@code prep} job
 * named first. The names of jobs that have not ended are never forgotten: before, learning the
 * 10,001st name forgot {@code prep}'s, and every job waiting after it ended {@code dependency_failed}
 * ("after=prep: no job of that name is known") while prep ran. With no process: a {@link FakeRunDriver}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ManyNamedJobsAfterOneTest {
    @TempDir
    Path logs;

    private final FakeDriverEngine fake = new FakeDriverEngine();

    @AfterEach
    void stop() throws Exception {
        fake.stop();
    }

    @Test
    void moreNamedJobsThanAreRemembered_allAfterPrep_waitForItAndRunOnceItSucceeds() throws Exception {
        List<JobSpec> jobs = new ArrayList<>();
        jobs.add(JobSpec.parse("[vram=1G name=prep] python prep.py"));
        int sweep = Dependencies.REMEMBERED + 1;
        for (int i = 0; i < sweep; i++) {
            // 20 GiB each: one at a time on the 24,000 MiB GPU, so the rest keep waiting after prep's end.
            jobs.add(JobSpec.parse("[vram=20G name=train" + i + " after=prep] python train.py " + i));
        }
        fake.start(logs, jobs, ports -> ports);
        FakeRunDriver.Run prep = fake.driver.nextStart();
        assertEquals(1, prep.no());
        // A round after prep started: every job of the sweep waits after it.
        fake.loop.await(SchedulerEvent.StatusUpdated.class, s -> s.board().running().size() == 1
                && s.board().pending().size() == sweep);
        fake.driver.exit(prep, "", 0);
        FakeRunDriver.Run first = fake.driver.nextStart();
        assertEquals(2, first.no());
        fake.loop.stop();
        assertEquals(List.of(), fake.loop.events().stream().filter(e -> e instanceof SchedulerEvent.DependencyFailed).toList());
    }
}

package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outcomes one round settles share one fsync: a job that thousands of waiting jobs run after, cancelled,
 * fails them all at the cost of one, not one each (2,000 fsyncs held the loop, and every other user's
 * requests, for seconds). With no process: runs start through a {@link FakeRunDriver}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ManyOutcomesOneFsyncTest {
    private static final int WAITING = 2000;

    @TempDir
    Path logs;

    private final FakeDriverEngine fake = new FakeDriverEngine();
    private final EngineUnderTest loop = fake.loop;

    @AfterEach
    void stop() throws Exception {
        fake.stop();
    }

    @Test
    void aJobThatThousandsRunAfterCancelled_failsThemAllAtAFewFsyncs_notOneEach() throws Exception {
        List<JobSpec> jobs = new ArrayList<>();
        jobs.add(JobSpec.parse("[vram=1G name=prep] python prep.py"));
        for (int i = 0; i < WAITING; i++) {
            jobs.add(JobSpec.parse("[vram=1G after=prep] python step.py " + i));
        }
        Engine engine = fake.start(logs, jobs, ports -> ports);
        fake.driver.nextStart();
        loop.await(SchedulerEvent.JobStarted.class, s -> s.no() == 1);
        engine.cancel(1).get(10, TimeUnit.SECONDS); // its owner's doing: a cancel, or a failure
        loop.await(SchedulerEvent.DependencyFailed.class, d -> d.no() == WAITING + 1);
        loop.stop();
        assertEquals(WAITING, loop.events().stream().filter(e -> e instanceof SchedulerEvent.DependencyFailed).count());
        long forces = engine.journalForces();
        assertTrue(forces < 20, WAITING + " outcomes took " + forces + " fsyncs");
    }
}

package io.gpusched.engine;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.table.JobsSource;
import io.gpusched.jobs.JobSpec;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * An engine on one 24,000 MiB stub GPU whose runs start no process: each is a session of a
 * {@link FakeProcTable} through a {@link FakeRunDriver}, ended by the test; its loop runs on a thread of
 * {@link EngineUnderTest}'s, polling every 20 ms, and watches for submissions. Stop it after each test.
 */
final class FakeDriverEngine {
    /** Rounds and samples every 20 ms; the loop watches for submissions. */
    static final SchedulerOptions FAST = SchedulerOptions.defaults().withWatch(true)
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(20));

    final FakeProcTable procs = new FakeProcTable();
    final FakeRunDriver driver = new FakeRunDriver(procs);
    final EngineUnderTest loop = new EngineUnderTest();

    /**
     * @param logs the log directory (journal, run files)
     * @param jobs the jobs file's jobs, if any
     * @param ports adds to the ports (the process table, the wall clock and the fake driver)
     * @return the engine, its loop started
     */
    Engine start(Path logs, List<JobSpec> jobs, UnaryOperator<Engine.Ports> ports) {
        return loop.start(sink -> new Engine(new StubBackend(1, 24000), FAST, logs, false,
                new JobsSource(Optional.empty(), jobs), sink,
                ports.apply(new Engine.Ports(procs, new LoopClock(Instant::now, System::nanoTime), Optional.of(driver)))));
    }

    /** Stops the loop if it still runs, waiting up to 10 s. */
    void stop() throws Exception {
        loop.stop();
    }
}

package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.Scheduler;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.RunSummary;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests of GPUs renumbered under a running scheduler share: a watching scheduler on a
 * {@link UuidBackend} the test renumbers, its events, its snapshots, and its stop after each test.
 */
abstract class RenumberingDaemon {
    /** Polls and samples fast enough for a renumbering to be seen within a test's patience. */
    static final SchedulerOptions FAST = SchedulerOptions.defaults().withWatch(true)
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path dir;

    final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();
    Scheduler scheduler;
    CompletableFuture<RunSummary> run;

    @AfterEach
    void stop() throws Exception {
        if (scheduler != null) {
            scheduler.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }

    /** Runs {@code built} (a scheduler on this test's log directory, with its listener) until the test's end. */
    void run(Scheduler built) {
        scheduler = built;
        run = CompletableFuture.supplyAsync(scheduler::run);
    }

    /** A scheduler on {@code machine} with {@code options}, this test's log directory and its listener. */
    Scheduler.Builder on(UuidBackend machine, SchedulerOptions options) {
        return Scheduler.builder().backend(machine).options(options).logDir(dir.resolve("logs")).listener(events::add);
    }

    void start(UuidBackend machine) {
        run(on(machine, FAST).build());
    }

    /** Stops the scheduler and starts another on the same state, its events from now on. */
    void restart(UuidBackend machine) throws Exception {
        scheduler.close();
        run.get(20, TimeUnit.SECONDS);
        events.clear();
        start(machine);
    }

    QueueSnapshot snapshotWhere(Predicate<QueueSnapshot> p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            Optional<QueueSnapshot> s = scheduler.snapshot();
            if (s.isPresent() && p.test(s.get())) {
                return s.get();
            }
            assertTrue(System.nanoTime() < deadline, "timed out; last snapshot: " + s);
            Thread.sleep(10);
        }
    }

    List<String> warnings() {
        return events.stream().filter(e -> e instanceof SchedulerEvent.Warning)
                .map(e -> ((SchedulerEvent.Warning) e).message()).toList();
    }

    String journal() throws Exception {
        return Files.readString(dir.resolve("logs").resolve("journal.jsonl"));
    }
}

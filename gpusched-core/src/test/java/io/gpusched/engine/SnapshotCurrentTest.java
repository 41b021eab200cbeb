package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.spawn.RunDriver;
import io.gpusched.engine.table.JobsSource;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.options.SchedulerOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queue's snapshot is published at the end of a round, after its spawns and their fsync: a job can
 * run, and its submitter see its output, while the last board still shows it pending. What
 * {@link Engine#whenSnapshotCurrent()} waits for is the board of the round under way, so a {@code queue}
 * asked after that never shows less than its asker saw (MultiUserServeTest once read "0 running" there).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SnapshotCurrentTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path logs;

    private final FakeProcTable procs = new FakeProcTable();
    private final FakeRunDriver runs = new FakeRunDriver(procs);
    /** Holds the loop inside the spawn of job 3, the round's last, as a slow spawn or fsync would. */
    private final CountDownLatch spawnOfThree = new CountDownLatch(1);
    private final EngineUnderTest loop = new EngineUnderTest();

    @AfterEach
    void stop() throws Exception {
        spawnOfThree.countDown();
        loop.stop();
    }

    private final RunDriver slowThird = new RunDriver() {
        @Override
        public Started start(Launch l) throws IOException {
            if (l.jobVars().get("GPUSCHED_JOB_NO").equals("3")) {
                try {
                    spawnOfThree.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
            return runs.start(l);
        }
    };

    private static String shown(Optional<QueueSnapshot> s) {
        return s.map(q -> "board at " + q.at() + ": running " + q.board().running().stream().map(StatusBoard.Running::no).toList()
                + ", pending " + q.board().pending().stream().map(StatusBoard.Pending::no).toList()).orElse("no board");
    }

    private static boolean runs(Optional<QueueSnapshot> s, int no) {
        return s.isPresent() && s.get().board().running().stream().anyMatch(r -> r.no() == no);
    }

    @Test
    void aJobThatStartedIsInTheSnapshotAskedForAfterIt_evenWhileItsRoundIsStillUnderWay() throws Exception {
        List<JobSpec> jobs = java.util.stream.Stream.of("[vram=1G name=prep] prep.sh", "[vram=1G after=prep] a.sh",
                "[vram=1G after=prep] b.sh").map(JobSpec::parse).map(j -> j.withKey(JobKeys.key(j.command(), 0))).toList();
        Engine engine = loop.start(sink -> new Engine(new StubBackend(1, 24000), FAST, logs, false,
                new JobsSource(Optional.empty(), jobs), sink,
                new Engine.Ports(procs, new LoopClock(Instant::now, System::nanoTime), Optional.of(slowThird))));
        FakeRunDriver.Run prep = runs.nextStart();
        runs.exit(prep, "", 0);
        // Its end lets a.sh and b.sh start in one round: a.sh runs, and the loop is held in b.sh's spawn.
        FakeRunDriver.Run a = runs.nextStart();
        assertEquals(2, a.no());
        Optional<QueueSnapshot> last = engine.snapshot();
        assertTrue(!runs(last, 2), "the last board is the round's before: " + shown(last));

        CompletableFuture<Optional<QueueSnapshot>> asked = engine.whenSnapshotCurrent().thenApply(x -> engine.snapshot());
        spawnOfThree.countDown();
        Optional<QueueSnapshot> answer = asked.get(10, TimeUnit.SECONDS);
        assertTrue(runs(answer, 2), "asked after job 2 started, the snapshot must show it running; " + shown(answer)
                + " (asked while the board was " + shown(last) + ")");
        assertTrue(runs(answer, 3), "the same round's board: " + shown(answer));

        FakeRunDriver.Run b = runs.nextStart();
        runs.exit(a, "", 0);
        runs.exit(b, "", 0);
        loop.run().get(10, TimeUnit.SECONDS);
        assertTrue(engine.whenSnapshotCurrent().isDone(), "after the last board, nothing is waited for");
    }
}

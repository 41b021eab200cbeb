package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.table.JobsSource;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.model.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run a restarted scheduler takes up is timed as the scheduler that started it would have timed it: on
 * the ticker ({@code System.nanoTime}, {@code CLOCK_MONOTONIC}, which stops while the machine is suspended),
 * not by the kernel's clock since boot ({@code /proc/uptime}, {@code CLOCK_BOOTTIME}, which counts the
 * suspend). Its {@code started} line gives the ticker at its launch ({@code ticker_ns}). Before, a laptop
 * suspended overnight timed out at restart every job it took up. With no process: the kernel's figure is a
 * {@link FakeProcTable}'s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SuspendedWhileTakenUpTest {
    @TempDir
    Path logs;

    private final FakeProcTable procs = new FakeProcTable();
    private final FakeRunDriver driver = new FakeRunDriver(procs);
    private final EngineUnderTest loop = new EngineUnderTest();
    private final JobSpec job = JobSpec.parse("[vram=1G timeout=1h] train.sh").withKey(JobKeys.key("train.sh", 0));

    @AfterEach
    void stop() throws Exception {
        loop.stop();
    }

    /** A dead scheduler's journal: job 1 started in session {@code sid}, at {@code ticker} on its ticker when given. */
    private void startedByADeadScheduler(long sid, OptionalLong ticker) throws Exception {
        try (Journal j = Journal.open(logs.resolve("journal.jsonl"), false)) {
            j.append(List.of(new JournalEvent.Seen(job.key(), 1, job.command()),
                    new JournalEvent.Launching(job.key(), 1, List.of(0)), new JournalEvent.Started(job.key(), sid, List.of(0),
                            OptionalLong.of(1024), Optional.empty(), List.of(), ticker)));
        }
        Files.writeString(Files.createDirectories(logs.resolve("runs")).resolve("job001.run1.pid"), sid + "\n");
        procs.live(sid);
    }

    private Duration takenUpAndShown() throws Exception {
        loop.start(sink -> new Engine(new StubBackend(1, 24000), FakeDriverEngine.FAST.withWatch(false), logs, false,
                new JobsSource(Optional.empty(), List.of(job)), sink,
                new Engine.Ports(procs, new LoopClock(Instant::now, System::nanoTime), Optional.of(driver))));
        loop.run();
        loop.await(SchedulerEvent.OrphanAdopted.class, a -> a.no() == 1);
        Thread.sleep(400); // some 20 rounds: time for a limit to be enforced, were it due
        assertFalse(loop.events().stream().anyMatch(e -> e instanceof SchedulerEvent.JobStopping),
                "stopped for a limit it has not reached on the ticker: " + loop.events());
        SchedulerEvent.StatusUpdated board = loop.await(SchedulerEvent.StatusUpdated.class, u -> !u.board().running().isEmpty());
        return board.board().running().get(0).elapsed();
    }

    @Test
    void aRunTakenUpAfterTheMachineWasSuspended_isTimedOnTheTicker_notTheBootClock() throws Exception {
        // Launched 5 minutes ago on the ticker; the kernel's clock since boot says 2 hours: 1 h 55 min suspended.
        startedByADeadScheduler(5002, OptionalLong.of(System.nanoTime() - Duration.ofMinutes(5).toNanos()));
        procs.ranNanos.put(5002L, Duration.ofHours(2).toNanos());
        Duration shown = takenUpAndShown();
        assertTrue(shown.compareTo(Duration.ofMinutes(5)) >= 0 && shown.compareTo(Duration.ofMinutes(6)) < 0,
                "it has run 5 minutes on the ticker: " + shown);
        Files.writeString(logs.resolve("runs/job001.run1.exit"), "0\n");
        procs.end(5002, 0);
        assertEquals(JobStatus.OK, loop.finished(1).status());
    }

    @Test
    void aTickerFigureAboveTheKernels_isFromAnotherOrigin_andTheKernelsStands() throws Exception {
        // Three hours on this ticker, one minute by the kernel: the ticker cannot run ahead of the boot clock.
        startedByADeadScheduler(5003, OptionalLong.of(System.nanoTime() - Duration.ofHours(3).toNanos()));
        procs.ranNanos.put(5003L, Duration.ofMinutes(1).toNanos());
        Duration shown = takenUpAndShown();
        assertTrue(shown.compareTo(Duration.ofMinutes(1)) >= 0 && shown.compareTo(Duration.ofMinutes(2)) < 0,
                "the kernel's minute: " + shown);
    }

    @Test
    void anOlderStartedLine_withoutTheTicker_isTimedByTheKernelAsBefore() throws Exception {
        startedByADeadScheduler(5004, OptionalLong.empty());
        procs.ranNanos.put(5004L, Duration.ofMinutes(1).toNanos());
        Duration shown = takenUpAndShown();
        assertTrue(shown.compareTo(Duration.ofMinutes(1)) >= 0 && shown.compareTo(Duration.ofMinutes(2)) < 0, "" + shown);
    }

    @Test
    void theTickerIsJournaledAtLaunch_survivesCompaction_andOlderLinesReadWithoutIt() throws Exception {
        io.gpusched.journal.JournalCodec codec = new io.gpusched.journal.JournalCodec();
        String older = "{\"event\":\"started\",\"key\":\"" + job.key() + "\",\"pgid\":5005,\"gpus\":[0]}";
        JournalEvent.Started read = (JournalEvent.Started) codec.decode(older).orElseThrow();
        assertEquals(OptionalLong.empty(), read.tickerNanos());
        JournalEvent.Started now = new JournalEvent.Started(job.key(), 5005, List.of(0), OptionalLong.empty(),
                Optional.empty(), List.of(), OptionalLong.of(123_456_789_000L));
        String line = codec.encode(now);
        assertTrue(line.contains("\"ticker_ns\":123456789000"), line);
        assertEquals(now, codec.decode(line).orElseThrow());
        JournalState state = new JournalState();
        state.apply(new JournalEvent.Seen(job.key(), 1, job.command()));
        state.apply(now);
        assertEquals(OptionalLong.of(123_456_789_000L), state.startedTicker(job.key()));
        assertTrue(io.gpusched.journal.Compaction.of(state, 0).contains(now), "compaction keeps it");
        state.apply(new JournalEvent.Interrupted(job.key()));
        assertEquals(OptionalLong.empty(), state.startedTicker(job.key()));
    }
}

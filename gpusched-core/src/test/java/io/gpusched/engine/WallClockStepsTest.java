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
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobStatus;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wall clock steps while jobs run, as it does on lab machines (an admin's {@code date -s}, NTP
 * correcting a bad RTC after boot), or stepped while no scheduler ran: every limit is timed on the
 * loop's monotonic ticker, and only dates follow the wall. The engine's wall clock here is the real one
 * plus an offset the test sets; its ticker is {@link System#nanoTime()}, which no step moves. Runs start
 * no process ({@link FakeRunDriver}, {@link FakeProcTable}).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WallClockStepsTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(300));
    private static final Duration DAY = Duration.ofDays(1);

    @TempDir
    Path logs;

    private final FakeProcTable procs = new FakeProcTable();
    private final FakeRunDriver driver = new FakeRunDriver(procs);
    private final EngineUnderTest loop = new EngineUnderTest();
    /** How far the engine's wall clock is set from the real one. */
    private final AtomicReference<Duration> step = new AtomicReference<>(Duration.ZERO);
    private Engine engine;

    @AfterEach
    void stop() throws Exception {
        loop.stop();
    }

    private void start(String... lines) {
        start(FAST, lines);
    }

    private void start(SchedulerOptions options, String... lines) {
        List<JobSpec> jobs = new java.util.ArrayList<>();
        for (String line : lines) {
            JobSpec j = JobSpec.parse(line);
            jobs.add(j.withKey(JobKeys.key(j.command(), 0)));
        }
        engine = loop.start(sink -> new Engine(new StubBackend(1, 24000), options, logs, false,
                new JobsSource(Optional.empty(), jobs), sink,
                new Engine.Ports(procs, new LoopClock(() -> Instant.now().plus(step.get()), System::nanoTime),
                        Optional.of(driver))));
        loop.run();
    }

    /** Twenty rounds at least: time for a wrongly timed limit to be enforced, were it due. */
    private static void severalRounds() throws InterruptedException {
        Thread.sleep(400);
    }

    private boolean stopped(int no) {
        return loop.events().stream().anyMatch(e -> e instanceof SchedulerEvent.JobStopping s && s.no() == no);
    }

    /** A dead scheduler's journal: job 1 started, its session {@code sid}, its pid file dated {@code pidFileAt}. */
    private void startedByADeadScheduler(JobSpec job, long sid, Instant pidFileAt) throws Exception {
        try (Journal j = Journal.open(logs.resolve("journal.jsonl"), false)) {
            j.append(List.of(new JournalEvent.Seen(job.key(), 1, job.command()),
                    new JournalEvent.Launching(job.key(), 1, List.of(0)), new JournalEvent.Started(job.key(), sid, List.of(0))));
        }
        Path pid = Files.createDirectories(logs.resolve("runs")).resolve("job001.run1.pid");
        Files.writeString(pid, sid + "\n");
        Files.setLastModifiedTime(pid, FileTime.from(pidFileAt));
        procs.live(sid);
    }

    @Test
    void aWallClockSetADayForwardDoesNotTimeOutARunningJob_itsHourCountsOnTheTicker() throws Exception {
        start("[vram=1G timeout=1h] train.sh");
        FakeRunDriver.Run r = driver.nextStart();
        loop.await(SchedulerEvent.JobStarted.class, s -> s.no() == 1);

        step.set(DAY);
        severalRounds();

        assertFalse(stopped(1), "stopped for a timeout it has not reached: " + loop.events());
        assertTrue(procs.signals.isEmpty(), "no signal: " + procs.signals);
        driver.exit(r, "", 0);
        assertEquals(JobStatus.OK, loop.finished(1).status());
    }

    @Test
    void aWallClockSetADayBackStillSendsSigkillWhenTheGraceEnds_notADayLater() throws Exception {
        start("[vram=1G] stubborn.sh");
        FakeRunDriver.Run r = driver.nextStart();
        procs.ignoreSigterm.add(r.sid());
        loop.await(SchedulerEvent.JobStarted.class, s -> s.no() == 1);

        assertEquals(CancelOutcome.STOPPING, engine.cancel(1).get(10, TimeUnit.SECONDS));
        loop.await(SchedulerEvent.JobStopping.class, s -> s.no() == 1);
        step.set(DAY.negated());

        loop.await(SchedulerEvent.KillEscalated.class, k -> k.no() == 1);
        assertEquals(List.of(new FakeProcTable.Signal(r.sid(), false), new FakeProcTable.Signal(r.sid(), true)),
                procs.signals.stream().distinct().toList());
        assertEquals(JobStatus.CANCELLED, loop.finished(1).status());
    }

    @Test
    void aWallClockSetADayBackShowsNoNegativeRunningTime_andTheEndedJobsDurationIsItsRealOne() throws Exception {
        start("[vram=1G] train.sh");
        FakeRunDriver.Run r = driver.nextStart();
        loop.await(SchedulerEvent.JobStarted.class, s -> s.no() == 1);

        step.set(DAY.negated());
        SchedulerEvent.StatusUpdated board = loop.await(SchedulerEvent.StatusUpdated.class,
                u -> u.at().isBefore(Instant.now().minus(Duration.ofHours(12))) && !u.board().running().isEmpty());
        Duration shown = board.board().running().get(0).elapsed();
        assertFalse(shown.isNegative(), "running for " + shown);
        assertTrue(shown.compareTo(Duration.ofHours(1)) < 0, "running for " + shown);

        driver.exit(r, "", 0);
        Duration took = loop.finished(1).duration();
        assertFalse(took.isNegative(), "took " + took);
        assertTrue(took.compareTo(Duration.ofHours(1)) < 0, "took " + took);
    }

    @Test
    void aJobTakenUpAfterTheWallClockWasSetADayForward_keepsItsLimitFromItsRealStartByTheKernelsClock() throws Exception {
        JobSpec job = JobSpec.parse("[vram=1G timeout=1h] train.sh").withKey(JobKeys.key("train.sh", 0));
        // The clock was set a day forward after the job started: its pid file's date is a day and a minute
        // ago by the wall, while the kernel counts the minute it has really run.
        startedByADeadScheduler(job, 5002, Instant.now().minus(DAY).minus(Duration.ofMinutes(1)));
        procs.ranNanos.put(5002L, Duration.ofMinutes(1).toNanos());
        start("[vram=1G timeout=1h] train.sh");

        loop.await(SchedulerEvent.OrphanAdopted.class, a -> a.no() == 1);
        severalRounds();

        assertFalse(stopped(1), "timed out at once on the wall's day: " + loop.events());
        SchedulerEvent.StatusUpdated board = loop.await(SchedulerEvent.StatusUpdated.class, u -> !u.board().running().isEmpty());
        Duration shown = board.board().running().get(0).elapsed();
        assertTrue(shown.compareTo(Duration.ofMinutes(1)) >= 0 && shown.compareTo(Duration.ofMinutes(2)) < 0,
                "it has run a minute and a little: " + shown);
        Files.writeString(logs.resolve("runs/job001.run1.exit"), "0\n");
        procs.end(5002, 0);
        assertEquals(JobStatus.OK, loop.finished(1).status());
    }

    @Test
    void anSrunLeaseTakenUpAfterTheWallClockWasSetADayForward_isTimedByItsCommandsProcess_notItsPidFilesDate()
            throws Exception {
        JobSpec job = JobSpec.parse("[vram=1G timeout=1h] train.sh").withKey(JobKeys.key("train.sh", 0));
        long handle = io.gpusched.journal.RunHandle.LEASE_SESSIONS + 1;
        startedByADeadScheduler(job, handle, Instant.now().minus(DAY).minus(Duration.ofMinutes(1)));
        // Its command runs in its client's terminal: process 6001, carrying the run's token, a minute old.
        procs.live(6001);
        procs.carriers.put(new io.gpusched.engine.spawn.RunNames(logs, logs.resolve("journal.jsonl")).entry(1), List.of(6001L));
        procs.ranNanos.put(6001L, Duration.ofMinutes(1).toNanos());
        start("[vram=1G timeout=1h] train.sh");

        loop.await(SchedulerEvent.OrphanAdopted.class, a -> a.no() == 1);
        severalRounds();

        assertFalse(stopped(1), "timed out at once on the wall's day: " + loop.events());
        SchedulerEvent.StatusUpdated board = loop.await(SchedulerEvent.StatusUpdated.class, u -> !u.board().running().isEmpty());
        Duration shown = board.board().running().get(0).elapsed();
        assertTrue(shown.compareTo(Duration.ofMinutes(1)) >= 0 && shown.compareTo(Duration.ofMinutes(2)) < 0,
                "it has run a minute and a little: " + shown);
    }

    @Test
    void aJobTakenUpWhosePidFileIsDatedInTheFuture_timesOutAfterItsLimit_notAfterTheDifferenceToo() throws Exception {
        JobSpec job = JobSpec.parse("[vram=1G timeout=1s] train.sh").withKey(JobKeys.key("train.sh", 0));
        // Started while the clock was a day ahead, since set right; the kernel's clock cannot be read here.
        startedByADeadScheduler(job, 5003, Instant.now().plus(DAY));
        start("[vram=1G timeout=1s] train.sh");

        loop.await(SchedulerEvent.OrphanAdopted.class, a -> a.no() == 1);
        SchedulerEvent.JobStopping s = loop.await(SchedulerEvent.JobStopping.class, e -> e.no() == 1);
        assertEquals(SchedulerEvent.StopReason.TIMEOUT, s.why());
        assertFalse(s.elapsed().isNegative(), "ran " + s.elapsed());
        assertFalse(s.resumed(), "a timeout this scheduler reached, not one taken up from the last");
        assertEquals(JobStatus.TIMEOUT, loop.finished(1).status());
    }

    @Test
    void aWallClockSetADayBackDoesNotHoldTheHeadJobsReservationADay() throws Exception {
        start(FAST.withWatch(true).withPolicy(FAST.policy().withReserveAfter(Duration.ofMillis(300))),
                "[vram=20G] a.sh", "[vram=20G] b.sh");
        driver.nextStart();
        loop.await(SchedulerEvent.JobStarted.class, s -> s.no() == 1);

        step.set(DAY.negated());

        SchedulerEvent.Reserved r = loop.await(SchedulerEvent.Reserved.class, e -> e.reservation().no() == 2);
        assertTrue(r.reservation().waited().compareTo(Duration.ofMinutes(1)) < 0, "waited " + r.reservation().waited());
    }

    @Test
    void aWallClockSetADayForwardDoesNotAgeTheWaitingJobsADay_aLaterHigherPriorityJobStillGoesFirst() throws Exception {
        start(FAST.withWatch(true), "[vram=20G] a.sh", "[vram=20G] b.sh");
        FakeRunDriver.Run a = driver.nextStart();
        loop.await(SchedulerEvent.JobStarted.class, s -> s.no() == 1);

        step.set(DAY);
        int c = engine.submit(JobSpec.parse("[vram=20G priority=5] c.sh"),
                new io.gpusched.model.SubmitContext("alice", logs, Optional.empty()), new java.util.concurrent.CompletableFuture<>(),
                Optional.empty()).get(10, TimeUnit.SECONDS);
        loop.await(SchedulerEvent.StatusUpdated.class, u -> u.board().pending().size() == 2);
        driver.exit(a, "", 0);

        FakeRunDriver.Run next = driver.nextStart();
        assertEquals(c, next.no(), "priority 5 goes before priority 0 that waited seconds, not a day; events: "
                + loop.events().stream().filter(e -> !(e instanceof SchedulerEvent.StatusUpdated)).toList());
    }
}

package io.gpusched.engine;

import io.gpusched.engine.spawn.JobLauncher;
import io.gpusched.engine.spawn.OwnerLaunch;
import io.gpusched.engine.spawn.SpawnServer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a restarted scheduler does with the runs a killed one left behind: the journal's
 * {@code launching}/{@code started} lines and each run's pid and exit-status files. Each test writes
 * the dead scheduler's journal by hand and runs a real scheduler on it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecoveryTest {
    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    private Path logs() {
        return dir.resolve("logs");
    }

    private RunSummary run(JobSpec job) {
        return Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(logs())
                .jobs(List.of(job)).listener(events::add).build().run();
    }

    /** A job that appends a line to {@code marker} each time its command runs. */
    private JobSpec countingJob(String extra) {
        return JobSpec.parse("[vram=1G] " + extra + "echo ran >> " + dir.resolve("marker"));
    }

    private int runs() throws IOException {
        Path marker = dir.resolve("marker");
        return Files.exists(marker) ? (int) Files.readAllLines(marker).stream().filter("ran"::equals).count() : 0;
    }

    private void deadSchedulerWrote(JournalEvent... lines) {
        try (Journal j = Journal.open(logs().resolve("journal.jsonl"), false)) {
            j.append(List.of(lines));
        }
    }

    /**
     * What a scheduler killed while run 1 of {@code job} ran leaves: its journal, the run's session
     * gone, and the run's exit file when the command had ended ({@code exitFileText}, as written).
     */
    private void deadSchedulerLeftOrphan(JobSpec job, Optional<String> exitFileText) throws Exception {
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                new JournalEvent.Launching(job.key(), 1, List.of(0)),
                new JournalEvent.Started(job.key(), deadPid(), List.of(0)));
        if (exitFileText.isPresent()) {
            Files.createDirectories(logs().resolve("runs"));
            Files.writeString(logs().resolve("runs/job001.run1.exit"), exitFileText.get());
        }
    }

    /**
     * What a scheduler killed while run 1 of {@code job} ran leaves when the run goes on: its journal
     * (seen, launching, started) and the run itself, still running in its wrapper.
     */
    private Process deadSchedulerLeftRunning(JobSpec job) throws Exception {
        return deadSchedulerLeftRunning(job, 1);
    }

    /** As {@link #deadSchedulerLeftRunning(JobSpec)}, for job {@code no}, whose run is run {@code no}. */
    private Process deadSchedulerLeftRunning(JobSpec job, int no) throws Exception {
        String stem = String.format("runs/job%03d.run%d", no, no);
        Process orphan = wrapped(job.command(), logs().resolve(stem + ".pid"), logs().resolve(stem + ".exit"), token(no));
        awaitFile(logs().resolve(stem + ".pid"));
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), no, job.command()),
                new JournalEvent.Launching(job.key(), no, List.of(0)),
                new JournalEvent.Started(job.key(), orphan.pid(), List.of(0)));
        return orphan;
    }

    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    private JobRecord finalRecord(JobSpec job) {
        try (Journal j = Journal.open(logs().resolve("journal.jsonl"), false)) {
            return j.state().record(job.key());
        }
    }

    private String token(long run) {
        return logs().resolve("journal.jsonl").toAbsolutePath() + "#" + run;
    }

    @Test
    void jobThatFinishedWhileNoSchedulerWatchedIsRecordedAndNotRunAgain() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.empty());
        Files.createDirectories(logs().resolve("runs"));
        Files.writeString(logs().resolve("runs/job001.run1.exit"), "0\n");

        RunSummary s = run(job);

        assertEquals(0, runs(), "the command ran again although it had completed");
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertEquals(io.gpusched.model.Measurement.UNWATCHED, s.results().get(0).measurement());
        assertEquals("ok", finalRecord(job).status());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w
                && w.message().contains("while no scheduler was watching")));
    }

    @Test
    void unwatchedJobsDurationIsTakenFromItsRunFiles() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.of("0\n"));
        Path pid = logs().resolve("runs/job001.run1.pid");
        Files.writeString(pid, deadPid() + "\n");
        // The wrapper wrote the pid file as the command started and the exit file 7.5 s later.
        java.nio.file.attribute.FileTime start = java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_000L);
        Files.setLastModifiedTime(pid, start);
        Files.setLastModifiedTime(logs().resolve("runs/job001.run1.exit"),
                java.nio.file.attribute.FileTime.fromMillis(1_700_000_007_500L));

        RunSummary s = run(job);

        assertEquals(0, runs());
        assertEquals(java.time.Duration.ofMillis(7500), s.results().get(0).duration());
    }

    @Test
    void orphanThatFailedWhileUnwatchedKeepsItsRealExitCode() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.empty());
        Files.createDirectories(logs().resolve("runs"));
        Files.writeString(logs().resolve("runs/job001.run1.exit"), "42\n");

        RunSummary s = run(job);

        assertEquals(0, runs());
        assertEquals(JobStatus.FAILED, s.results().get(0).status());
        assertEquals(42, s.results().get(0).exitCode());
        assertEquals(42, s.exitCode());
    }

    /**
     * A submission's output went to the file it was submitted with (its {@code --output}, or a root
     * scheduler's {@code <cwd>/gpusched-<no>.log}), not to the log directory: a run that ran out of GPU
     * memory while no scheduler watched is told by that file, as a watched one is, and retried.
     */
    @Test
    void anOrphanThatRanOutOfGpuMemoryWhileUnwatched_isToldByItsOwnOutputFile_andRetried() throws Exception {
        Path out = dir.resolve("train.out");
        Files.writeString(out, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
        String command = "echo ran >> " + dir.resolve("marker");
        deadSchedulerWrote(new JournalEvent.Submitted("s1", 1, command, java.util.OptionalLong.of(1024), 1,
                        java.util.OptionalLong.empty(), 1, "api", System.getProperty("user.name"), dir.toString(), 0L,
                        Optional.empty(), Optional.of("[vram=1G retries=1] " + command), Optional.of(out.toString()),
                        Optional.empty(), java.util.OptionalInt.empty()),
                new JournalEvent.Launching("s1", 1, List.of(0)),
                new JournalEvent.Started("s1", deadPid(), List.of(0)));
        Files.createDirectories(logs().resolve("runs"));
        Files.writeString(logs().resolve("runs/job001.run1.exit"), "1\n");

        RunSummary s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(logs())
                .jobs(List.of()).listener(events::add).build().run();

        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.RequeuedAfterOom r && r.no() == 1), events.toString());
        assertEquals(1, runs(), "the retry ran once");
        assertEquals(List.of(JobStatus.OK), s.results().stream().map(r -> r.status()).toList());
    }

    @Test
    void orphanKilledBeforeItsCommandEndedRunsAgainOnce() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.empty());

        RunSummary s = run(job);

        assertEquals(1, runs());
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanRequeued));
    }

    @Test
    void halfWrittenExitFileIsNotTakenAsAnOutcome() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.of("1")); // no newline: the writer died mid-write

        RunSummary s = run(job);

        assertEquals(1, runs());
        assertEquals(JobStatus.OK, s.results().get(0).status());
    }

    @Test
    void launchIntentWithNoTraceOfASpawnRunsTheJobOnce() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                new JournalEvent.Launching(job.key(), 1, List.of(0)));

        RunSummary s = run(job);

        assertEquals(1, runs());
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertEquals(2, Files.readAllLines(logs().resolve("journal.jsonl")).stream()
                .filter(l -> l.contains("\"launching\"")).count(), "a second run gets a new run number");
    }

    @Test
    void spawnedJobWhoseStartedLineWasLostIsWaitedForAndNotRelaunched() throws Exception {
        JobSpec job = countingJob("sleep 1; ");
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                new JournalEvent.Launching(job.key(), 1, List.of(0)));
        Process orphan = wrapped(job.command(), logs().resolve("runs/job001.run1.pid"),
                logs().resolve("runs/job001.run1.exit"), token(1));
        awaitFile(logs().resolve("runs/job001.run1.pid"));

        RunSummary s = run(job);

        assertFalse(orphan.isAlive());
        assertEquals(1, runs(), "the orphan was launched a second time");
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanAdopted));
    }

    @Test
    void anOrphanOnAGpuTheMachineNoLongerListsIsTakenUpAgainAndSaysSoOnce() throws Exception {
        JobSpec job = JobSpec.parse("[vram=1G gpu-ids=3] sleep 30; echo ran >> " + dir.resolve("marker"));
        Process orphan = wrapped(job.command(), logs().resolve("runs/job001.run1.pid"),
                logs().resolve("runs/job001.run1.exit"), token(1));
        awaitFile(logs().resolve("runs/job001.run1.pid"));
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                new JournalEvent.Launching(job.key(), 1, List.of(3)),
                new JournalEvent.Started(job.key(), orphan.pid(), List.of(3)));
        // The same state, three GPUs now (gpu 3 fell off the bus, or MIG instances were destroyed).
        Scheduler s = Scheduler.builder().backend(new StubBackend(3, 24000)).options(FAST).logDir(logs())
                .jobs(List.of(job)).listener(events::add).build();
        CompletableFuture<RunSummary> done = CompletableFuture.supplyAsync(s::run);
        try {
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(20)) {
                if (events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanAdopted a && a.no() == 1)) {
                    break;
                }
                assertTrue(System.nanoTime() < end, "not taken up: " + events);
            }
            Thread.sleep(300); // several rounds: said once, not per round
            List<String> said = events.stream().filter(e -> e instanceof SchedulerEvent.Warning)
                    .map(e -> ((SchedulerEvent.Warning) e).message()).filter(m -> m.contains("gpu 3")).toList();
            assertEquals(List.of("job 1 was running on gpu 3, which this machine does not list now (GPUs: 0, 1, 2):"
                    + " taken up again, but its memory there cannot be measured (if the GPUs were renumbered, it counts"
                    + " as another process's where it really runs); gpusched cancel 1 stops it"), said);
            assertTrue(orphan.isAlive(), "the run was stopped");
            assertEquals(io.gpusched.model.CancelOutcome.STOPPING, s.cancel(1));
            RunSummary summary = done.get(20, TimeUnit.SECONDS);
            assertEquals(JobStatus.CANCELLED, summary.results().get(0).status());
            assertEquals(0, runs(), "never started again");
        } finally {
            orphan.destroyForcibly();
        }
    }

    /**
     * Started on gpu 1 (GPU-bbbb), then the GPUs renumbered while no scheduler ran (MIG instances made on
     * gpu 0, say): GPU-bbbb is gpu 2 now. Its started line names its device, so the restarted scheduler
     * counts its declaration there, and a job pinned to GPU-bbbb waits. Before, the journal kept indices
     * only, the declaration was held on whatever gpu 1 is now, and the pinned job ran over it at once.
     */
    @Test
    void anOrphanWhoseGpuWasRenumberedHoldsItsDeclarationOnTheDeviceItsStartedLineNames_notOnItsOldIndex() throws Exception {
        JobSpec big = JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] sleep 30; echo ran >> " + dir.resolve("marker"));
        JobSpec small = JobSpec.parse("[vram=20G gpu-ids=GPU-bbbb] echo small >> " + dir.resolve("small"));
        Process orphan = wrapped(big.command(), logs().resolve("runs/job001.run1.pid"),
                logs().resolve("runs/job001.run1.exit"), token(1));
        awaitFile(logs().resolve("runs/job001.run1.pid"));
        deadSchedulerWrote(new JournalEvent.Seen(big.key(), 1, big.command()),
                new JournalEvent.Launching(big.key(), 1, List.of(1)),
                new JournalEvent.Started(big.key(), orphan.pid(), List.of(1), java.util.OptionalLong.of(20480),
                        java.util.Optional.empty(), List.of("GPU-bbbb")));
        Scheduler s = Scheduler.builder().backend(new UuidBackend("GPU-aaaa", "GPU-cccc", "GPU-bbbb")).options(FAST)
                .logDir(logs()).jobs(List.of(big, small)).listener(events::add).build();
        CompletableFuture<RunSummary> done = CompletableFuture.supplyAsync(s::run);
        try {
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(20)) {
                boolean waits = s.snapshot().map(q -> q.board().pending().stream().anyMatch(p -> p.no() == 2)
                        && q.board().running().stream().anyMatch(r -> r.no() == 1)).orElse(false);
                if (waits) {
                    break;
                }
                assertTrue(System.nanoTime() < end, "the taken-up job runs and the pinned one waits: " + events);
            }
            Thread.sleep(300);
            assertFalse(Files.exists(dir.resolve("small")), "placed over the taken-up job's declaration on GPU-bbbb");
            assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w && w.message().equals(
                    "gpu 1 (GPU-bbbb), where job 1 runs, is listed as gpu 2 now: the GPUs were renumbered (MIG instances"
                            + " created or destroyed?); its declaration and memory are counted on gpu 2")), events.toString());
            assertEquals(io.gpusched.model.CancelOutcome.STOPPING, s.cancel(1));
            RunSummary summary = done.get(20, TimeUnit.SECONDS);
            io.gpusched.model.JobResult second = summary.results().stream().filter(r -> r.no() == 2).findFirst().orElseThrow();
            assertEquals(JobStatus.OK, second.status());
            assertEquals(List.of(2), second.gpus());
            assertEquals(0, runs(), "never started again");
        } finally {
            orphan.destroyForcibly();
        }
    }

    @Test
    void anOrphanStillRunningIsTakenUpAgain_itsDeclarationHoldsItsGpuAndCancelStopsIt() throws Exception {
        JobSpec big = JobSpec.parse("[vram=20G] sleep 30; echo ran >> " + dir.resolve("marker"));
        JobSpec small = JobSpec.parse("[vram=10G] echo small >> " + dir.resolve("small"));
        Process orphan = deadSchedulerLeftRunning(big);
        // The stub GPU shows no memory in use: only the orphan's declaration can keep the small job off it.
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(logs())
                .jobs(List.of(big, small)).listener(events::add).build();
        CompletableFuture<RunSummary> done = CompletableFuture.supplyAsync(s::run);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(20)) {
            boolean waits = s.snapshot().map(q -> q.board().pending().stream().anyMatch(p -> p.no() == 2)
                    && q.board().running().stream().anyMatch(r -> r.no() == 1)).orElse(false);
            if (waits) {
                break;
            }
            assertTrue(System.nanoTime() < end, "the taken-up job runs and the small one waits behind its declaration");
        }
        Thread.sleep(300);
        assertFalse(Files.exists(dir.resolve("small")), "nothing was placed over the taken-up job's declaration");
        assertEquals(io.gpusched.model.CancelOutcome.STOPPING, s.cancel(1));
        RunSummary summary = done.get(20, TimeUnit.SECONDS);
        assertTrue(orphan.waitFor(5, TimeUnit.SECONDS), "cancel stopped the taken-up job's session");
        assertEquals(List.of(JobStatus.CANCELLED, JobStatus.OK), summary.results().stream()
                .sorted(java.util.Comparator.comparingInt(io.gpusched.model.JobResult::no)).map(io.gpusched.model.JobResult::status).toList());
        assertEquals(0, runs(), "never started again");
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanAdopted a && a.no() == 1));
    }

    /** The line a scheduler writes as it sends a job SIGTERM on purpose, at {@code ticker} on its ticker. */
    private static JournalEvent.Stopping stopping(JobSpec job, String reason, long ticker) {
        return new JournalEvent.Stopping(job.key(), reason, false, java.util.OptionalLong.of(ticker));
    }

    @Test
    void aJobCancelledJustBeforeItsSchedulerDied_thatEndedUnwatchedWithSigtermsStatus_isRecordedCancelled_notFailed() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.of("143\n"));
        deadSchedulerWrote(stopping(job, JournalEvent.Stopping.CANCELLED, System.nanoTime()));

        RunSummary s = run(job);

        assertEquals(JobStatus.CANCELLED, s.results().get(0).status(), "before: failed, exit 143");
        assertEquals("cancelled", finalRecord(job).status());
        assertEquals(0, runs());
    }

    @Test
    void aCancelledJobKilledBeforeItsWrapperWroteAStatus_isRecordedCancelled_andNeverRunAgain() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.empty());
        deadSchedulerWrote(stopping(job, JournalEvent.Stopping.CANCELLED, System.nanoTime()));

        RunSummary s = run(job);

        assertEquals(0, runs(), "before: taken for an interrupted run, and run again after its cancel");
        assertEquals(JobStatus.CANCELLED, s.results().get(0).status());
        assertTrue(events.stream().noneMatch(e -> e instanceof SchedulerEvent.OrphanRequeued));
    }

    @Test
    void aJobPreemptedJustBeforeItsSchedulerDied_thatEndedUnwatched_goesBackToTheQueueAndRunsAgain() throws Exception {
        JobSpec job = countingJob("");
        deadSchedulerLeftOrphan(job, Optional.of("143\n"));
        deadSchedulerWrote(stopping(job, JournalEvent.Stopping.PREEMPTED, System.nanoTime()));

        RunSummary s = run(job);

        assertEquals(1, runs(), "requeued, not failed with exit 143");
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobRequeued q && q.no() == 1
                && q.why() == SchedulerEvent.StopReason.PREEMPTED), events.toString());
    }

    @Test
    void aRunTakenUpWhileItsCancelWasInItsGrace_isKilledWhenThatGraceEnds_andRecordedCancelled() throws Exception {
        // It ignores SIGTERM: before, the next scheduler took it up as an ordinary run, which ran on.
        JobSpec job = JobSpec.parse("[vram=1G] trap '' TERM; sleep 30; echo ran >> " + dir.resolve("marker"));
        Process orphan = deadSchedulerLeftRunning(job);
        // Taken up beside it, not being stopped: it ends once the cancelled run is gone, so both are followed together.
        JobSpec beside = JobSpec.parse("[vram=1G] while kill -0 " + orphan.pid() + " 2>/dev/null; do sleep 0.05; done");
        Process besideRun = deadSchedulerLeftRunning(beside, 2);
        long cancelledAt = System.nanoTime();
        deadSchedulerWrote(stopping(job, JournalEvent.Stopping.CANCELLED, cancelledAt));

        RunSummary s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(logs())
                .jobs(List.of(job, beside)).listener(events::add).build().run();

        assertTrue(orphan.waitFor(5, TimeUnit.SECONDS), "the run was killed");
        assertTrue(besideRun.waitFor(5, TimeUnit.SECONDS));
        assertEquals(List.of(JobStatus.CANCELLED, JobStatus.OK), s.results().stream()
                .sorted(java.util.Comparator.comparingInt(io.gpusched.model.JobResult::no)).map(io.gpusched.model.JobResult::status).toList());
        assertTrue(System.nanoTime() - cancelledAt >= FAST.killGrace().toNanos(), "SIGKILL waited for the grace");
        assertEquals(0, runs());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanAdopted a && a.no() == 1));
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanAdopted a && a.no() == 2), events.toString());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w && w.message().startsWith(
                "job 1 was being cancelled when the last scheduler ended: the stop goes on, SIGKILL in")), events.toString());
        // Before: only the warning said it, and a script following the events saw job 1 end cancelled unstopped.
        List<SchedulerEvent.JobStopping> stops = events.stream().filter(e -> e instanceof SchedulerEvent.JobStopping)
                .map(e -> (SchedulerEvent.JobStopping) e).toList();
        assertEquals(1, stops.size(), "once, for the stop taken up, none for the run beside it: " + events);
        assertEquals(1, stops.get(0).no());
        assertEquals(SchedulerEvent.StopReason.CANCELLED, stops.get(0).why());
        assertEquals(Optional.empty(), stops.get(0).limit(), "it has no timeout=");
        assertFalse(stops.get(0).maxJobTime());
        assertTrue(stops.get(0).resumed(), "said to be the last scheduler's stop, taken up");
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.KillEscalated k && k.no() == 1));
    }

    @Test
    void aJournaledStopWhoseTickerIsNotOfThisRun_isSentAgain_withAFreshGrace() throws Exception {
        JobSpec job = JobSpec.parse("[vram=1G timeout=1h] sleep 30; echo ran >> " + dir.resolve("marker"));
        Process orphan = deadSchedulerLeftRunning(job);
        // A ticker from before the run began: not a SIGTERM this run got (another origin, a hand-edited line).
        deadSchedulerWrote(stopping(job, JournalEvent.Stopping.TIMEOUT, 0));

        RunSummary s = run(job);

        assertTrue(orphan.waitFor(5, TimeUnit.SECONDS));
        assertEquals(JobStatus.TIMEOUT, s.results().get(0).status());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w && w.message().contains(
                "was being timed out when the last scheduler ended: the stop goes on (SIGTERM sent again")), events.toString());
        assertTrue(events.stream().noneMatch(e -> e instanceof SchedulerEvent.KillEscalated), "sleep ends at SIGTERM");
        List<SchedulerEvent.JobStopping> stops = events.stream().filter(e -> e instanceof SchedulerEvent.JobStopping)
                .map(e -> (SchedulerEvent.JobStopping) e).toList();
        assertEquals(1, stops.size(), events.toString());
        assertEquals(SchedulerEvent.StopReason.TIMEOUT, stops.get(0).why());
        assertEquals(Optional.of(Duration.ofHours(1)), stops.get(0).limit(), "the limit the journal says it reached");
        assertTrue(stops.get(0).resumed());
    }

    @Test
    void aCancelledRunWhoseLeaderIsGoneButWhoseProcessLingers_isAskedAgain_andEndsCancelledOnceItGoes() throws Exception {
        // Its command left a child behind and ended: not taken up (no leader), waited for while its session lives.
        Path child = dir.resolve("child.pid");
        JobSpec job = JobSpec.parse("[vram=1G] sleep 30 & echo $! > " + child + "; echo ran >> " + dir.resolve("marker"));
        Process orphan = deadSchedulerLeftRunning(job);
        assertTrue(orphan.waitFor(10, TimeUnit.SECONDS), "the run's leader ended");
        awaitFile(child);
        long lingering = Long.parseLong(Files.readString(child).strip());
        deadSchedulerWrote(stopping(job, JournalEvent.Stopping.CANCELLED, System.nanoTime()));

        long t0 = System.nanoTime();
        RunSummary s = run(job);

        assertTrue(gone(lingering), "what was left of the cancelled run was asked to stop again");
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "before: waited for its 30 s sleep");
        assertEquals(JobStatus.CANCELLED, s.results().get(0).status(), "its status file said 0; its cancel decides");
        assertEquals(1, runs(), "its command ran once, before the cancel, and never again");
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanFound f && f.no() == 1), events.toString());
    }

    /**
     * Another user's process that leads its own session and got the number a dead scheduler's run had:
     * pids are given out again once a run's session is empty, and a user can steer which pid comes next.
     * It carries no run's environment entry.
     */
    private Process someoneElsesSession(String script) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("setsid", "/bin/sh", "-c", script);
        pb.environment().remove(JobLauncher.RUN_VARIABLE);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true);
        return pb.start();
    }

    @Test
    void aRunThatEndedWhileNoSchedulerRan_whosePidIsAnotherSessionsNow_isSettledFromItsExitFile_andThatSessionLeftAlone()
            throws Exception {
        JobSpec job = countingJob("");
        Path childPid = dir.resolve("their-child.pid");
        // Their leader lives 3 s and leaves a child in its session: a scheduler that took it for the run
        // would follow it, then kill the child as the run's leftover.
        Process theirs = someoneElsesSession("sleep 300 & echo $! > " + childPid + "; sleep 3");
        awaitFile(childPid);
        long child = Long.parseLong(Files.readString(childPid).strip());
        try {
            deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                    new JournalEvent.Launching(job.key(), 1, List.of(0)),
                    new JournalEvent.Started(job.key(), theirs.pid(), List.of(0)));
            Files.createDirectories(logs().resolve("runs"));
            Files.writeString(logs().resolve("runs/job001.run1.pid"), theirs.pid() + "\n");
            Files.writeString(logs().resolve("runs/job001.run1.exit"), "0\n");

            RunSummary s = run(job);

            assertEquals(JobStatus.OK, s.results().get(0).status());
            assertEquals(io.gpusched.model.Measurement.UNWATCHED, s.results().get(0).measurement());
            assertFalse(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanAdopted), events.toString());
            assertTrue(theirs.isAlive(), "their session's leader was signalled");
            assertTrue(theirs.waitFor(10, TimeUnit.SECONDS));
            Thread.sleep(200);
            assertTrue(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false), "their child was killed");
            assertEquals(0, runs(), "never started again");
        } finally {
            ProcessHandle.of(child).ifPresent(ProcessHandle::destroyForcibly);
            theirs.destroyForcibly();
        }
    }

    @Test
    void cancellingAnOrphanWhoseSessionNumberIsAnotherSessionsNow_signalsNoneOfItsProcesses() throws Exception {
        JobSpec job = countingJob("sleep 30; ");
        Path survived = dir.resolve("survived");
        // No exit file: the run's monitor died too, so nothing says the run ended; the session is waited
        // for, but what does not carry the run's entry is not the run's to stop.
        Process theirs = someoneElsesSession("sleep 2; echo yes > " + survived);
        try {
            deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                    new JournalEvent.Launching(job.key(), 1, List.of(0)),
                    new JournalEvent.Started(job.key(), theirs.pid(), List.of(0)));
            Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(logs())
                    .jobs(List.of(job)).listener(events::add).build();
            CompletableFuture<RunSummary> done = CompletableFuture.supplyAsync(s::run);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(20)) {
                if (events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanFound || e instanceof SchedulerEvent.OrphanAdopted)) {
                    break;
                }
                assertTrue(System.nanoTime() < end, "the orphan's session is found: " + events);
            }
            assertFalse(events.stream().anyMatch(e -> e instanceof SchedulerEvent.OrphanAdopted), "taken up: " + events);
            assertEquals(io.gpusched.model.CancelOutcome.CANCELLED, s.cancel(1));
            RunSummary summary = done.get(20, TimeUnit.SECONDS);
            assertTrue(theirs.waitFor(10, TimeUnit.SECONDS));
            assertTrue(Files.exists(survived), "their session was signalled");
            assertEquals(JobStatus.CANCELLED, summary.results().get(0).status());
            assertEquals(0, runs(), "never started again");
        } finally {
            theirs.destroyForcibly();
        }
    }

    @Test
    void anOrphanShareOfOneGpuTakenUpAgainHoldsWhatItsShareCameToOnItsGpu() throws Exception {
        JobSpec big = JobSpec.parse("[gpus=0.9] sleep 30; echo ran >> " + dir.resolve("marker"));
        JobSpec small = JobSpec.parse("[gpus=0.5] echo small >> " + dir.resolve("small"));
        Process orphan = deadSchedulerLeftRunning(big);
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(logs())
                .jobs(List.of(big, small)).listener(events::add).build();
        CompletableFuture<RunSummary> done = CompletableFuture.supplyAsync(s::run);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(20)) {
            // 0.9 of the 24000 MiB card, not undeclared: the board shows the declaration it holds.
            boolean held = s.snapshot().map(q -> q.board().running().stream()
                    .anyMatch(r -> r.no() == 1 && r.declaredMib().equals(java.util.OptionalLong.of(21600)))).orElse(false);
            if (held) {
                break;
            }
            assertTrue(System.nanoTime() < end, "the taken-up share holds 21600 MiB: " + s.snapshot());
        }
        assertEquals(io.gpusched.model.CancelOutcome.STOPPING, s.cancel(1));
        done.get(20, TimeUnit.SECONDS);
        assertTrue(orphan.waitFor(5, TimeUnit.SECONDS));
        assertEquals(0, runs(), "never started again");
    }

    @Test
    void spawnedJobFoundOnlyByItsRunTokenIsNotRelaunched() throws Exception {
        // The wrapper had not written its pid file yet (or could not): the run's environment entry
        // still identifies it.
        JobSpec job = countingJob("sleep 1; ");
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                new JournalEvent.Launching(job.key(), 1, List.of(0)));
        Path elsewhere = dir.resolve("not-the-pid-file");
        Process orphan = wrapped(job.command(), elsewhere, logs().resolve("runs/job001.run1.exit"), token(1));
        awaitFile(elsewhere);

        RunSummary s = run(job);

        assertFalse(orphan.isAlive());
        assertEquals(1, runs());
        assertEquals(JobStatus.OK, s.results().get(0).status());
    }

    @Test
    void anotherUsersProcessCarryingTheRunsToken_isNotTakenForTheLaunchADeadSchedulerLeft() throws Exception {
        assumeTrue(System.getProperty("user.name").equals("root") && Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "needs root and setpriv (util-linux) to start a process as nobody");
        JobSpec job = countingJob("");
        deadSchedulerWrote(new JournalEvent.Seen(job.key(), 1, job.command()),
                new JournalEvent.Launching(job.key(), 1, List.of(0)));
        // The token is the journal's path and the run's number, so anyone can carry it; taken for the
        // run, her process would be waited for as the run, the job held up for as long as she liked.
        ProcessBuilder pb = new ProcessBuilder("setsid", "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                "--clear-groups", "sleep", "120");
        pb.environment().put(JobLauncher.RUN_VARIABLE, token(1));
        Process hers = pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            Path comm = Path.of("/proc/" + hers.pid() + "/comm");
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                 !Files.readString(comm).startsWith("sleep"); Thread.sleep(5)) {
                assertTrue(System.nanoTime() < end && hers.isAlive(), "her process never became sleep");
            }

            RunSummary s = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> run(job), "the job waited for her process as its run");

            assertEquals(1, runs(), "the job ran once, itself");
            assertEquals(JobStatus.OK, s.results().get(0).status());
        } finally {
            hers.destroyForcibly().waitFor();
        }
    }

    @Test
    void aJobsLaunchIntentIsInTheJournalFileBeforeItsCommandRuns() throws Exception {
        // The job looks for its own intent: a scheduler killed the instant after the spawn must leave
        // a journal that names the run.
        Path seen = dir.resolve("intent.txt");
        JobSpec job = JobSpec.parse("[vram=1G] grep '\"event\": *\"launching\"' " + logs().resolve("journal.jsonl")
                + " | grep -c \"$GPUSCHED_JOB_KEY\" > " + seen);
        RunSummary s = run(job);
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertEquals("1", Files.readString(seen).strip());
    }

    @Test
    void commandRunsWithThePlainShellsArgumentsAndExitSemantics() throws Exception {
        Path out = dir.resolve("args.txt");
        JobSpec args = JobSpec.parse("[vram=1G] echo \"[$1][$#][$0]\" > " + out + "; exit 3");
        RunSummary s = run(args);
        assertEquals("[][0][sh]", Files.readString(out).strip());
        assertEquals(3, s.results().get(0).exitCode());
        assertEquals(JobStatus.FAILED, s.results().get(0).status());
        // The native helpers live there too (SpawnServer, OwnerLaunch); they are not a run's files.
        try (var left = Files.list(logs().resolve("runs"))
                .filter(f -> !f.getFileName().toString().startsWith(SpawnServer.RESOURCE)
                        && !f.getFileName().toString().startsWith(OwnerLaunch.RESOURCE))) {
            assertEquals(List.of(), left.toList(), "a journaled outcome leaves no run files behind");
        }
    }

    @Test
    void processesAJobLeavesBehindAreKilledWhenItEnds() throws Exception {
        Path daemonPid = dir.resolve("daemon.pid");
        Path childPid = dir.resolve("child.pid");
        // One daemon that leaves the session, one plain background child; the job itself exits at once.
        JobSpec job = JobSpec.parse("[vram=1G] setsid sh -c 'echo $$ > " + daemonPid + "; exec sleep 300' & "
                + "sleep 300 & echo $! > " + childPid + "; while [ ! -s " + daemonPid + " ]; do sleep 0.01; done");
        RunSummary s = run(job);
        assertEquals(JobStatus.OK, s.results().get(0).status());
        for (Path p : List.of(daemonPid, childPid)) {
            long pid = Long.parseLong(Files.readString(p).strip());
            assertTrue(gone(pid), "process " + pid + " from " + p.getFileName() + " outlived its job");
        }
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.Warning w
                && w.message().contains("left 2 processes running")), events.toString());
    }

    @Test
    void aProcessThatLeavesBothTheSessionAndTheRunOutlivesItsJob() throws Exception {
        // The documented way to start something meant to outlive its job (a TensorBoard server).
        Path keptPid = dir.resolve("kept.pid");
        JobSpec job = JobSpec.parse("[vram=1G] setsid env -u " + JobLauncher.RUN_VARIABLE + " sh -c 'echo $$ > " + keptPid
                + "; exec sleep 30' & while [ ! -s " + keptPid + " ]; do sleep 0.01; done");
        RunSummary s = run(job);
        assertEquals(JobStatus.OK, s.results().get(0).status());
        long pid = Long.parseLong(Files.readString(keptPid).strip());
        try {
            assertFalse(gone(pid), "a process that left the session and the run was killed");
        } finally {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private Process wrapped(String command, Path pidFile, Path exitFile, String token) throws IOException {
        Files.createDirectories(exitFile.getParent());
        ProcessBuilder pb = new ProcessBuilder("setsid", "/bin/sh", "-c", JobLauncher.WRAPPER, "sh",
                pidFile.toString(), exitFile.toString(), command);
        pb.environment().put(JobLauncher.RUN_VARIABLE, token);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true);
        return pb.start();
    }

    private static void awaitFile(Path p) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((!Files.exists(p) || Files.size(p) == 0) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(Files.exists(p), p + " never appeared");
    }

    private static boolean gone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < deadline) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                if (stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z")) {
                    return true;
                }
            } catch (IOException e) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }
}

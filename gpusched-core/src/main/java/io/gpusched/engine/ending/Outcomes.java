package io.gpusched.engine.ending;

import io.gpusched.engine.lease.Leases;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.observe.Measurer;
import io.gpusched.engine.observe.Timelines;
import io.gpusched.engine.proc.ProcFs;
import io.gpusched.engine.spawn.EnvironmentScript;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.spawn.OwnerLaunch;
import io.gpusched.engine.spawn.OwnerLogTail;
import io.gpusched.engine.spawn.RunFiles;
import io.gpusched.engine.spawn.RunNames;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.stop.Leftovers;
import io.gpusched.engine.table.JobTable;

import io.gpusched.model.GpuschedException;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.Verdict;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.RunHandle;
import io.gpusched.journal.JournalEvent;
import io.gpusched.outcome.AttemptFacts;
import io.gpusched.outcome.AttemptJudge;
import io.gpusched.outcome.LogTail;
import io.gpusched.outcome.ProcessLimitRetry;
import io.gpusched.outcome.Verdicts;
import io.gpusched.policy.FairShare;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * How attempts end: journaled (OOM retry, or the job's final outcome with its verdict), reported, and
 * answered to whoever waits on the job's future — in that order, each report after the fsync of what
 * it reports. Also settles what a dead scheduler left: launch intents, and orphans that ended while
 * nobody watched. What becomes of an attempt is {@link AttemptJudge}'s decision; this class gathers its
 * facts and carries the decision out.
 *
 * <p>Why one long file: every way an attempt can end (exit, OOM retry, requeue, stop, recovery) must
 * journal, report and answer in the same order; keeping them together keeps that order in one place.
 */
public final class Outcomes {
    private final SchedulerOptions options;
    private final Durability durability;
    private final RunFiles runFiles;
    private final RunNames names;
    private final Leftovers leftovers;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Measurer measurer;
    private final JobTable table;
    private final FairShare fairShare;
    private final Timelines timelines;
    /** The outcome rules: what becomes of an attempt that ended. */
    private final AttemptJudge judge;
    /** The same rules for a cluster's runs, where an undeclared job's retry asks for whole GPUs again. */
    private final AttemptJudge clusterJudge;
    /** Ended jobs a {@code --watch} run keeps for its board, snapshot and summary; older ones leave memory. */
    public static final int HISTORY = 1000;
    /** The status a run stopped here is given when its wrapper did not live to write one: 128 + SIGKILL. */
    static final int KILLED_STATUS = 128 + 9;
    private final List<JobResult> results = new ArrayList<>();
    private long ended;
    private final Map<String, CompletableFuture<JobResult>> futures = new HashMap<>();
    private final List<StatusBoard.Interrupted> interrupted = new ArrayList<>();

    /** How one attempt ended, whether the scheduler watched it or found it finished on restart. */
    private record Ending(JobSpec spec, int no, List<Integer> gpus, OptionalLong declaredMib, int exitCode,
                          Optional<StopReason> stopping, Path log, boolean attributed, Map<Integer, Long> peakMib,
                          OptionalDouble avgUtil, Duration took, OptionalLong run, boolean watched,
                          Optional<String> learned, Optional<io.gpusched.cluster.ClusterReport> cluster) {
        long peak() {
            long max = Long.MIN_VALUE; // once per ended attempt, but a stream cost more than the rest of this record
            for (long v : peakMib.values()) {
                max = Math.max(max, v);
            }
            return peakMib.isEmpty() ? 0 : max;
        }
    }

    public Outcomes(SchedulerOptions options, Durability durability, RunFiles runFiles, RunNames names, 
             Leftovers leftovers, Reporter reporter, LoopClock clock, Measurer measurer,
             JobTable table, FairShare fairShare, Timelines timelines, OwnerTails tails, Consumer<Runnable> post) {
        this.tails = tails;
        this.post = post;
        this.timelines = timelines;
        this.table = table;
        this.fairShare = fairShare;
        this.options = options;
        this.durability = durability;
        this.runFiles = runFiles;
        this.names = names;
        this.leftovers = leftovers;
        this.reporter = reporter;
        this.clock = clock;
        this.measurer = measurer;
        this.judge = new AttemptJudge(options.tolerance(), AttemptJudge.UndeclaredRetry.DECLARES_THE_BUMPED_PEAK);
        this.clusterJudge = new AttemptJudge(options.tolerance(), AttemptJudge.UndeclaredRetry.STAYS_UNDECLARED);
    }

    /**
     * @return every job that ended in this run, in completion order (a live view); in {@code --watch},
     *     the last {@link #HISTORY}
     */
    public List<JobResult> results() {
        return results;
    }

    /** @return how many jobs ended in this run, all told: it moves whenever {@link #results()} changes */
    public long endedCount() {
        return ended;
    }

    /** @return the jobs the stop interrupted, by display number */
    public List<StatusBoard.Interrupted> interrupted() {
        List<StatusBoard.Interrupted> rows = new ArrayList<>(interrupted);
        rows.sort(Comparator.comparingInt(StatusBoard.Interrupted::no));
        return rows;
    }

    /** Someone waits for this job's result; a repeated submission's handle waits alongside the first's. */
    public void awaited(String key, CompletableFuture<JobResult> result) {
        CompletableFuture<JobResult> first = futures.putIfAbsent(key, result);
        if (first != null) {
            first.whenComplete((r, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(r);
                }
            });
        }
    }

    /** A waited-for job had ended in an earlier run: that is its result. */
    public void answerEarlier(JobResult earlier) {
        CompletableFuture<JobResult> f = futures.remove(earlier.key());
        if (f != null) {
            durability.afterDurable(() -> f.complete(earlier));
        }
    }

    /** The scheduler stops: nobody will finish the jobs still awaited. */
    public void abandonAwaited() {
        futures.forEach((key, f) -> f.completeExceptionally(
                new GpuschedException("the scheduler stopped before job " + key + " finished")));
    }

    /** A running job's leader exited; a late exit of an attempt no longer current is ignored. */
    public void reap(RunningJob rj, OptionalInt exit) {
        if (!table.runEnded(rj)) {
            return;
        }
        durability.changed();
        // The leader is gone. Whatever it left still holds memory and would outlive the job: the next
        // sweep kills it. A run placed elsewhere left nothing here.
        if (!rj.placedElsewhere()) {
            // A [tty] run's shell removes its tmux socket as it ends; one killed (or lost) before that cannot.
            boolean shellCut = exit.isEmpty() || exit.getAsInt() > 128 || rj.killEscalated;
            Optional<Leftovers.Terminal> terminal = rj.ttyEntry.isPresent() && shellCut
                    ? Optional.of(new Leftovers.Terminal(rj.key(), names.tty(rj.no), table.owner(rj.key())))
                    : Optional.empty();
            // Where no process outlives its session (a simulation's stand-ins) a run leaves nothing to
            // sweep for, so none is queued, unless a terminal's socket is to go.
            if (terminal.isPresent() || !leftovers.nothingOutlivesASession()) {
                leftovers.add(rj.no, names.leftovers(rj), rj.stopping.isEmpty(), terminal);
            }
        }
        Instant now = clock.now();
        Duration ran = rj.ran(clock.nanos()); // by the ticker: a wall clock set back shows no negative run
        fairShare.add(table.owner(rj.key()), rj.gpus.size(), ran, clock.steady());
        Optional<AttemptJudge.RunAgain> again = AttemptJudge.runsAgain(rj.stopping);
        if (again.isPresent()) {
            // Stopped on purpose to run again later: not an outcome, and the attempt does not count.
            durability.record(List.of(new JournalEvent.Requeued(rj.key(), requeuedAs(rj.stopping.get(), rj.overMaxJobTime))));
            if (again.get().place() == AttemptJudge.Place.AT_THE_BACK) {
                table.toTheBack(rj.key(), clock.steady()); // waits from now on the policy's time line
            }
            durability.removeRunFilesOnceDurable(rj.no, rj.run);
            reporter.emit(new SchedulerEvent.JobRequeued(now, rj.no, rj.stopping.get(), ran));
            return;
        }
        if (exit.isEmpty() && (rj.stopping.isEmpty() || rj.stopping.get() == StopReason.SHUTDOWN)) {
            // A run taken up from a dead scheduler ended without a status: killed before its command
            // ended, so it runs again, as an orphan found dead does.
            durability.record(List.of(new JournalEvent.Interrupted(rj.key())));
            durability.removeRunFilesOnceDurable(rj.no, rj.run);
            reporter.emit(new SchedulerEvent.OrphanRequeued(clock.now(), rj.no));
            return;
        }
        // Stopped here, and its wrapper did not live to say how: the grace's SIGKILL.
        int exitCode = exit.orElse(KILLED_STATUS);
        if (rj.stopping.equals(Optional.of(StopReason.SHUTDOWN))) {
            durability.record(List.of(new JournalEvent.Interrupted(rj.key())));
            interrupted.add(interruptedRow(rj));
            durability.removeRunFilesOnceDurable(rj.no, rj.run);
            return;
        }
        if (rj.report.isPresent()) {
            // On a cluster: measured where it ran, timed by the cluster's clocks; stopped by it, perhaps.
            io.gpusched.cluster.ClusterReport m = rj.report.get();
            settle(new Ending(rj.spec, rj.no, m.gpus(), rj.declaredMib, exitCode, rj.stopping.or(m::stoppedBy), rj.log,
                    !m.peakMib().isEmpty(), m.peakMib(), m.avgUtil(), m.took(), OptionalLong.of(rj.run), true, rj.learned,
                    rj.report), Optional.of(rj));
            return;
        }
        settle(new Ending(rj.spec, rj.no, rj.gpus, rj.declaredMib, exitCode, rj.stopping, rj.log, rj.attributed,
                rj.peakMibNow(), rj.avgUtil(), rj.ran(clock.nanos()), OptionalLong.of(rj.run), true,
                rj.learned, Optional.empty()), Optional.of(rj));
    }

    /** The {@code requeued} line's reason for a job stopped to run again. */
    private static String requeuedAs(StopReason why, boolean overMaxJobTime) {
        return why != StopReason.TIME_SLICE ? JournalEvent.Requeued.PREEMPTED
                : overMaxJobTime ? JournalEvent.Requeued.MAX_JOB_TIME : JournalEvent.Requeued.TIME_SLICE;
    }

    /**
     * Jobs the stop's last resort left nothing of: interrupted, so a restart runs them again; those being
     * stopped on purpose are left journaled with their stop, which the next scheduler applies.
     */
    public void interruptedByStop(List<RunningJob> gone) {
        // A job being cancelled, timed out or preempted is not interrupted: it stays journaled started, with
        // its stopping line, and the next scheduler ends it as that stop says (cancelled, never run again).
        gone = gone.stream().filter(rj -> rj.stopping.isEmpty() || rj.stopping.get() == StopReason.SHUTDOWN).toList();
        if (gone.isEmpty()) {
            return;
        }
        durability.record(gone.stream().<JournalEvent>map(rj -> new JournalEvent.Interrupted(rj.key())).toList());
        for (RunningJob rj : gone) {
            interrupted.add(interruptedRow(rj));
            durability.removeRunFilesOnceDurable(rj.no, rj.run);
        }
    }

    private StatusBoard.Interrupted interruptedRow(RunningJob rj) {
        return new StatusBoard.Interrupted(rj.no, rj.spec.command(), rj.gpusNow(), rj.ran(clock.nanos()));
    }

    /**
     * A pending job that will never run: it can never be placed, or a job it runs after failed.
     *
     * @param declared what its next attempt would have declared
     */
    public void fail(JobSpec spec, int no, OptionalLong declared, JobStatus status, String reason) {
        durability.record(List.of(new JournalEvent.Done(spec.key(), status.journalName(), 1, Map.of(),
                OptionalDouble.empty())));
        table.ended(spec);
        reporter.emit(status == JobStatus.DEPENDENCY_FAILED
                ? new SchedulerEvent.DependencyFailed(clock.now(), no, spec.command(), reason)
                : new SchedulerEvent.JobInfeasible(clock.now(), no, spec.command(), reason));
        complete(new JobResult(spec.key(), no, spec.command(), List.of(), status, 1, declared, Map.of(),
                Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO, Measurement.NOT_RUN, Optional.empty(),
                owner(spec.key())));
    }

    /** A job whose line says {@code cancel} before it ever started. */
    public void cancelledBeforeStart(JobSpec j, int no) {
        durability.record(List.of(new JournalEvent.Done(j.key(), "cancelled", 0, Map.of(), OptionalDouble.empty())));
        table.ended(j);
        complete(new JobResult(j.key(), no, j.command(), List.of(), JobStatus.CANCELLED, 0, j.vramMib(),
                Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO, Measurement.NOT_RUN, Optional.empty(),
                owner(j.key())));
    }

    /**
     * An orphan's session is gone. If its wrapper wrote an exit status, the command ran to its end
     * while no scheduler watched: journal that outcome (an OOM still retries). Otherwise it was killed
     * before its command ended and is pending again. A stop its scheduler journaled before it died
     * decides, as it would have for a watched run: cancelled or timed out (killed in its grace when no
     * status was written), or back in the queue when preempted or at the end of its time slice.
     */
    public void orphanEnded(JobSpec spec, JobTable.Job r) {
        int no = r.no();
        if (r.runNo().isPresent()) {
            // Its session is gone; a daemon it started may have left the session but not the run. Only what
            // carries the run's entry is the run's: its session's number may be another user's session by
            // now (given out again while no scheduler watched), so no process is matched by it.
            leftovers.killNow(new ProcFs.Run(0, names.entry(r.runNo().getAsLong()), 0));
            if (spec.environment().tty()) {
                // Its shell may have been killed before it removed its tmux socket; its server is dead now.
                io.gpusched.engine.spawn.TtySockets.removeLeftOver(names.tty(no), table.owner(spec.key()));
            }
        }
        OptionalInt code = r.runNo().isPresent() ? runFiles.exitCode(no, r.runNo().getAsLong()) : OptionalInt.empty();
        boolean lease = r.startedAs().filter(h -> h instanceof RunHandle.Lease).isPresent();
        if (code.isEmpty() && lease) {
            // A lease's command is its client's: never run again here, even with its end unknown.
            reporter.warnOnce("job " + no + " (srun) ended while no scheduler watched and its client never said how;"
                    + " recorded as exit status " + Leases.UNKNOWN_EXIT);
            code = OptionalInt.of(Leases.UNKNOWN_EXIT);
        }
        // A stop its scheduler journaled before it died (JournalEvent.Stopping) is what ended it, whatever its
        // status says: a cancelled job is cancelled (not failed with SIGTERM's 143, nor run again when it was
        // killed before its wrapper wrote a status), a preempted one goes back to the queue.
        Optional<JournalEvent.Stopping> stop = durability.state().stopping(spec.key());
        Optional<StopReason> stopped = stop.map(io.gpusched.engine.stop.Stops::reasonOf);
        Duration ran = r.runNo().isPresent() ? runFiles.ranFor(no, r.runNo().getAsLong()).orElse(Duration.ZERO) : Duration.ZERO;
        Optional<AttemptJudge.RunAgain> again = AttemptJudge.runsAgain(stopped);
        if (again.isPresent() && !lease) {
            durability.record(List.of(new JournalEvent.Requeued(spec.key(), requeuedAs(stopped.get(), stop.get().maxJobTime()))));
            if (again.get().place() == AttemptJudge.Place.AT_THE_BACK) {
                table.toTheBack(spec.key(), clock.steady());
            }
            reporter.emit(new SchedulerEvent.JobRequeued(clock.now(), no, stopped.get(), ran));
            return;
        }
        if (code.isEmpty() && stopped.isPresent()) {
            // Killed in the stop's grace before its wrapper could say how it ended: stopped, as a watched run is.
            code = OptionalInt.of(KILLED_STATUS);
        }
        if (code.isEmpty()) {
            durability.record(List.of(new JournalEvent.Interrupted(spec.key())));
            reporter.emit(new SchedulerEvent.OrphanRequeued(clock.now(), no));
            return;
        }
        if (stopped.isPresent()) {
            reporter.warnOnce("job " + no + " ended while no scheduler was watching, after the last one asked it to stop ("
                    + stop.get().reason() + "); recorded as " + stop.get().reason() + ", exit status " + code.getAsInt());
        } else {
            reporter.warnOnce(lease ? "job " + no + " (srun) ended with exit status " + code.getAsInt() + " while no scheduler"
                    + " was watching; recorded as its client said, not run again" : "job " + no + " ended with exit status "
                    + code.getAsInt() + " while no scheduler was watching;"
                    + " recorded from " + runFiles.exitFile(no, r.runNo().getAsLong()) + "; run again only if its output"
                    + " shows a CUDA out-of-memory error and it has retries left");
        }
        OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : spec.vramMib();
        // Its output is where the launch sent it, as for a watched run: a submission's own file (its --output,
        // or a root scheduler's <cwd>/gpusched-<no>.log), else the log directory's.
        Path output = r.submission().flatMap(JobOutput::file).orElse(names.log(no, r.gpus()));
        settle(new Ending(spec, no, r.gpus(), declared, code.getAsInt(), stopped, output, false,
                Map.of(), OptionalDouble.empty(), ran, r.runNo(),
                false, Optional.empty(), Optional.empty()), Optional.empty());
    }

    /** Reads a job's output as its owner ({@link OwnerTails}): never on the loop's thread, but on {@link #readers}. */
    private final OwnerTails tails;

    /** Posts work to the loop's thread, from any thread: how a read done elsewhere hands its settlement back. */
    private final Consumer<Runnable> post;

    /**
     * How long a user's failed jobs' output is not read after one such read did not end in time
     * ({@link OwnerLogTail#AS_OWNER_MILLIS}). The loop no longer waits for these reads, but their owner can
     * still make each one hang (a FUSE file that never answers, or a SIGSTOP to gpusched-runas once it runs
     * as them): paused, such a user holds no reading thread and starts no gpusched-runas per failed job,
     * and their failed jobs are settled at once instead of each waiting out a read; their failed jobs
     * meanwhile are not looked at for a CUDA OOM (no OOM retry).
     */
    static final Duration SLOW_TAIL_PAUSE = Duration.ofMinutes(10);

    /**
     * How long the loop waits for a reading thread to answer before it settles the job without its tail:
     * the real read gives up after {@link OwnerLogTail#AS_OWNER_MILLIS} (and as long again for its output);
     * this bounds one that does not, so a settlement always comes back.
     */
    static final long READ_LIMIT_MILLIS = 3 * OwnerLogTail.AS_OWNER_MILLIS;

    /** Until when each user's failed jobs' output is not read ({@link #SLOW_TAIL_PAUSE}), on {@link LoopClock#steady()}. */
    private final Map<String, Instant> tailsPausedUntil = new HashMap<>();

    /** A reaped failure of a job run as its owner, waiting for the end of its output to be read. */
    private record Reading(Ending end, RunningJob run) {
    }

    /**
     * Per owner, their reaped failures whose settlement waits for a read of their output, in the order they
     * ended; the first one's read is under way. One read per owner at a time: a user whose reads hang holds
     * one reading thread, not one per failed job. Loop's thread only.
     */
    private final Map<String, ArrayDeque<Reading>> tailsWaiting = new HashMap<>();

    /**
     * The owners a reading thread is reading for now, until it returns (which may be after the loop gave up
     * on it, {@link #READ_LIMIT_MILLIS}): none is started for them meanwhile. Written by both threads.
     */
    private final java.util.Set<String> readingFor = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** The reading threads: daemon threads (a hung read never holds the JVM), at most one per owner. */
    private final ExecutorService readers = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gpusched-owner-tail");
        t.setDaemon(true);
        return t;
    });

    /** @return whether reading this owner's failed jobs' output is paused ({@link #SLOW_TAIL_PAUSE}) */
    private boolean tailsPaused(String owner) {
        Instant paused = tailsPausedUntil.get(owner);
        if (paused != null && clock.steady().isBefore(paused)) { // steady: a clock set back must not pause a day
            return true;
        }
        tailsPausedUntil.remove(owner);
        return false;
    }

    /** A read of this owner's output did not end in time: their next ones are not made for a while, and the log says so. */
    private void pauseTails(String owner, Ending end) {
        tailsPausedUntil.put(owner, clock.steady().plus(SLOW_TAIL_PAUSE));
        reporter.warn("job " + end.no() + ": its output " + end.log() + " could not be read as " + owner + " within "
                + OwnerLogTail.AS_OWNER_MILLIS / 1000 + " s; " + owner + "'s failed jobs are not looked at for a CUDA"
                + " out-of-memory error (nor retried for one) for the next " + SLOW_TAIL_PAUSE.toMinutes() + " minutes");
    }

    /**
     * The end of a failed job's output, read as its owner here, on the loop's thread: only for an orphan
     * found ended after a restart, which has no run to hold while a reading thread reads (the pause still
     * bounds what its owner can cost).
     */
    private String ownerTailHere(String owner, Ending end) {
        if (tailsPaused(owner) || readingFor.contains(owner)) {
            return "";
        }
        Optional<String> tail = tails.read(owner, end.log(), Verdicts.OOM_TAIL_BYTES);
        if (tail.isPresent()) {
            return tail.get();
        }
        pauseTails(owner, end);
        return "";
    }

    /**
     * A reaped job's failure, to be settled once its output is read as its owner, on a reading thread. Until
     * then its job is settling ({@link JobTable#settling}): not running (its GPUs are free), not pending,
     * not an orphan, and journaled as started, so a scheduler that stops meanwhile leaves it to the next
     * one, which settles it from its exit file.
     */
    private void readOffTheLoop(String owner, Reading r) {
        table.settling(r.run());
        ArrayDeque<Reading> waiting = tailsWaiting.computeIfAbsent(owner, o -> new ArrayDeque<>());
        waiting.add(r);
        if (waiting.size() == 1) {
            startRead(owner, r);
        }
    }

    /** Starts the read of the first of this owner's waiting failures; its answer comes back to the loop. */
    private void startRead(String owner, Reading r) {
        readingFor.add(owner);
        Path log = r.end().log();
        CompletableFuture.supplyAsync(() -> {
            try {
                return tails.read(owner, log, Verdicts.OOM_TAIL_BYTES);
            } finally {
                readingFor.remove(owner);
            }
        }, readers).exceptionally(e -> Optional.of(""))
                .completeOnTimeout(Optional.empty(), READ_LIMIT_MILLIS, TimeUnit.MILLISECONDS)
                // Refused once the loop has ended: the job stays journaled as started, with its exit file.
                .thenAccept(tail -> post.accept(() -> tailRead(owner, r, tail)));
    }

    /**
     * On the loop's thread: the read of {@code r}'s output ended (empty: not in time). It is settled now;
     * so is the rest of its owner's waiting failures when their reads are paused, else the next is read.
     */
    private void tailRead(String owner, Reading r, Optional<String> tail) {
        ArrayDeque<Reading> waiting = tailsWaiting.get(owner);
        waiting.remove(r);
        if (tail.isEmpty()) {
            pauseTails(owner, r.end());
        }
        table.settled(r.run());
        settleWith(r.end(), tail.orElse(""));
        if (tail.isEmpty()) {
            for (Reading next = waiting.poll(); next != null; next = waiting.poll()) {
                table.settled(next.run());
                settleWith(next.end(), "");
            }
        }
        if (waiting.isEmpty()) {
            tailsWaiting.remove(owner);
        } else {
            startRead(owner, waiting.peek());
        }
    }

    /**
     * The log directory's file of a job run as its owner holds only what the root wrapper said (why the job
     * could not start); its output went to the owner's file. Left empty, it goes: a lab's daemon would
     * otherwise keep an empty file per job in its state directory.
     */
    private static void dropIfEmpty(Path wrapperLog) {
        try {
            if (java.nio.file.Files.size(wrapperLog) == 0) {
                java.nio.file.Files.deleteIfExists(wrapperLog);
            }
        } catch (java.io.IOException e) {
            // Already gone, or unreadable: an empty file left behind harms nothing.
        }
    }

    /**
     * Journals and reports an attempt's end, an OOM retry or the job's final outcome; for a reaped failure
     * of a job run as its owner, once its output has been read as them, off the loop's thread.
     *
     * @param reaped the run that ended, when it was watched here; empty for an orphan found ended
     */
    private void settle(Ending end, Optional<RunningJob> reaped) {
        boolean failed = end.exitCode() != 0 && end.stopping().isEmpty();
        // A job run as its owner wrote its output where its owner chose: read as them, never as root.
        Optional<String> asOwner = table.job(end.spec().key()).submission().filter(tails::runsAsOwner)
                .map(JournalEvent.Submitted::owner);
        if (!failed) {
            settleWith(end, "");
        } else if (asOwner.isEmpty()) {
            settleWith(end, LogTail.read(end.log(), Verdicts.OOM_TAIL_BYTES));
        } else if (!tails.canRead() || tailsPaused(asOwner.get())
                || readingFor.contains(asOwner.get()) && !tailsWaiting.containsKey(asOwner.get())) {
            // Not read: nothing can read as them, their reads are paused, or a read the loop gave up on
            // still hangs (it holds their one reading thread).
            settleWith(end, "");
        } else if (reaped.isPresent()) {
            // Their read may hang, as they choose: every user's jobs would wait for the loop that waited.
            readOffTheLoop(asOwner.get(), new Reading(end, reaped.get()));
        } else {
            settleWith(end, ownerTailHere(asOwner.get(), end));
        }
    }

    /** {@link #settle}, with the end of the failed attempt's output read ({@code tail}; empty text when not read). */
    private void settleWith(Ending end, String tail) {
        String key = end.spec().key();
        JobTable.Job rec = table.job(key);
        Optional<String> asOwner = rec.submission().filter(tails::runsAsOwner)
                .map(JournalEvent.Submitted::owner);
        boolean failed = end.exitCode() != 0 && end.stopping().isEmpty();
        // A setup that failed, or a conda that is missing, means the command never ran: not an OOM. Nor
        // does a run as its owner that gpusched-runas refused (its one line is in the wrapper's log).
        Optional<EnvironmentScript.Failure> before = EnvironmentScript.failure(end.spec().environment(), end.exitCode(),
                end.log(), tail).or(() -> asOwner.isPresent() && failed
                ? OwnerLaunch.failure(end.exitCode(), LogTail.read(names.log(end.no(), end.gpus()), 4096))
                        .map(why -> new EnvironmentScript.Failure(why, "the command did not run"))
                : Optional.empty());
        // A run that starts no process (a simulation) wrote no wrapper log: nothing to look at on disk.
        if (asOwner.isPresent() && runFiles.onDisk()) {
            dropIfEmpty(names.log(end.no(), end.gpus()));
        }
        Optional<String> gaveUp = Optional.empty();
        if (before.isPresent() && failed && asOwner.isPresent() && OwnerLaunch.atProcessLimit(before.get().cause())) {
            // Her process limit: transient, her other processes end. Pending again after a back-off, and not
            // an attempt (it never ran); failed only once the tries are used up.
            ProcessLimitRetry.Decision d = ProcessLimitRetry.decide(table.processLimitRefusals(key));
            if (d instanceof ProcessLimitRetry.TryAgain again) {
                durability.record(List.of(new JournalEvent.Interrupted(key)));
                table.heldForProcessLimit(key, clock.steady().plus(again.after()));
                end.run().ifPresent(r -> durability.removeRunFilesOnceDurable(end.no(), r));
                reporter.warn("job " + end.no() + ": " + before.get().cause() + "; it did not run, and waits "
                        + again.after().toSeconds() + " s to be tried again (try " + again.tryNo() + " of " + again.tries()
                        + ")");
                return;
            }
            ProcessLimitRetry.GiveUp last = (ProcessLimitRetry.GiveUp) d;
            gaveUp = Optional.of("; tried " + last.tries() + " times over " + last.waited().toMinutes()
                    + " minutes, and " + asOwner.get() + "'s processes stayed at the limit");
        }
        int allowed = Math.max(end.spec().retries(), options.oomRetries());
        int attempts = rec.attempts() + 1;
        long peak = end.peak();
        // A cluster's run: nothing said its command ran when nothing was reported; and an undeclared job
        // asks the cluster for whole GPUs, on its retry too (the engine cannot size a GPU it never saw).
        boolean ran = before.isEmpty() && end.cluster().map(c -> c.measurement() != Measurement.NOT_RUN).orElse(true);
        AttemptJudge.Decision decision = (end.cluster().isPresent() ? clusterJudge : judge).judge(new AttemptFacts(
                end.stopping(), end.exitCode(), ran,
                attempts, allowed, end.declaredMib(), end.attributed() ? OptionalLong.of(peak) : OptionalLong.empty()),
                () -> tail);
        if (decision instanceof AttemptJudge.Requeue requeue) {
            OptionalLong next = requeue.bumpedMib();
            durability.record(List.of(new JournalEvent.Oom(key, attempts, next)));
            Instant now = clock.now();
            timelines.oomRetry(end.no(), end.run().orElse(-1), now.minus(end.took()), end.declaredMib(), next, now);
            end.run().ifPresent(r -> durability.removeRunFilesOnceDurable(end.no(), r));
            reporter.emit(new SchedulerEvent.RequeuedAfterOom(clock.now(), end.no(), attempts, allowed + 1,
                    end.declaredMib(), next));
            return;
        }
        if (!(decision instanceof AttemptJudge.Final outcome)) {
            // reap requeues a run stopped to run again before it gathers facts; nothing else stops one so.
            throw new IllegalStateException("job " + end.no() + " was stopped to run again, not judged: " + decision);
        }
        JobStatus status = outcome.status();
        Verdict verdict = outcome.verdict();
        Map<Integer, Long> peaks = end.attributed() ? end.peakMib() : Map.of();
        durability.record(List.of(new JournalEvent.Done(key, status.journalName(), end.exitCode(), peaks, end.avgUtil(),
                JournalEvent.VramPoint.of(timelines.ended(end.no(), end.run().orElse(-1), clock.now().minus(end.took()),
                        end.declaredMib())))));
        table.ended(end.spec());
        end.run().ifPresent(r -> durability.removeRunFilesOnceDurable(end.no(), r));
        Measurement measured = end.cluster().map(io.gpusched.cluster.ClusterReport::measurement)
                .orElse(!end.watched() ? Measurement.UNWATCHED : end.attributed() ? Measurement.MEASURED
                : measurer.pidsInvisible() ? Measurement.NOT_VISIBLE : Measurement.NONE_SEEN);
        String afterTries = gaveUp.orElse("");
        before.ifPresent(f -> reporter.warnOnce("job " + end.no() + ": " + f.cause() + " — " + f.fix() + afterTries));
        complete(new JobResult(key, end.no(), end.spec().command(), end.gpus(), status, end.exitCode(), end.declaredMib(),
                peaks, verdict, end.avgUtil(), end.took(), measured,
                before.map(f -> withoutOutputPath(f.cause(), rec.submission(), end.no())), owner(key), end.learned()));
    }

    /**
     * A cause as every user's queue shows it: gpusched-runas's refusals name the job's output file or its
     * working directory ({@code cannot enter DIR as alice}), which only its owner and admins learn
     * ({@code gpusched logs N}, as {@code Requests.logs} rules), so each is said as a reference instead. The
     * daemon's log keeps the whole line.
     */
    private static String withoutOutputPath(String cause, Optional<JournalEvent.Submitted> submission, int no) {
        Optional<Path> output = submission.flatMap(JobOutput::file);
        if (output.isEmpty()) {
            return cause;
        }
        String path = output.get().toString();
        String named = "its output (gpusched logs " + no + " names it)";
        String said = cause.replace("output " + path, named).replace(path, named);
        // After the output, which is often in it (<cwd>/gpusched-N.log). The root directory names nothing.
        String cwd = submission.get().cwd();
        return cwd.equals("/") ? said : said.replace(cwd, "its working directory");
    }

    /** Who a job ran for, as its result says: {@code gpusched queue --user} filters finished jobs by it. */
    private Optional<String> owner(String key) {
        return Optional.of(table.owner(key));
    }

    private void complete(JobResult r) {
        results.add(r);
        ended++;
        if (options.watch() && results.size() > HISTORY) {
            results.remove(0);
        }
        reporter.emit(new SchedulerEvent.JobFinished(clock.now(), r, options.tolerance()));
        CompletableFuture<JobResult> f = futures.remove(r.key());
        if (f != null) {
            durability.afterDurable(() -> f.complete(r));
        }
    }
}

package io.gpusched.engine.stop;

import io.gpusched.engine.lease.Leases;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.ProcFs;
import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.proc.SessionSignals;
import io.gpusched.engine.spawn.RunNames;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.table.JobTable;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.journal.JournalEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.outcome.AttemptJudge;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Stopping jobs: timeouts and cancellations (SIGTERM to the session, SIGKILL after the grace), and the
 * scheduler's own stop, which terminates every running job the same way and ends with a last resort
 * for what outlives the grace. Deadlines are read from the injected clock's monotonic ticker, never its
 * wall time: an admin's {@code date -s} a day forward must not time out every running job, nor a day
 * back hold a SIGKILL (or the scheduler's own stop) for a day.
 */
public final class Stops {
    private final SchedulerOptions options;
    private final JobTable table;
    private final SessionSignals signals;
    private final ProcTable procFs;
    private final RunNames names;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Durability durability;
    private boolean stopping;
    /** The stop leaves running jobs running ({@link #beginStop}). */
    private boolean leaving;
    /** When the scheduler's own stop gives up waiting, on the loop's ticker. */
    private long stopDeadlineNanos;

    public Stops(SchedulerOptions options, JobTable table, SessionSignals signals, ProcTable procFs, RunNames names,
          Reporter reporter, LoopClock clock, Durability durability) {
        this.durability = durability;
        this.options = options;
        this.table = table;
        this.signals = signals;
        this.procFs = procFs;
        this.names = names;
        this.reporter = reporter;
        this.clock = clock;
    }

    public boolean stopping() {
        return stopping;
    }

    /**
     * The scheduler's limit on every job's run ({@code serve --max-job-time}) and what reaching it does
     * ({@code --on-max-job-time}): {@code REQUEUE}, stopped and queued again at the back (mgpu's context
     * switch), or {@code FAIL}, stopped and ended {@code timeout}. A job's own smaller or equal
     * {@code timeout=} wins, with its own {@code on-timeout=}. An {@code srun} lease over it is failed
     * whatever it says: its command runs in its client's terminal, which cannot take it up again later.
     *
     * @param limit the longest any attempt runs
     * @param onLimit what reaching it does
     */
    public record MaxJobTime(Duration limit, io.gpusched.jobs.Scheduling.OnTimeout onLimit) {
        /**
         * @param limit see {@link #limit()}; positive
         * @param onLimit see {@link #onLimit()}
         */
        public MaxJobTime {
            java.util.Objects.requireNonNull(limit, "limit");
            java.util.Objects.requireNonNull(onLimit, "onLimit");
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("--max-job-time must be positive, got " + io.gpusched.jobs.Units.formatDuration(limit));
            }
        }
    }

    /** The limit a running job stops at, why, and whether it is the scheduler's. */
    private record Limit(Duration after, StopReason why, boolean maxJobTime) {
    }

    private Optional<MaxJobTime> maxJobTime = Optional.empty();

    /** @param max the scheduler's limit on every run; empty for none (the default) */
    public void maxJobTime(Optional<MaxJobTime> max) {
        this.maxJobTime = max;
    }

    /** The limit a job's run stops at: its own {@code timeout=} unless the scheduler's is smaller. */
    private Optional<Limit> limit(RunningJob rj) {
        Optional<Duration> own = rj.spec.timeout();
        if (maxJobTime.isPresent() && (own.isEmpty() || own.get().compareTo(maxJobTime.get().limit()) > 0)) {
            boolean requeue = maxJobTime.get().onLimit() == io.gpusched.jobs.Scheduling.OnTimeout.REQUEUE && !rj.lease();
            return Optional.of(new Limit(maxJobTime.get().limit(), requeue ? StopReason.TIME_SLICE : StopReason.TIMEOUT,
                    true));
        }
        return own.map(t -> new Limit(t, AttemptJudge.stopAtTheLimit(rj.spec.scheduling().onTimeout()), false));
    }

    /** Times out every job past its limit, and escalates to SIGKILL where the grace ran out. */
    public void enforceDeadlines() {
        long now = clock.nanos();
        for (RunningJob rj : table.runs()) {
            if (rj.stopping.isEmpty() && !rj.placedElsewhere()) { // a cluster enforces its time limit itself
                Optional<Limit> l = limit(rj);
                if (l.isPresent() && rj.ran(now).compareTo(l.get().after()) >= 0) {
                    rj.overMaxJobTime = l.get().maxJobTime();
                    stop(rj, l.get().why());
                }
            }
        }
        escalateKills();
    }

    public void escalateKills() {
        long now = clock.nanos();
        for (RunningJob rj : table.runs()) {
            // A run elsewhere has no session to kill: its system ends it after the cancel, in its own time.
            if (rj.stopping.isPresent() && !rj.killEscalated && !rj.placedElsewhere()
                    && now - rj.stopSentNanos - options.killGrace().toNanos() >= 0) {
                rj.killEscalated = true;
                reporter.emit(new SchedulerEvent.KillEscalated(clock.now(), rj.no, options.killGrace()));
                signals.kill(rj.pid, rj.leaseEntry);
            }
        }
    }

    /**
     * SIGTERM to the job's session; its exit, or the grace's SIGKILL, ends it. The stop is journaled first
     * ({@link JournalEvent.Stopping}; written to the file before the signal, forced with the round's group),
     * so a scheduler that dies during the grace leaves it to the next one ({@link #resume}).
     */
    public void stop(RunningJob rj, StopReason why) {
        Instant now = clock.now();
        rj.stopping = Optional.of(why);
        rj.stopSentNanos = clock.nanos();
        durability.record(List.of(new JournalEvent.Stopping(rj.key(), journalReason(why), rj.overMaxJobTime,
                OptionalLong.of(rj.stopSentNanos))));
        reporter.emit(stoppingEvent(now, rj, why, false));
        if (rj.elsewhere.isPresent()) {
            rj.elsewhere.get().cancel(); // scancel for a Slurm job: it ends when the cluster says so
            return;
        }
        signals.terminate(rj.pid, rj.leaseEntry);
    }

    /**
     * Goes on with the stop a dead scheduler journaled for a run taken up again ({@link JournalEvent.Stopping}):
     * the run is being stopped for the same reason, and ends as such (a cancelled job cancelled, not failed
     * with SIGTERM's 143). Its grace counts from the journaled SIGTERM where the line's ticker is of this
     * boot and not before the run's start (by then it may be over: SIGKILL at the next check); otherwise
     * SIGTERM is sent again and the grace starts now. A run on a cluster is cancelled there again (its
     * system ends it in its own time). Said in a warning, and by the {@link SchedulerEvent.JobStopping} a
     * fresh stop emits, once.
     *
     * @param rj a run just taken up, not yet stopping
     * @param line the stop its journal asked
     */
    public void resume(RunningJob rj, JournalEvent.Stopping line) {
        StopReason why = reasonOf(line);
        rj.stopping = Optional.of(why);
        rj.overMaxJobTime = line.maxJobTime();
        long now = clock.nanos();
        boolean sent = line.tickerNanos().isPresent() && now - line.tickerNanos().getAsLong() >= 0
                && line.tickerNanos().getAsLong() - (rj.startedNanos - RUN_START_SLACK_NANOS) >= 0;
        rj.stopSentNanos = sent ? line.tickerNanos().getAsLong() : now;
        long left = Math.max(0, rj.stopSentNanos + options.killGrace().toNanos() - now);
        reporter.warn("job " + rj.no + " was being " + stoppedWords(why) + " when the last scheduler ended: the stop goes on"
                + (rj.placedElsewhere() ? " (cancelled on its cluster again)" : sent ? ", SIGKILL in "
                + io.gpusched.jobs.Units.formatDuration(Duration.ofNanos(left)) + " if it has not ended"
                : " (SIGTERM sent again; SIGKILL in " + io.gpusched.jobs.Units.formatDuration(options.killGrace())
                + " if it has not ended)"));
        // A script following this scheduler's events saw none of the dead one's: without this it would see
        // the job end cancelled (or timed out, requeued) with no stop before it.
        reporter.emit(stoppingEvent(clock.now(), rj, why, true));
        if (rj.elsewhere.isPresent()) {
            rj.elsewhere.get().cancel();
        } else if (!sent) {
            signals.terminate(rj.pid, rj.leaseEntry);
        }
    }

    /**
     * What a stop tells the listeners, a fresh one ({@link #stop}) or one taken up ({@link #resume}) alike:
     * how long the run had run when its SIGTERM went, and the limit it reached, the scheduler's where
     * that was it (none where this scheduler has no {@code --max-job-time} to say).
     */
    private SchedulerEvent.JobStopping stoppingEvent(Instant at, RunningJob rj, StopReason why, boolean resumed) {
        Optional<Duration> reached = rj.overMaxJobTime ? maxJobTime.map(MaxJobTime::limit) : rj.spec.timeout();
        return new SchedulerEvent.JobStopping(at, rj.no, why, rj.ran(rj.stopSentNanos), reached, rj.overMaxJobTime, resumed);
    }

    /**
     * How much earlier than a taken-up run's start, as estimated from the kernel's figure for its process
     * (10 ms ticks; a pid file's date where no process tells), its journaled stop may still say it was sent.
     */
    private static final long RUN_START_SLACK_NANOS = 1_000_000_000L;

    /** How a log line names a stop in progress: "being cancelled", "being timed out". */
    private static String stoppedWords(StopReason why) {
        return switch (why) {
            case CANCELLED -> "cancelled";
            case TIMEOUT -> "timed out";
            case PREEMPTED -> "preempted";
            case TIME_SLICE -> "requeued at the end of its time slice";
            case SHUTDOWN -> "stopped with its scheduler";
        };
    }

    /**
     * @param why a stop this scheduler asked
     * @return its {@link JournalEvent.Stopping#reason()}
     * @throws IllegalArgumentException for {@link StopReason#SHUTDOWN}, which is never journaled
     */
    public static String journalReason(StopReason why) {
        return switch (why) {
            case CANCELLED -> JournalEvent.Stopping.CANCELLED;
            case TIMEOUT -> JournalEvent.Stopping.TIMEOUT;
            case PREEMPTED -> JournalEvent.Stopping.PREEMPTED;
            case TIME_SLICE -> JournalEvent.Stopping.TIME_SLICE;
            case SHUTDOWN -> throw new IllegalArgumentException("the scheduler's own stop is not journaled");
        };
    }

    /**
     * @param line a journaled stop
     * @return the stop it names
     */
    public static StopReason reasonOf(JournalEvent.Stopping line) {
        return switch (line.reason()) {
            case JournalEvent.Stopping.CANCELLED -> StopReason.CANCELLED;
            case JournalEvent.Stopping.TIMEOUT -> StopReason.TIMEOUT;
            case JournalEvent.Stopping.PREEMPTED -> StopReason.PREEMPTED;
            default -> StopReason.TIME_SLICE; // the record admits no other
        };
    }

    /**
     * The scheduler stops. Every running job is terminated and has the kill grace (plus 2 s) to go; or,
     * with {@code leaveJobs}, none is signalled: they go on, and only the jobs already being stopped (a
     * cancel, a timeout) are waited for, so what was asked of them is done and journaled by this
     * scheduler rather than lost. Leases are never signalled.
     */
    public void beginStop(boolean leaveJobs) {
        if (stopping) {
            return;
        }
        stopping = true;
        leaving = leaveJobs;
        Instant now = clock.now();
        stopDeadlineNanos = clock.nanos() + options.killGrace().plusSeconds(2).toNanos();
        int beingStopped = leaveJobs ? (int) table.runs().stream().filter(rj -> rj.stopping.isPresent()).count() : 0;
        reporter.emit(new SchedulerEvent.Stopping(now, leaveJobs
                ? (int) table.runs().stream().filter(rj -> rj.stopping.isEmpty()).count() : table.runningCount(), leaveJobs,
                beingStopped));
        if (leaveJobs) {
            return;
        }
        for (RunningJob rj : table.runs()) {
            if (rj.lease() || rj.placedElsewhere()) {
                // A lease's command runs in its client's terminal and keeps its GPUs across a restart; a
                // run elsewhere (a Slurm job) goes on in its system, and the next scheduler follows it again.
                continue;
            }
            if (rj.stopping.isEmpty()) {
                rj.stopping = Optional.of(StopReason.SHUTDOWN);
                        rj.stopSentNanos = clock.nanos();
            }
            signals.terminate(rj.pid);
        }
    }

    /** @return whether the stop is over: every job it waits for is gone, or the deadline passed */
    public boolean stopDone() {
        return table.runs().stream().allMatch(this::leftRunning) || clock.nanos() - stopDeadlineNanos >= 0;
    }

    /** A job the stop leaves running: a lease, or, when leaving jobs, any not being stopped. */
    private boolean leftRunning(RunningJob rj) {
        return rj.lease() || rj.placedElsewhere() && rj.stopping.isEmpty() || leaving && rj.stopping.isEmpty();
    }

    /**
     * The last resort for jobs still alive after the stop's grace (those it leaves running are left
     * alone, and stay among the running, so the last board shows them). Once nothing of a job is left it
     * is interrupted and a restart runs it again; anything that outlives SIGKILL (stuck in the kernel)
     * stays journaled as started, so a restart waits for it as an orphan instead of starting a copy.
     *
     * @return the jobs of which nothing is left
     */
    public List<RunningJob> finishStop() {
        List<RunningJob> gone = new ArrayList<>();
        for (RunningJob rj : List.copyOf(table.runs())) {
            if (leftRunning(rj)) {
                continue; // left running and journaled as started: a restart takes it up (a lease keeps its GPUs)
            }
            table.runEnded(rj);
            ProcFs.Run run = names.leftovers(rj);
            signals.killLeftovers(List.of(run), table.otherSessions());
            if (procFs.leftovers(List.of(run), table.otherSessions()).get(0).isEmpty()) {
                gone.add(rj);
            }
        }
        return gone;
    }

    /**
     * Nanoseconds until the nearest timeout or kill deadline, by the injected clock, plus its
     * {@link LoopClock#slackNanos()}, capped at a poll.
     */
    public long deadlineWait() {
        long now = clock.nanos();
        long best = options.poll().toNanos();
        for (RunningJob rj : table.runs()) {
            // Nanoseconds left: a limit is at most 3650 days and the grace a few seconds, so no sum overflows.
            OptionalLong left = rj.stopping.isPresent()
                    ? OptionalLong.of(rj.stopSentNanos + options.killGrace().toNanos() - now)
                    : limit(rj).map(l -> OptionalLong.of(l.after().minus(rj.ran(now)).toNanos())).orElse(OptionalLong.empty());
            if (left.isPresent()) {
                best = Math.min(best, Math.max(0, left.getAsLong()) + clock.slackNanos());
            }
        }
        if (stopping) {
            best = Math.min(best, Math.max(0, stopDeadlineNanos - now) + clock.slackNanos());
        }
        return best;
    }
}

package io.gpusched.event;

import io.gpusched.Scheduler;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Everything the scheduler tells its listeners. Events are delivered on the scheduler's own thread,
 * in order; a listener must return quickly and must not call back into the scheduler's blocking
 * methods. Log lines, the status board and the JSON event stream are all listeners.
 *
 * <p>Why one long file: the event set is sealed, and its records are the JSON event format users script
 * against; one place lists them all, each with its documented fields.
 */
public sealed interface SchedulerEvent {
    /** @return when the event happened, by the scheduler's clock */
    Instant at();

    /**
     * The run began.
     *
     * @param at time
     * @param jobs jobs in the queue at start
     * @param live whether the queue is a jobs file re-read each round
     * @param poll time between rounds
     * @param statusBoard where the status board is written, when a log directory is set
     * @param backend the backend's description
     * @param leftRunning how many of {@code jobs} the journal says were running when the last scheduler on
     *     this state stopped (a {@code started} line and no outcome): each is taken up again
     *     ({@link OrphanAdopted}) or, when its run died meanwhile, queued again ({@link OrphanRequeued})
     */
    record RunStarted(Instant at, int jobs, boolean live, Duration poll, java.util.Optional<Path> statusBoard, String backend,
                      int leftRunning) implements SchedulerEvent {
        /**
         * A run that finds no job left running.
         *
         * @param at time
         * @param jobs jobs in the queue at start
         * @param live whether the queue is a jobs file re-read each round
         * @param poll time between rounds
         * @param statusBoard where the status board is written, when a log directory is set
         * @param backend the backend's description
         */
        public RunStarted(Instant at, int jobs, boolean live, Duration poll, java.util.Optional<Path> statusBoard,
                          String backend) {
            this(at, jobs, live, poll, statusBoard, backend, 0);
        }
    }

    /**
     * The first snapshot named the GPUs the scheduler will use.
     *
     * @param at time
     * @param gpus usable GPU indices
     */
    record GpusDiscovered(Instant at, List<Integer> gpus) implements SchedulerEvent {
        /**
         * Copies the list.
         *
         * @param at see {@link #at()}
         * @param gpus see {@link #gpus()}
         */
        public GpusDiscovered {
            gpus = List.copyOf(gpus);
        }
    }

    /**
     * A job was launched.
     *
     * @param at time
     * @param no display number
     * @param key identity key
     * @param command shell command
     * @param gpus GPU indices it got
     * @param declaredMib its per-GPU declaration for this attempt
     * @param dispatched jobs of the queue no longer waiting once this one starts (running or ended),
     *     this one included: 1 to {@code total}
     * @param total jobs known to the queue
     * @param pid the job's process id (also its session and process-group id)
     * @param log its log file
     * @param attempt which attempt this is, from 1 (above 1 after a CUDA-OOM retry)
     * @param waited how long it waited in the queue before this start: since it was submitted (a
     *     submission) or first seen by this scheduler (a jobs-file line), or since it went to the back of
     *     the queue after a time slice; zero when not known
     * @param share for a job that asked for a share of one GPU ({@code gpus=0.5}), that share as written
     *     ({@code "0.5"}); its {@code declaredMib} is then the MiB the share came to on the GPU it got.
     *     Empty for other jobs, and for a share's OOM retry, which runs with a bumped fixed declaration
     * @param rule the requirement rule ({@code --requirements}) its declaration came from, by name
     *     ({@code default} for the file's default); empty when the line declared it, or no rule applied
     * @param learned for a job that learns its declaration ({@code vram=auto}), what it learned, e.g.
     *     {@code learned: job 3 peaked at 1500 MiB, +10%}, or that nothing was learned yet (it then runs
     *     undeclared); empty for other jobs
     */
    record JobStarted(Instant at, int no, String key, String command, List<Integer> gpus, OptionalLong declaredMib,
                      int dispatched, int total, long pid, Path log, int attempt, Duration waited, Optional<String> share,
                      Optional<String> rule, Optional<String> learned)
            implements SchedulerEvent {
        /**
         * Copies the list.
         *
         * @param at see {@link #at()}
         * @param no see {@link #no()}
         * @param key see {@link #key()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param declaredMib see {@link #declaredMib()}
         * @param dispatched see {@link #dispatched()}
         * @param total see {@link #total()}
         * @param pid see {@link #pid()}
         * @param log see {@link #log()}
         * @param attempt see {@link #attempt()}
         * @param waited see {@link #waited()}
         * @param share see {@link #share()}
         * @param rule see {@link #rule()}
         * @param learned see {@link #learned()}
         */
        public JobStarted {
            gpus = List.copyOf(gpus);
            java.util.Objects.requireNonNull(waited, "waited");
            java.util.Objects.requireNonNull(share, "share");
            java.util.Objects.requireNonNull(rule, "rule");
            java.util.Objects.requireNonNull(learned, "learned");
        }

        /**
         * A start of a job whose declaration was not learned.
         *
         * @param at see {@link #at()}
         * @param no see {@link #no()}
         * @param key see {@link #key()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param declaredMib see {@link #declaredMib()}
         * @param dispatched see {@link #dispatched()}
         * @param total see {@link #total()}
         * @param pid see {@link #pid()}
         * @param log see {@link #log()}
         * @param attempt see {@link #attempt()}
         * @param waited see {@link #waited()}
         * @param share see {@link #share()}
         * @param rule see {@link #rule()}
         */
        public JobStarted(Instant at, int no, String key, String command, List<Integer> gpus, OptionalLong declaredMib,
                          int dispatched, int total, long pid, Path log, int attempt, Duration waited, Optional<String> share,
                          Optional<String> rule) {
            this(at, no, key, command, gpus, declaredMib, dispatched, total, pid, log, attempt, waited, share, rule,
                    Optional.empty());
        }

        /**
         * A start of a job that did not ask for a share of one GPU, whose declaration came from no rule.
         *
         * @param at see {@link #at()}
         * @param no see {@link #no()}
         * @param key see {@link #key()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param declaredMib see {@link #declaredMib()}
         * @param dispatched see {@link #dispatched()}
         * @param total see {@link #total()}
         * @param pid see {@link #pid()}
         * @param log see {@link #log()}
         * @param attempt see {@link #attempt()}
         * @param waited see {@link #waited()}
         */
        public JobStarted(Instant at, int no, String key, String command, List<Integer> gpus, OptionalLong declaredMib,
                          int dispatched, int total, long pid, Path log, int attempt, Duration waited) {
            this(at, no, key, command, gpus, declaredMib, dispatched, total, pid, log, attempt, waited, Optional.empty(),
                    Optional.empty());
        }

        /**
         * A start whose wait is not known (zero).
         *
         * @param at see {@link #at()}
         * @param no see {@link #no()}
         * @param key see {@link #key()}
         * @param command see {@link #command()}
         * @param gpus see {@link #gpus()}
         * @param declaredMib see {@link #declaredMib()}
         * @param dispatched see {@link #dispatched()}
         * @param total see {@link #total()}
         * @param pid see {@link #pid()}
         * @param log see {@link #log()}
         * @param attempt see {@link #attempt()}
         */
        public JobStarted(Instant at, int no, String key, String command, List<Integer> gpus, OptionalLong declaredMib,
                          int dispatched, int total, long pid, Path log, int attempt) {
            this(at, no, key, command, gpus, declaredMib, dispatched, total, pid, log, attempt, Duration.ZERO);
        }
    }

    /**
     * Verbose only: a job's peak grew.
     *
     * @param at time
     * @param no display number
     * @param currentMib MiB it holds now, by the index each of its GPUs is listed at now (where it started,
     *     unless the GPUs were renumbered under it)
     * @param peakMib its largest per-GPU peak so far
     */
    record VramGrew(Instant at, int no, Map<Integer, Long> currentMib, long peakMib) implements SchedulerEvent {
        /**
         * Copies the map.
         *
         * @param at see {@link #at()}
         * @param no see {@link #no()}
         * @param currentMib see {@link #currentMib()}
         * @param peakMib see {@link #peakMib()}
         */
        public VramGrew {
            currentMib = Map.copyOf(currentMib);
        }
    }

    /**
     * A job used more than its declaration allows (once per attempt). Neighbours placed under the
     * declaration may now run out of memory.
     *
     * @param at time
     * @param no display number
     * @param gpu the GPU where it peaked highest, by the index it is listed at now (where it started, unless
     *     the GPUs were renumbered under it)
     * @param observedMib its peak there
     * @param declaredMib its declaration
     * @param uuid that GPU's UUID, where the backend names it (simulated GPUs have none)
     */
    record ExceededDeclaration(Instant at, int no, int gpu, long observedMib, long declaredMib, Optional<String> uuid)
            implements SchedulerEvent {
        /**
         * Checks for nulls.
         *
         * @param at see {@link #at()}
         * @param no see {@link #no()}
         * @param gpu see {@link #gpu()}
         * @param observedMib see {@link #observedMib()}
         * @param declaredMib see {@link #declaredMib()}
         * @param uuid see {@link #uuid()}
         */
        public ExceededDeclaration {
            java.util.Objects.requireNonNull(uuid, "uuid");
        }

        /**
         * Without a UUID.
         *
         * @param at see {@link #at()}
         * @param no see {@link #no()}
         * @param gpu see {@link #gpu()}
         * @param observedMib see {@link #observedMib()}
         * @param declaredMib see {@link #declaredMib()}
         */
        public ExceededDeclaration(Instant at, int no, int gpu, long observedMib, long declaredMib) {
            this(at, no, gpu, observedMib, declaredMib, Optional.empty());
        }
    }

    /**
     * A job reached a terminal state. A job cancelled before it started ends here with status
     * {@link JobStatus#CANCELLED} and no GPUs; an infeasible one also had a {@link JobInfeasible}.
     *
     * @param at time
     * @param result the outcome
     * @param tolerance the verdict band, for rendering
     */
    record JobFinished(Instant at, JobResult result, double tolerance) implements SchedulerEvent {
    }

    /**
     * A job hit CUDA OOM and goes back to the queue with a larger declaration.
     *
     * @param at time
     * @param no display number
     * @param attempt attempts made so far
     * @param maxAttempts attempts allowed in all (retries + 1)
     * @param oldMib the declaration of the failed attempt
     * @param nextMib the declaration of the next attempt (empty when there was nothing to bump from)
     */
    record RequeuedAfterOom(Instant at, int no, int attempt, int maxAttempts, OptionalLong oldMib, OptionalLong nextMib)
            implements SchedulerEvent {
    }

    /**
     * A job can never fit and was failed without starting.
     *
     * @param at time
     * @param no display number
     * @param command shell command
     * @param reason why
     */
    record JobInfeasible(Instant at, int no, String command, String reason) implements SchedulerEvent {
    }

    /**
     * A running job is being stopped: SIGTERM went to its session.
     *
     * @param at time
     * @param no display number
     * @param why cancelled by the user, or timed out
     * @param elapsed how long it had run
     * @param limit the limit it reached, for {@link StopReason#TIMEOUT} and {@link StopReason#TIME_SLICE}:
     *     its {@code timeout=}, or the scheduler's {@code --max-job-time}
     * @param maxJobTime whether that limit is the scheduler's {@code --max-job-time} (smaller than any
     *     {@code timeout=} of the job's own), not the job's {@code timeout=}
     * @param resumed whether this scheduler took the stop up from the last one, which journaled it and ended
     *     in its kill grace: then its SIGTERM may be the last scheduler's, sent again only where the
     *     journaled one cannot be counted on, and {@code at} is when this scheduler took the job up
     */
    record JobStopping(Instant at, int no, StopReason why, Duration elapsed, java.util.Optional<Duration> limit,
                       boolean maxJobTime, boolean resumed) implements SchedulerEvent {
        /**
         * A stop this scheduler began.
         *
         * @param at time
         * @param no display number
         * @param why why
         * @param elapsed how long it had run
         * @param limit the limit it reached
         * @param maxJobTime whether that limit is the scheduler's {@code --max-job-time}
         */
        public JobStopping(Instant at, int no, StopReason why, Duration elapsed, java.util.Optional<Duration> limit,
                           boolean maxJobTime) {
            this(at, no, why, elapsed, limit, maxJobTime, false);
        }

        /**
         * A stop for any reason but the scheduler's {@code --max-job-time}.
         *
         * @param at time
         * @param no display number
         * @param why why
         * @param elapsed how long it had run
         * @param limit its {@code timeout=}
         */
        public JobStopping(Instant at, int no, StopReason why, Duration elapsed, java.util.Optional<Duration> limit) {
            this(at, no, why, elapsed, limit, false, false);
        }
    }

    /** Why a running job is being stopped. */
    enum StopReason {
        /** The line got the {@code cancel} token. */
        CANCELLED,
        /** It ran past its {@code timeout}. */
        TIMEOUT,
        /** The scheduler itself is stopping (Ctrl-C or close). */
        SHUTDOWN,
        /** A higher-priority job that waited long needs its GPUs; it is requeued, not failed. */
        PREEMPTED,
        /** It used up its time slice ({@code on-timeout=requeue}); it goes to the end of the queue. */
        TIME_SLICE
    }

    /**
     * A preempted or time-sliced job went back to the queue; its attempt count is unchanged and it is
     * not a failure.
     *
     * @param at time
     * @param no display number
     * @param why {@link StopReason#PREEMPTED} or {@link StopReason#TIME_SLICE}
     * @param ran how long this run lasted
     */
    record JobRequeued(Instant at, int no, StopReason why, Duration ran) implements SchedulerEvent {
    }

    /**
     * GPUs were reserved for the head of the queue (or its reservation moved): later jobs may use them
     * only if they are sure to end before every job already there.
     *
     * @param at time
     * @param reservation the job, its GPUs, how long it waited, and any preemptible jobs stopped for it
     */
    record Reserved(Instant at, io.gpusched.policy.Reservation reservation) implements SchedulerEvent {
    }

    /**
     * A job will never run because a job it had to run after did not succeed.
     *
     * @param at time
     * @param no display number
     * @param command shell command
     * @param reason which dependency, and how it ended
     */
    record DependencyFailed(Instant at, int no, String command, String reason) implements SchedulerEvent {
    }

    /**
     * A stopping job outlived its grace period and got SIGKILL.
     *
     * @param at time
     * @param no display number
     * @param grace the grace it had
     */
    record KillEscalated(Instant at, int no, Duration grace) implements SchedulerEvent {
    }

    /**
     * A job the journal marks done in an earlier run is skipped.
     *
     * @param at time
     * @param no display number
     * @param command shell command
     */
    record AlreadyCompleted(Instant at, int no, String command) implements SchedulerEvent {
    }

    /**
     * A job of the queue had already ended in an earlier run, as the journal records: said once per
     * run for every such job, whatever its outcome ({@link AlreadyCompleted} also follows for an
     * {@code ok} one, as before). It is not run again unless {@code runAgain}: with
     * {@code --retry-failed}, a job that failed, timed out, was infeasible or failed with CUDA OOM
     * runs again; a cancelled or successful one never does.
     *
     * @param at time
     * @param no display number
     * @param key identity key
     * @param command shell command
     * @param status its earlier outcome
     * @param exitCode its earlier exit code
     * @param runAgain whether it runs again now ({@code --retry-failed})
     */
    record AlreadyEnded(Instant at, int no, String key, String command, JobStatus status, int exitCode,
                        boolean runAgain) implements SchedulerEvent {
    }

    /**
     * A job that had already ended was edited (its attributes, or its {@code cancel} word, changed
     * while its command stayed the same, so it keeps its identity). An ended job never runs again
     * on its own; the warning says how to run it.
     *
     * @param at time
     * @param no display number
     * @param command shell command
     * @param status the outcome it keeps
     */
    record EndedJobEdited(Instant at, int no, String command, JobStatus status) implements SchedulerEvent {
    }

    /**
     * A GPU was paused or resumed (journaled: it stays so across restarts). Running jobs continue; while
     * paused, no new job is placed there.
     *
     * @param at time
     * @param gpu the GPU index
     * @param paused true when paused, false when resumed
     */
    record GpuPauseChanged(Instant at, int gpu, boolean paused) implements SchedulerEvent {
    }

    /**
     * The journal grew past its threshold and was compacted: rewritten as its folded state.
     *
     * @param at time
     * @param bytesBefore its size before, in bytes
     * @param bytesAfter its size after, in bytes
     */
    record JournalCompacted(Instant at, long bytesBefore, long bytesAfter) implements SchedulerEvent {
    }

    /**
     * A job a dead scheduler started is still alive; it is not started again.
     *
     * @param at time
     * @param no display number
     * @param pgid its process group / session id, for {@code kill -TERM -PGID}
     */
    record OrphanFound(Instant at, int no, long pgid) implements SchedulerEvent {
    }

    /**
     * A job a dead scheduler started still runs and is taken up again: it is a running job from here on
     * (its GPUs held by its declaration, its memory measured, cancel and timeout apply); it is never
     * started again.
     *
     * @param at time
     * @param no display number
     * @param pgid its session id; empty for an {@code srun} command, which runs in its client's terminal
     */
    record OrphanAdopted(Instant at, int no, java.util.OptionalLong pgid) implements SchedulerEvent {
    }

    /**
     * A job a dead scheduler started is gone; it was requeued.
     *
     * @param at time
     * @param no display number
     */
    record OrphanRequeued(Instant at, int no) implements SchedulerEvent {
    }

    /**
     * The jobs file could not be read or parsed; the last good queue is kept (once per distinct error).
     *
     * @param at time
     * @param message the one-line error, with file and line
     */
    record JobsFileRejected(Instant at, String message) implements SchedulerEvent {
    }

    /**
     * A GPU snapshot failed.
     *
     * @param at time
     * @param message the backend's error
     * @param consecutive failures in a row
     * @param dispatchPaused whether dispatch is now paused (running jobs are still tracked)
     */
    record BackendFailed(Instant at, String message, int consecutive, boolean dispatchPaused) implements SchedulerEvent {
    }

    /**
     * Snapshots work again after failures.
     *
     * @param at time
     * @param failures how many had failed in a row
     */
    record BackendRecovered(Instant at, int failures) implements SchedulerEvent {
    }

    /**
     * Something the user should know once (backend notes, PID-namespace trouble, listener failures).
     *
     * @param at time
     * @param message the warning
     */
    record Warning(Instant at, String message) implements SchedulerEvent {
    }

    /**
     * The queue is empty and nothing runs; with {@code --watch} the scheduler keeps waiting for lines.
     *
     * @param at time
     * @param watching whether it keeps running
     */
    record Drained(Instant at, boolean watching) implements SchedulerEvent {
    }

    /**
     * The scheduler is stopping on Ctrl-C or {@link Scheduler#close()}: it terminates running jobs, or
     * leaves them running for the next scheduler on its log directory to take up
     * ({@link Scheduler.Builder#leaveJobsRunningOnClose(boolean)}).
     *
     * @param at time
     * @param running jobs being terminated; when {@code jobsKeepRunning}, the jobs left running (those
     *     already being stopped by a cancel or a timeout are seen to their end first and not counted)
     * @param jobsKeepRunning whether running jobs are left running
     * @param beingStopped when {@code jobsKeepRunning}, the jobs already being stopped by a cancel or a
     *     timeout, which the stop sees to their end first (SIGKILL after the kill grace); 0 otherwise
     */
    record Stopping(Instant at, int running, boolean jobsKeepRunning, int beingStopped) implements SchedulerEvent {
        /**
         * A stop with no job being stopped already.
         *
         * @param at time
         * @param running see {@link #running()}
         * @param jobsKeepRunning see {@link #jobsKeepRunning()}
         */
        public Stopping(Instant at, int running, boolean jobsKeepRunning) {
            this(at, running, jobsKeepRunning, 0);
        }

        /**
         * A stop that terminates running jobs.
         *
         * @param at time
         * @param running jobs being terminated
         */
        public Stopping(Instant at, int running) {
            this(at, running, false);
        }
    }

    /**
     * The scheduler drains ({@link Scheduler#drain()}): it starts no job from now on, and ends once the
     * running ones have.
     *
     * @param at time
     * @param running jobs it waits for (srun commands included)
     * @param waiting jobs queued that it will not start: they stay in the journal for the next scheduler
     */
    record Draining(Instant at, int running, int waiting) implements SchedulerEvent {
    }

    /**
     * The run ended.
     *
     * @param at time
     * @param summary its results and exit code
     */
    record RunFinished(Instant at, RunSummary summary) implements SchedulerEvent {
    }

    /**
     * The state of the queue after a round, for status boards.
     *
     * @param at time
     * @param board every job's row
     */
    record StatusUpdated(Instant at, StatusBoard board) implements SchedulerEvent {
    }
}

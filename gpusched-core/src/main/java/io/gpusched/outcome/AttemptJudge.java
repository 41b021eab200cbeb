package io.gpusched.outcome;

import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.jobs.Scheduling;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Verdict;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Judges how an attempt ended, the one rule every driver applies (the engine's local and Slurm runs,
 * the testkit's replay): an attempt stopped to run again later is not an outcome: a preempted one
 * {@link RunAgain runs again} where it stood in the queue, one whose time slice ran out
 * ({@code on-timeout=requeue}, see {@link #stopAtTheLimit}) at the back; a stop on purpose is
 * {@link JobStatus#CANCELLED} or {@link JobStatus#TIMEOUT}; a failure whose log ends in a CUDA OOM runs
 * again with a {@link Verdicts#bump bumped} declaration while retries are left, and is
 * {@link JobStatus#FAILED_OOM} after; any other exit is {@link JobStatus#OK} (0) or
 * {@link JobStatus#FAILED}. Only an ok attempt's declaration gets a verdict.
 *
 * <p>Pure: it decides, its driver journals, reports and resubmits. The log's end is read through the
 * function it is given, and only for a failure that may be an OOM.
 */
public final class AttemptJudge {
    /** What an OOM retry of an undeclared job asks for: a property of the driver that runs it. */
    public enum UndeclaredRetry {
        /** The bump of its attributed peak (a local run: undeclared, it had an idle GPU to itself). */
        DECLARES_THE_BUMPED_PEAK,
        /** A whole GPU again, undeclared as before (Slurm: undeclared means a whole GPU there). */
        STAYS_UNDECLARED
    }

    /** What to do with a job whose attempt ended. */
    public sealed interface Decision permits Requeue, RunAgain, Final {
    }

    /** Where a job stopped to run again waits in the queue. */
    public enum Place {
        /** Where it stood, waiting since it first queued (a preempted job: it was not at fault). */
        WHERE_IT_STOOD,
        /** At the back, waiting from its stop (a used-up time slice: the others get their turn). */
        AT_THE_BACK
    }

    /**
     * Stopped on purpose to run again later, by a preemption or its time slice: not an outcome, and the
     * attempt does not count against its OOM retries.
     *
     * @param place where it waits in the queue
     */
    public record RunAgain(Place place) implements Decision {
        /**
         * Checks the place is given.
         *
         * @param place see {@link #place()}
         */
        public RunAgain {
            Objects.requireNonNull(place, "place");
        }
    }

    /**
     * A CUDA OOM with retries left: the job runs again.
     *
     * @param bumpedMib the retry's declaration in MiB; empty when it runs undeclared
     */
    public record Requeue(OptionalLong bumpedMib) implements Decision {
        /**
         * Checks the declaration is given.
         *
         * @param bumpedMib see {@link #bumpedMib()}
         */
        public Requeue {
            Objects.requireNonNull(bumpedMib, "bumpedMib");
        }
    }

    /**
     * The job's outcome: it does not run again.
     *
     * @param status how it ended
     * @param verdict what its peak says of its declaration; judged for an {@link JobStatus#OK} job only,
     *     {@link Verdict#NOT_JUDGED} for any other (or {@link Verdict#UNATTRIBUTED} when nothing was attributed)
     */
    public record Final(JobStatus status, Verdict verdict) implements Decision {
        /**
         * Checks both are given.
         *
         * @param status see {@link #status()}
         * @param verdict see {@link #verdict()}
         */
        public Final {
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(verdict, "verdict");
        }
    }

    private final double tolerance;
    private final UndeclaredRetry undeclared;

    /**
     * @param tolerance the verdict band, e.g. 0.1 for ±10 %
     * @param undeclared what an undeclared job's OOM retry asks for
     */
    public AttemptJudge(double tolerance, UndeclaredRetry undeclared) {
        this.tolerance = tolerance;
        this.undeclared = Objects.requireNonNull(undeclared, "undeclared");
    }

    /**
     * Why a job that reached its {@code timeout=} is stopped: its time slice ends
     * ({@link StopReason#TIME_SLICE}, it {@link RunAgain runs again} at the back) with
     * {@code on-timeout=requeue}, else it times out ({@link StopReason#TIMEOUT}, its outcome).
     *
     * @param onTimeout the job's {@code on-timeout=}
     * @return the stop's reason, which its attempt's end is judged by
     */
    public static StopReason stopAtTheLimit(Scheduling.OnTimeout onTimeout) {
        return onTimeout == Scheduling.OnTimeout.REQUEUE ? StopReason.TIME_SLICE : StopReason.TIMEOUT;
    }

    /**
     * Whether an attempt stopped for this reason runs again rather than being judged: a preemption runs
     * again where it stood, a used-up time slice at the back; any other stop (or none) ends in an outcome.
     *
     * @param stoppedFor why the scheduler stopped it; empty when it did not
     * @return where it runs again; empty when its end is an outcome (or, for the scheduler's own stop,
     *     the driver's to decide)
     */
    public static Optional<RunAgain> runsAgain(Optional<StopReason> stoppedFor) {
        if (stoppedFor.equals(Optional.of(StopReason.PREEMPTED))) {
            return Optional.of(new RunAgain(Place.WHERE_IT_STOOD));
        } else if (stoppedFor.equals(Optional.of(StopReason.TIME_SLICE))) {
            return Optional.of(new RunAgain(Place.AT_THE_BACK));
        }
        return Optional.empty();
    }

    /**
     * @param end the attempt's facts
     * @param logTail the end of its output ({@link Verdicts#OOM_TAIL_BYTES}); asked for at most once, and
     *     only for an attempt that failed on its own after its command ran
     * @return {@link RunAgain} for a preempted attempt or a used-up time slice ({@link #runsAgain}),
     *     {@link Requeue} for an OOM with retries left, else the {@link Final} outcome
     */
    public Decision judge(AttemptFacts end, Supplier<String> logTail) {
        Optional<RunAgain> again = runsAgain(end.stoppedFor());
        if (again.isPresent()) {
            return again.get();
        }
        boolean failed = end.exitCode() != 0 && end.stoppedFor().isEmpty();
        boolean oom = failed && end.commandRan() && Verdicts.looksLikeOom(logTail.get());
        if (oom && end.attempt() <= end.retries()) {
            long peak = end.peakMib().orElse(0);
            return new Requeue(end.declaredMib().isEmpty() && undeclared == UndeclaredRetry.STAYS_UNDECLARED
                    ? OptionalLong.empty() : Verdicts.bump(end.declaredMib(), peak));
        }
        JobStatus status = status(end.stoppedFor(), oom, end.exitCode());
        Verdict verdict = status == JobStatus.OK
                ? Verdicts.verdict(end.declaredMib(), end.attributed(), end.peakMib().orElse(0), tolerance)
                : (end.attributed() ? Verdict.NOT_JUDGED : Verdict.UNATTRIBUTED);
        return new Final(status, verdict);
    }

    private static JobStatus status(Optional<StopReason> stoppedFor, boolean oom, int exitCode) {
        if (stoppedFor.equals(Optional.of(StopReason.CANCELLED))) {
            return JobStatus.CANCELLED;
        } else if (stoppedFor.equals(Optional.of(StopReason.TIMEOUT))) {
            return JobStatus.TIMEOUT;
        } else if (oom) {
            return JobStatus.FAILED_OOM;
        }
        return exitCode == 0 ? JobStatus.OK : JobStatus.FAILED;
    }
}

package io.gpusched.outcome;

import io.gpusched.event.SchedulerEvent.StopReason;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What is known of one attempt of a job when it ends, whichever driver ran it (a local session, a Slurm
 * job): the facts {@link AttemptJudge} judges. The log's end is not among them: the judge asks for it
 * only when an OOM is possible.
 *
 * @param stoppedFor why the scheduler stopped it, when it did: {@link StopReason#CANCELLED} or
 *     {@link StopReason#TIMEOUT} end it; {@link StopReason#PREEMPTED} or {@link StopReason#TIME_SLICE}
 *     make it {@link AttemptJudge.RunAgain run again} (see {@link AttemptJudge#stopAtTheLimit}); the
 *     scheduler's own stop is its driver's to handle (were it given, the attempt would be judged by its
 *     exit status and never as an OOM)
 * @param exitCode its exit status (128 + the signal's number when a signal ended it)
 * @param commandRan false when its command is known not to have run (its setup failed, its conda is
 *     missing, gpusched-runas refused it) or nothing says that it did (a Slurm job that left no wrapper
 *     report): its log is then never read for an OOM
 * @param attempt this attempt's number, from 1 (the OOM retries before it, plus one)
 * @param retries how many OOM retries the job may have, at least 0 (the larger of its {@code retries=}
 *     and the run's {@code --retries})
 * @param declaredMib the attempt's declaration in MiB; empty when undeclared
 * @param peakMib its highest per-GPU peak in MiB when its GPU processes were attributed to it; empty
 *     when they never were
 */
public record AttemptFacts(Optional<StopReason> stoppedFor, int exitCode, boolean commandRan, int attempt, int retries,
                           OptionalLong declaredMib, OptionalLong peakMib) {
    /**
     * Checks the facts.
     *
     * @param stoppedFor see {@link #stoppedFor()}
     * @param exitCode see {@link #exitCode()}
     * @param commandRan see {@link #commandRan()}
     * @param attempt see {@link #attempt()}
     * @param retries see {@link #retries()}
     * @param declaredMib see {@link #declaredMib()}
     * @param peakMib see {@link #peakMib()}
     * @throws IllegalArgumentException for an attempt below 1 or negative retries
     */
    public AttemptFacts {
        Objects.requireNonNull(stoppedFor, "stoppedFor");
        Objects.requireNonNull(declaredMib, "declaredMib");
        Objects.requireNonNull(peakMib, "peakMib");
        if (attempt < 1 || retries < 0) {
            throw new IllegalArgumentException("attempt " + attempt + " of " + retries + " retries");
        }
    }

    /** @return whether its processes were attributed, so that its peak says something */
    public boolean attributed() {
        return peakMib.isPresent();
    }
}

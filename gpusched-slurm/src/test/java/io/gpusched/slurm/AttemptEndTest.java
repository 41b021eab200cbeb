package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.gpusched.jobs.Units;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import io.gpusched.outcome.AttemptJudge;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * How an attempt's end is judged from Slurm's state and the wrapper's report, one rule per test: the facts are
 * Slurm's, the rules are core's {@link AttemptJudge}, as a local run's are.
 */
class AttemptEndTest {
    private static final AttemptJudge JUDGE = new AttemptJudge(0.1, AttemptJudge.UndeclaredRetry.STAYS_UNDECLARED);
    private static final Supplier<String> OOM = () -> "torch.OutOfMemoryError: CUDA out of memory.";
    private static final Supplier<String> PLAIN = () -> "Traceback: KeyError";
    private static final Supplier<String> UNREAD = () -> {
        throw new AssertionError("the log is read only for a failure");
    };

    private static Optional<WrapReport> exited(int code, long peakMib) {
        return Optional.of(new WrapReport(10, List.of(0), "n", 1_000, OptionalLong.of(4_000), OptionalInt.of(code),
                peakMib > 0 ? Map.of(0, peakMib) : Map.of(), OptionalDouble.empty(), Optional.empty()));
    }

    private static AttemptEnd judge(String slurmState, Optional<WrapReport> result, boolean cancelRequested,
                                    Supplier<String> logTail, int attempt, int maxAttempts, OptionalLong declaredMib) {
        return AttemptEnd.judge(JUDGE, slurmState, result, cancelRequested, logTail, attempt, maxAttempts, declaredMib);
    }

    private static AttemptJudge.Final ended(AttemptEnd e) {
        return assertInstanceOf(AttemptJudge.Final.class, e.decision());
    }

    private static AttemptJudge.Requeue retried(AttemptEnd e) {
        return assertInstanceOf(AttemptJudge.Requeue.class, e.decision());
    }

    @Test
    void exitZeroIsOk_withTheWrappersPeakAndDuration() {
        AttemptEnd e = judge("COMPLETED", exited(0, 900), false, UNREAD, 1, 1, OptionalLong.of(1000));
        assertEquals(JobStatus.OK, ended(e).status());
        assertEquals(Map.of(0, 900L), e.measured().peakMib());
        assertEquals(3_000, e.measured().took().toMillis());
        assertEquals(Measurement.MEASURED, e.measured().measurement());
    }

    @Test
    void anOomWithAttemptsLeftIsRetriedWithTheBump_andWithoutIsFailedOom() {
        AttemptJudge.Requeue r = retried(judge("FAILED", exited(1, 2400), false, OOM, 1, 2, OptionalLong.of(2000)));
        assertEquals(OptionalLong.of(3000), r.bumpedMib(), "⌈1.25 × max(2400, 2000)⌉");
        assertEquals(JobStatus.FAILED_OOM,
                ended(judge("FAILED", exited(1, 2400), false, OOM, 2, 2, OptionalLong.of(2000))).status());
    }

    @Test
    void anUndeclaredJobsOomIsRetriedOnAWholeGpuAgain() {
        AttemptJudge.Requeue r = retried(judge("FAILED", exited(1, 7000), false, OOM, 1, 3, OptionalLong.empty()));
        assertEquals(OptionalLong.empty(), r.bumpedMib());
    }

    @Test
    void aFailureWithoutAnOomInTheLogIsFailedWithItsExit() {
        AttemptEnd e = judge("FAILED", exited(3, 10), false, PLAIN, 1, 5, OptionalLong.of(100));
        assertEquals(JobStatus.FAILED, ended(e).status());
        assertEquals(3, e.exitCode());
    }

    @Test
    void slurmsTimeLimitIsATimeoutWhateverTheExit() {
        assertEquals(JobStatus.TIMEOUT, ended(judge("TIMEOUT", exited(143, 5), false, OOM, 1, 5,
                OptionalLong.empty())).status());
    }

    @Test
    void aCancelOfOursIsCancelled_butSomeoneElsesScancelAfterAnExitZeroLeavesItOk() {
        assertEquals(JobStatus.CANCELLED, ended(judge("RUNNING", exited(0, 5), true, UNREAD, 1, 1,
                OptionalLong.empty())).status());
        assertEquals(JobStatus.CANCELLED, ended(judge("CANCELLED", Optional.empty(), false, UNREAD, 1, 1,
                OptionalLong.empty())).status());
        assertEquals(JobStatus.OK, ended(judge("CANCELLED", exited(0, 5), false, UNREAD, 1, 1,
                OptionalLong.empty())).status());
    }

    @Test
    void noWrapperReportIsAFailureThatWasNotMeasured() {
        AttemptEnd e = judge("GONE", Optional.empty(), false, UNREAD, 1, 3, OptionalLong.of(1));
        assertEquals(JobStatus.FAILED, ended(e).status());
        assertEquals(Measurement.NOT_RUN, e.measured().measurement());
        assertEquals(false, e.measured().reported());
    }

    @Test
    void anOomRetrysDeclarationIsClampedToTheLargestAJobsFileMayDeclare_asALocalRunsIs() {
        // The former copy of the rules (OomCheck.bump) asked for ⌈1.25 × 2147483647⌉ = 2684354559 MiB here.
        AttemptJudge.Requeue r = retried(judge("FAILED", exited(1, 100), false, OOM, 1, 2, OptionalLong.of(Units.MAX_MIB)));
        assertEquals(OptionalLong.of(Units.MAX_MIB), r.bumpedMib());
    }

    @Test
    void onlyAnOkAttemptsDeclarationIsJudged_asALocalRunsIs() {
        assertEquals(Verdict.WITHIN, ended(judge("COMPLETED", exited(0, 1000), false, UNREAD, 1, 1,
                OptionalLong.of(1000))).verdict());
        // The former copy judged every measured attempt: this failed one was "over" (under-declared).
        assertEquals(Verdict.NOT_JUDGED, ended(judge("FAILED", exited(3, 5000), false, PLAIN, 1, 1,
                OptionalLong.of(1000))).verdict());
        assertEquals(Verdict.NOT_JUDGED, ended(judge("TIMEOUT", exited(143, 5000), false, UNREAD, 1, 1,
                OptionalLong.of(1000))).verdict());
        assertEquals(Verdict.UNATTRIBUTED, ended(judge("GONE", Optional.empty(), false, UNREAD, 1, 1,
                OptionalLong.of(1000))).verdict());
    }

    @Test
    void slurmsTimeLimitRecordsTheTimeoutExitStatus() {
        assertEquals(io.gpusched.model.RunSummary.TIMEOUT_EXIT,
                judge("TIMEOUT", exited(143, 5), false, UNREAD, 1, 1, OptionalLong.empty()).exitCode());
    }

    @Test
    void aJobCancelledBeforeItWasSubmittedIsCancelledWithExitZeroAndNothingMeasured() {
        AttemptEnd e = AttemptEnd.neverSubmitted(JUDGE, 1, OptionalLong.of(1000));
        assertEquals(new AttemptJudge.Final(JobStatus.CANCELLED, Verdict.UNATTRIBUTED), e.decision());
        assertEquals(0, e.exitCode());
        assertEquals(Measurement.NOT_RUN, e.measured().measurement());
    }
}

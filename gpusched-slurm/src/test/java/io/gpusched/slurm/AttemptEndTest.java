package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** How an attempt's end is judged from Slurm's state and the wrapper's report, one rule per test. */
class AttemptEndTest {
    private static final Supplier<String> OOM = () -> "torch.OutOfMemoryError: CUDA out of memory.";
    private static final Supplier<String> PLAIN = () -> "Traceback: KeyError";
    private static final Supplier<String> UNREAD = () -> {
        throw new AssertionError("the log is read only for a failure");
    };

    private static Optional<WrapReport> exited(int code, long peakMib) {
        return Optional.of(new WrapReport(10, List.of(0), "n", 1_000, OptionalLong.of(4_000), OptionalInt.of(code),
                peakMib > 0 ? Map.of(0, peakMib) : Map.of(), OptionalDouble.empty(), Optional.empty()));
    }

    private static AttemptEnd.Ended ended(AttemptEnd e) {
        return assertInstanceOf(AttemptEnd.Ended.class, e);
    }

    @Test
    void exitZeroIsOk_withTheWrappersPeakAndDuration() {
        AttemptEnd.Ended e = ended(AttemptEnd.judge("COMPLETED", exited(0, 900), false, UNREAD, 1, 1, OptionalLong.of(1000)));
        assertEquals(JobStatus.OK, e.status());
        assertEquals(Map.of(0, 900L), e.measured().peakMib());
        assertEquals(3_000, e.measured().took().toMillis());
        assertEquals(Measurement.MEASURED, e.measured().measurement());
    }

    @Test
    void anOomWithAttemptsLeftIsRetriedWithTheBump_andWithoutIsFailedOom() {
        AttemptEnd.OomRetry r = assertInstanceOf(AttemptEnd.OomRetry.class,
                AttemptEnd.judge("FAILED", exited(1, 2400), false, OOM, 1, 2, OptionalLong.of(2000)));
        assertEquals(OptionalLong.of(3000), r.nextMib(), "⌈1.25 × max(2400, 2000)⌉");
        assertEquals(JobStatus.FAILED_OOM,
                ended(AttemptEnd.judge("FAILED", exited(1, 2400), false, OOM, 2, 2, OptionalLong.of(2000))).status());
    }

    @Test
    void anUndeclaredJobsOomIsRetriedOnAWholeGpuAgain() {
        AttemptEnd.OomRetry r = assertInstanceOf(AttemptEnd.OomRetry.class,
                AttemptEnd.judge("FAILED", exited(1, 7000), false, OOM, 1, 3, OptionalLong.empty()));
        assertEquals(OptionalLong.empty(), r.nextMib());
    }

    @Test
    void aFailureWithoutAnOomInTheLogIsFailedWithItsExit() {
        AttemptEnd.Ended e = ended(AttemptEnd.judge("FAILED", exited(3, 10), false, PLAIN, 1, 5, OptionalLong.of(100)));
        assertEquals(JobStatus.FAILED, e.status());
        assertEquals(3, e.exitCode());
    }

    @Test
    void slurmsTimeLimitIsATimeoutWhateverTheExit() {
        assertEquals(JobStatus.TIMEOUT, ended(AttemptEnd.judge("TIMEOUT", exited(143, 5), false, OOM, 1, 5,
                OptionalLong.empty())).status());
    }

    @Test
    void aCancelOfOursIsCancelled_butSomeoneElsesScancelAfterAnExitZeroLeavesItOk() {
        assertEquals(JobStatus.CANCELLED, ended(AttemptEnd.judge("RUNNING", exited(0, 5), true, UNREAD, 1, 1,
                OptionalLong.empty())).status());
        assertEquals(JobStatus.CANCELLED, ended(AttemptEnd.judge("CANCELLED", Optional.empty(), false, UNREAD, 1, 1,
                OptionalLong.empty())).status());
        assertEquals(JobStatus.OK, ended(AttemptEnd.judge("CANCELLED", exited(0, 5), false, UNREAD, 1, 1,
                OptionalLong.empty())).status());
    }

    @Test
    void noWrapperReportIsAFailureThatWasNotMeasured() {
        AttemptEnd.Ended e = ended(AttemptEnd.judge("GONE", Optional.empty(), false, UNREAD, 1, 3, OptionalLong.of(1)));
        assertEquals(JobStatus.FAILED, e.status());
        assertEquals(Measurement.NOT_RUN, e.measured().measurement());
        assertEquals(false, e.measured().reported());
    }
}

package io.gpusched.outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.jobs.Scheduling;
import io.gpusched.jobs.Units;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Verdict;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** How an attempt's end is judged, whichever driver ran it: one rule per test, with no process, clock or file. */
class AttemptJudgeTest {
    private static final AttemptJudge LOCAL = new AttemptJudge(0.1, AttemptJudge.UndeclaredRetry.DECLARES_THE_BUMPED_PEAK);
    private static final AttemptJudge SLURM = new AttemptJudge(0.1, AttemptJudge.UndeclaredRetry.STAYS_UNDECLARED);
    private static final Supplier<String> OOM = () -> "torch.OutOfMemoryError: CUDA out of memory.";
    private static final Supplier<String> PLAIN = () -> "Traceback: KeyError";
    private static final Supplier<String> UNREAD = () -> {
        throw new AssertionError("the log is read only for a failure that may be an OOM");
    };

    /** An attempt the scheduler did not stop, that ran its command, declared 2000 MiB and peaked at 2400. */
    private static AttemptFacts exited(int code, int attempt, int retries) {
        return new AttemptFacts(Optional.empty(), code, true, attempt, retries, OptionalLong.of(2000), OptionalLong.of(2400));
    }

    private static AttemptJudge.Final fin(AttemptJudge.Decision d) {
        return assertInstanceOf(AttemptJudge.Final.class, d);
    }

    @Test
    void exitZeroIsOk_andItsDeclarationIsJudgedAgainstThePeak() {
        AttemptFacts ok = new AttemptFacts(Optional.empty(), 0, true, 1, 0, OptionalLong.of(1000), OptionalLong.of(1050));
        assertEquals(new AttemptJudge.Final(JobStatus.OK, Verdict.WITHIN), LOCAL.judge(ok, UNREAD));
        AttemptFacts over = new AttemptFacts(Optional.empty(), 0, true, 1, 0, OptionalLong.of(1000), OptionalLong.of(2000));
        assertEquals(Verdict.OVER, fin(LOCAL.judge(over, UNREAD)).verdict());
    }

    @Test
    void anOkJobWithNothingAttributedIsUnattributed_andAnUndeclaredOneIsNotJudged() {
        assertEquals(Verdict.UNATTRIBUTED, fin(LOCAL.judge(new AttemptFacts(Optional.empty(), 0, true, 1, 0,
                OptionalLong.of(1000), OptionalLong.empty()), UNREAD)).verdict());
        assertEquals(Verdict.NOT_JUDGED, fin(LOCAL.judge(new AttemptFacts(Optional.empty(), 0, true, 1, 0,
                OptionalLong.empty(), OptionalLong.of(900)), UNREAD)).verdict());
    }

    @Test
    void onlyAnOkJobsDeclarationIsJudged() {
        assertEquals(new AttemptJudge.Final(JobStatus.FAILED, Verdict.NOT_JUDGED), SLURM.judge(exited(3, 1, 5), PLAIN));
        assertEquals(new AttemptJudge.Final(JobStatus.FAILED, Verdict.UNATTRIBUTED), SLURM.judge(new AttemptFacts(
                Optional.empty(), 3, true, 1, 5, OptionalLong.of(2000), OptionalLong.empty()), PLAIN));
    }

    @Test
    void anOomWithRetriesLeftRunsAgainWithTheBump_andOnTheLastAttemptIsFailedOom() {
        AttemptJudge.Requeue r = assertInstanceOf(AttemptJudge.Requeue.class, LOCAL.judge(exited(1, 1, 1), OOM));
        assertEquals(OptionalLong.of(3000), r.bumpedMib(), "⌈1.25 × max(2400, 2000)⌉");
        assertEquals(new AttemptJudge.Final(JobStatus.FAILED_OOM, Verdict.NOT_JUDGED), LOCAL.judge(exited(1, 2, 1), OOM));
        assertEquals(JobStatus.FAILED_OOM, fin(LOCAL.judge(exited(1, 1, 0), OOM)).status(), "no retries at all");
    }

    @Test
    void aRetrysDeclarationNeverExceedsTheLargestAJobsFileMayDeclare() {
        AttemptFacts huge = new AttemptFacts(Optional.empty(), 1, true, 1, 1, OptionalLong.of(Units.MAX_MIB),
                OptionalLong.of(Units.MAX_MIB));
        assertEquals(new AttemptJudge.Requeue(OptionalLong.of(Units.MAX_MIB)), SLURM.judge(huge, OOM));
        assertEquals(new AttemptJudge.Requeue(OptionalLong.of(Units.MAX_MIB)), LOCAL.judge(huge, OOM));
    }

    @Test
    void anUndeclaredJobsOomRetryDeclaresItsBumpedPeakLocally_butStaysUndeclaredOnSlurm() {
        AttemptFacts undeclared = new AttemptFacts(Optional.empty(), 1, true, 1, 3, OptionalLong.empty(),
                OptionalLong.of(7000));
        assertEquals(new AttemptJudge.Requeue(OptionalLong.of(8750)), LOCAL.judge(undeclared, OOM));
        assertEquals(new AttemptJudge.Requeue(OptionalLong.empty()), SLURM.judge(undeclared, OOM));
        AttemptFacts unseen = new AttemptFacts(Optional.empty(), 1, true, 1, 3, OptionalLong.empty(), OptionalLong.empty());
        assertEquals(new AttemptJudge.Requeue(OptionalLong.empty()), LOCAL.judge(unseen, OOM),
                "nothing to bump from: it runs undeclared again");
    }

    @Test
    void aFailureWithoutAnOomInItsLogIsFailed() {
        assertEquals(JobStatus.FAILED, fin(LOCAL.judge(exited(3, 1, 5), PLAIN)).status());
        assertEquals(JobStatus.FAILED, fin(LOCAL.judge(exited(3, 1, 5), () -> "")).status(), "an unreadable log");
    }

    @Test
    void aCommandThatNeverRanIsNeverAnOom_andItsLogIsNotRead() {
        AttemptFacts setupFailed = new AttemptFacts(Optional.empty(), 1, false, 1, 5, OptionalLong.of(2000),
                OptionalLong.empty());
        assertEquals(new AttemptJudge.Final(JobStatus.FAILED, Verdict.UNATTRIBUTED), LOCAL.judge(setupFailed, UNREAD));
    }

    @Test
    void aCancelOrATimeoutIsThatWhateverTheExitOrTheLogSays() {
        for (int exit : new int[] {0, 1, 137}) {
            assertEquals(JobStatus.CANCELLED, fin(LOCAL.judge(new AttemptFacts(Optional.of(StopReason.CANCELLED), exit,
                    true, 1, 5, OptionalLong.of(2000), OptionalLong.of(2400)), UNREAD)).status());
            assertEquals(new AttemptJudge.Final(JobStatus.TIMEOUT, Verdict.NOT_JUDGED), LOCAL.judge(new AttemptFacts(
                    Optional.of(StopReason.TIMEOUT), exit, true, 1, 5, OptionalLong.of(2000), OptionalLong.of(2400)), UNREAD));
        }
    }

    @Test
    void aJobStoppedAtItsLimitTimesOutUnlessItAskedToBeRequeued() {
        assertEquals(StopReason.TIMEOUT, AttemptJudge.stopAtTheLimit(Scheduling.OnTimeout.FAIL));
        assertEquals(StopReason.TIME_SLICE, AttemptJudge.stopAtTheLimit(Scheduling.OnTimeout.REQUEUE));
    }

    @Test
    void aUsedUpTimeSliceRunsAgainAtTheBackWhateverTheExitOrTheLogSays() {
        for (int exit : new int[] {0, 1, 143}) {
            assertEquals(new AttemptJudge.RunAgain(AttemptJudge.Place.AT_THE_BACK), LOCAL.judge(new AttemptFacts(
                    Optional.of(AttemptJudge.stopAtTheLimit(Scheduling.OnTimeout.REQUEUE)), exit, true, 1, 0,
                    OptionalLong.of(2000), OptionalLong.of(2400)), UNREAD));
        }
    }

    @Test
    void aPreemptedAttemptRunsAgainWhereItStoodEvenWithNoRetriesLeft() {
        for (AttemptJudge judge : new AttemptJudge[] {LOCAL, SLURM}) {
            assertEquals(new AttemptJudge.RunAgain(AttemptJudge.Place.WHERE_IT_STOOD), judge.judge(new AttemptFacts(
                    Optional.of(StopReason.PREEMPTED), 137, true, 3, 2, OptionalLong.empty(), OptionalLong.empty()), UNREAD));
        }
    }

    @Test
    void onlyAPreemptionOrATimeSliceRunsAgain() {
        assertEquals(Optional.of(new AttemptJudge.RunAgain(AttemptJudge.Place.WHERE_IT_STOOD)),
                AttemptJudge.runsAgain(Optional.of(StopReason.PREEMPTED)));
        assertEquals(Optional.of(new AttemptJudge.RunAgain(AttemptJudge.Place.AT_THE_BACK)),
                AttemptJudge.runsAgain(Optional.of(StopReason.TIME_SLICE)));
        for (StopReason other : new StopReason[] {StopReason.CANCELLED, StopReason.TIMEOUT, StopReason.SHUTDOWN}) {
            assertEquals(Optional.empty(), AttemptJudge.runsAgain(Optional.of(other)), other.name());
        }
        assertEquals(Optional.empty(), AttemptJudge.runsAgain(Optional.empty()));
    }

    @Test
    void theLogIsReadOnceAtMost() {
        AtomicInteger reads = new AtomicInteger();
        LOCAL.judge(exited(1, 2, 1), () -> {
            reads.incrementAndGet();
            return OOM.get();
        });
        assertEquals(1, reads.get());
    }

    @Test
    void anAttemptCountsFromOne() {
        assertThrows(IllegalArgumentException.class, () -> exited(1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> exited(1, 1, -1));
    }
}

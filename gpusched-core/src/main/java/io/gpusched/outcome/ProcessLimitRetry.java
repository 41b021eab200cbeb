package io.gpusched.outcome;

import java.time.Duration;
import java.util.Objects;

/**
 * What becomes of a job whose run never started because its owner was at her process limit
 * ({@code RLIMIT_NPROC}: gpusched-runas's exec refused with {@code EAGAIN}). The limit is transient, her
 * other processes end, so the job is not failed at once as a refused run is: it waits, and is tried again
 * after a back-off that doubles from {@link #FIRST_WAIT} up to {@link #LONGEST_WAIT}, {@link #RETRIES}
 * times; the refusal after those fails it. Waiting without a try in between, it costs her no process
 * and the scheduler nothing per round: no spinning against the limit.
 *
 * <p>With the defaults a job is tried 7 times over about 13 minutes (waits of 15 s, 30 s, 1 min, 2 min,
 * 4 min, 5 min). The refusals are counted by the scheduler that saw them; one that starts anew counts
 * from 0 again (the count is not journaled), so a restart gives a job at most {@link #RETRIES} more tries.
 *
 * <p>Pure: it decides from the count of refusals; its caller journals the job pending again, holds it
 * back for the wait, and says why.
 */
public final class ProcessLimitRetry {
    /** The wait after the first refusal. */
    public static final Duration FIRST_WAIT = Duration.ofSeconds(15);
    /** The longest wait between two tries. */
    public static final Duration LONGEST_WAIT = Duration.ofMinutes(5);
    /** How many times a job refused so is tried again before it fails. */
    public static final int RETRIES = 6;

    private ProcessLimitRetry() {
    }

    /** What to do with the refused job. */
    public sealed interface Decision permits TryAgain, GiveUp {
    }

    /**
     * The job waits, pending, and is tried again.
     *
     * @param after how long it waits before it may be placed again
     * @param tryNo the number of the try that comes next, from 2
     * @param tries how many tries it gets in all ({@link #RETRIES} + 1)
     */
    public record TryAgain(Duration after, int tryNo, int tries) implements Decision {
        /**
         * Checks the wait.
         *
         * @param after see {@link #after()}
         * @param tryNo see {@link #tryNo()}
         * @param tries see {@link #tries()}
         */
        public TryAgain {
            Objects.requireNonNull(after, "after");
        }
    }

    /**
     * Its tries are used up: the job fails, with the refusal as its cause.
     *
     * @param tries how many times it was tried, every one refused
     * @param waited how long it waited between them, in all
     */
    public record GiveUp(int tries, Duration waited) implements Decision {
        /**
         * Checks the wait.
         *
         * @param tries see {@link #tries()}
         * @param waited see {@link #waited()}
         */
        public GiveUp {
            Objects.requireNonNull(waited, "waited");
        }
    }

    /**
     * @param refusalsBefore how many times the job was refused so before this refusal, from 0
     * @return {@link TryAgain} while retries are left, else {@link GiveUp}
     * @throws IllegalArgumentException for a negative count
     */
    public static Decision decide(int refusalsBefore) {
        if (refusalsBefore < 0) {
            throw new IllegalArgumentException("refusals " + refusalsBefore);
        }
        if (refusalsBefore < RETRIES) {
            return new TryAgain(wait(refusalsBefore), refusalsBefore + 2, RETRIES + 1);
        }
        Duration waited = Duration.ZERO;
        for (int i = 0; i < RETRIES; i++) {
            waited = waited.plus(wait(i));
        }
        return new GiveUp(RETRIES + 1, waited);
    }

    /** The wait after refusal number {@code n + 1}: {@link #FIRST_WAIT} doubled n times, at most {@link #LONGEST_WAIT}. */
    private static Duration wait(int n) {
        Duration d = FIRST_WAIT.multipliedBy(1L << Math.min(n, 20));
        return d.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : d;
    }
}

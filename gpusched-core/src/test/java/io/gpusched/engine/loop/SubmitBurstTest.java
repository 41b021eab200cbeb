package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When the round new submissions call for runs: at once for a small queue, after a pause for a large one. */
class SubmitBurstTest {
    private static final long MS = 1_000_000;
    private final SubmitBurst burst = new SubmitBurst();

    @Test
    void nothingSubmittedMeansNoRoundIsDue() {
        assertFalse(burst.pending());
        assertEquals(Long.MAX_VALUE, burst.dueIn(0, 50_000));
    }

    @Test
    void aSmallQueueIsPlannedAtOnce() {
        burst.submitted(100 * MS);
        assertEquals(0, burst.dueIn(100 * MS, SubmitBurst.LARGE_QUEUE - 1));
    }

    @Test
    void aLargeQueueWaitsUntilSubmissionsPause() {
        burst.submitted(100 * MS);
        assertEquals(SubmitBurst.SETTLE_NANOS, burst.dueIn(100 * MS, 10_000));
        burst.submitted(102 * MS);
        assertEquals(SubmitBurst.SETTLE_NANOS - MS, burst.dueIn(103 * MS, 10_000), "each submission restarts the pause");
        assertEquals(0, burst.dueIn(102 * MS + SubmitBurst.SETTLE_NANOS, 10_000));
    }

    @Test
    void aSteadyStreamOfSubmissionsStillGetsARoundWithinTheLongestDeferral() {
        long t = 0;
        burst.submitted(t);
        while (t < SubmitBurst.MAX_DEFER_NANOS) {
            t += MS;
            burst.submitted(t);
            assertTrue(burst.dueIn(t, 10_000) <= SubmitBurst.MAX_DEFER_NANOS - t, "never later than the cap");
        }
        assertEquals(0, burst.dueIn(t, 10_000));
    }

    @Test
    void aRoundPlansEveryWaitingSubmission() {
        burst.submitted(5 * MS);
        burst.planned();
        assertFalse(burst.pending());
        assertEquals(Long.MAX_VALUE, burst.dueIn(6 * MS, 10_000));
    }
}

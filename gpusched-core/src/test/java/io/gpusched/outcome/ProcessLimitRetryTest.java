package io.gpusched.outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A job refused for its owner's process limit waits 15 s, doubling to 5 min, 6 times; the 7th refusal fails it. */
class ProcessLimitRetryTest {
    @Test
    void theWaitsDoubleFrom15SecondsUpTo5Minutes_thenTheJobFails() {
        long[] seconds = {15, 30, 60, 120, 240, 300};
        for (int before = 0; before < seconds.length; before++) {
            assertEquals(new ProcessLimitRetry.TryAgain(Duration.ofSeconds(seconds[before]), before + 2, 7),
                    ProcessLimitRetry.decide(before), "after refusal " + (before + 1));
        }
        assertEquals(new ProcessLimitRetry.GiveUp(7, Duration.ofSeconds(765)), ProcessLimitRetry.decide(6));
        assertEquals(new ProcessLimitRetry.GiveUp(7, Duration.ofSeconds(765)), ProcessLimitRetry.decide(1000));
        assertThrows(IllegalArgumentException.class, () -> ProcessLimitRetry.decide(-1));
    }
}

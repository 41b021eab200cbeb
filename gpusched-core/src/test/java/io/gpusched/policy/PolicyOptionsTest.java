package io.gpusched.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The policy's own range checks, which an embedding program meets (the command line checks first, in its
 * option's words): their messages print a duration as gpusched writes one ({@code 0.5s}), not as
 * {@link Duration#toString()} does ({@code PT0.5S}).
 */
class PolicyOptionsTest {
    @Test
    void outOfRangeDurationsAreSaidInGpuschedsUnits_notAsIsoDurations() {
        PolicyOptions p = PolicyOptions.defaults();
        assertEquals("fair-share half-life must be at least 1s, got 0s", assertThrows(IllegalArgumentException.class,
                () -> p.withFairShareHalfLife(Duration.ZERO)).getMessage());
        assertEquals("age step must be at least 1s, got 0.5s", assertThrows(IllegalArgumentException.class,
                () -> p.withAgeStep(Duration.ofMillis(500))).getMessage());
        assertEquals("reserve-after must not be negative, got -90s", assertThrows(IllegalArgumentException.class,
                () -> p.withReserveAfter(Duration.ofSeconds(-90))).getMessage());
    }
}

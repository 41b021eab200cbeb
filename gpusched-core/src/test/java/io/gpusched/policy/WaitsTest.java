package io.gpusched.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How a waiting time reads on the board. */
class WaitsTest {
    @Test
    void aWaitReadsInItsLargestUnit_withTheNextPaddedToTwoDigits() {
        assertEquals("0s", Waits.format(Duration.ofSeconds(-5)));
        assertEquals("45s", Waits.format(Duration.ofSeconds(45)));
        assertEquals("16m", Waits.format(Duration.ofMinutes(16).plusSeconds(59)));
        assertEquals("3h05m", Waits.format(Duration.ofHours(3).plusMinutes(5)));
        assertEquals("3h00m", Waits.format(Duration.ofHours(3)));
        assertEquals("23h59m", Waits.format(Duration.ofHours(23).plusMinutes(59).plusSeconds(59)));
        assertEquals("2d04h", Waits.format(Duration.ofDays(2).plusHours(4)));
        assertEquals("400d23h", Waits.format(Duration.ofDays(400).plusHours(23)));
    }
}

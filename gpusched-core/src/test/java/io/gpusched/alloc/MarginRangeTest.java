package io.gpusched.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The margin is added to every declaration, so it stops where a declaration does (2147483647 MiB): a margin of
 * Long.MAX_VALUE wrapped a 30 GiB job's need to a negative number that fitted a 24000 MiB GPU, and the job was
 * placed there ({@code gpusched JOBS --margin 9223372036854775807}).
 */
class MarginRangeTest {
    @Test
    void aMarginPastTheLargestDeclarationIsRefused_theLargestIsTaken() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PlacementPolicy(Long.MAX_VALUE, 200, 0.1, false, Optional.empty()));
        assertEquals("margin must be at most 2147483647 MiB, got 9223372036854775807", e.getMessage());
        assertEquals(Integer.MAX_VALUE, new PlacementPolicy(Integer.MAX_VALUE, 200, 0.1, false, Optional.empty()).marginMib());
    }
}

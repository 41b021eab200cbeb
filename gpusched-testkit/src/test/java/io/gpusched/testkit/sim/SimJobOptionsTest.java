package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SimJobOptionsTest {
    @Test
    void defaultsMatchTheOriginal() {
        assertEquals(new SimJobOptions(8000, 0.5, 1.0, 0, Optional.empty(), 0, 0, 0.3, false),
                SimJobOptions.parse(List.of("--vram", "8000")));
    }

    @Test
    void everyFlagInBothSpellings() {
        assertEquals(new SimJobOptions(10, 2, 3, 4, Optional.of("m"), 50, 1, 0.25, true),
                SimJobOptions.parse(List.of("--vram=10", "--ramp", "2", "--hold=3", "--exit-code", "4",
                        "--oom-once=m", "--spike", "50", "--spike-at", "1", "--spike-for=0.25", "--ignore-term")));
    }

    @Test
    void usageRampsLinearlyThenHoldsAndSpikesInItsWindow() {
        var o = new SimJobOptions(1000, 2, 5, 0, Optional.empty(), 3000, 3, 0.5, false);
        assertEquals(0, o.usageAt(0));
        assertEquals(500, o.usageAt(1));
        assertEquals(1000, o.usageAt(2));
        assertEquals(3000, o.usageAt(3.2));
        assertEquals(1000, o.usageAt(3.5));
        assertEquals(7.0, o.durationSeconds());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "--ramp 1", "--vram", "--vram x", "--vram -1", "--vram 1 --exit-code 256",
            "--vram 1 --ramp 1d", "--vram 1 --ramp Infinity", "--vram 1 --hold -1", "--vram 1 --frobnicate 2",
            "--vram 1 --oom-once="})
    void rejectsBadCommandLines(String line) {
        List<String> args = line.isEmpty() ? List.of() : List.of(line.split(" "));
        assertThrows(SimJobOptions.UsageException.class, () -> SimJobOptions.parse(args));
    }
}

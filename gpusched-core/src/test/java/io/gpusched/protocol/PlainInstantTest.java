package io.gpusched.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The queue's rows read their times by hand where {@link Instant#toString} wrote them, as {@link Instant#parse} would. */
class PlainInstantTest {
    @Test
    void everyInstantTheDaemonWrites_readsBackAsInstantParseReadsIt() {
        Random random = new Random(27);
        long first = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long last = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            long second = first + Math.floorMod(random.nextLong(), last - first + 1);
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1_000;
                default -> random.nextInt(1_000_000_000);
            };
            String text = Instant.ofEpochSecond(second, nanos).toString();
            assertEquals(Optional.of(Instant.parse(text)), QueueCodec.plainInstant(text), text);
        }
    }

    @Test
    void aFractionOfAnyLength_readsAsInstantParseReadsIt() {
        for (String text : List.of("2026-11-26T05:30:00.5Z", "2026-11-26T05:30:00.12Z", "2026-11-26T05:30:00.1234Z",
                "2024-02-29T23:59:59.999999999Z")) {
            assertEquals(Optional.of(Instant.parse(text)), QueueCodec.plainInstant(text), text);
        }
    }

    @Test
    void whatIsNotThePlainForm_isLeftToInstantParse() {
        for (String text : List.of("2026-11-26T23:59:60Z", "2026-02-29T00:00:00Z", "2026-13-01T00:00:00Z",
                "2026-11-26T24:00:00Z", "+10000-01-01T00:00:00Z", "2026-11-26T05:30:00.Z", "2026-11-26T05:30:00+01:00",
                "2026-11-26 05:30:00Z", "2026-11-26T05:30:00.1234567890Z", "2026-1a-26T05:30:00Z", "")) {
            assertTrue(QueueCodec.plainInstant(text).isEmpty(), text);
        }
    }
}

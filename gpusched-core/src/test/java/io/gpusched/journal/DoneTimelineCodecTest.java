package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The done event's optional vram_timeline: written only when there is one, read back exactly, checked like every field. */
class DoneTimelineCodecTest {
    private final JournalCodec codec = new JournalCodec();

    @Test
    void aTimelineRoundTrips_andALineWithoutOneReadsAsBefore() {
        JournalEvent.Done d = new JournalEvent.Done("k#0", "ok", 0, Map.of(0, 1800L), OptionalDouble.empty(),
                List.of(new JournalEvent.VramPoint(0, 0), new JournalEvent.VramPoint(250, 1500),
                        new JournalEvent.VramPoint(1000, 1800)));
        String line = codec.encode(d);
        assertEquals("{\"key\":\"k#0\",\"event\":\"done\",\"status\":\"ok\",\"returncode\":0,\"peak_mib\":{\"0\":1800},"
                + "\"avg_util\":null,\"vram_timeline\":[[0,0],[250,1500],[1000,1800]]}", line);
        assertEquals(d, codec.decode(line).orElseThrow());
        JournalEvent.Done none = new JournalEvent.Done("k#0", "ok", 0, Map.of(), OptionalDouble.empty());
        assertFalse(codec.encode(none).contains("vram_timeline"), "no field when never sampled: lines stay as they were");
        assertEquals(none, codec.decode("{\"key\":\"k#0\",\"event\":\"done\",\"status\":\"ok\",\"returncode\":0,"
                + "\"peak_mib\":{},\"avg_util\":null}").orElseThrow());
    }

    @Test
    void aMalformedTimelineMakesTheLineUnreadable() {
        String head = "{\"key\":\"k#0\",\"event\":\"done\",\"status\":\"ok\",\"returncode\":0,\"peak_mib\":{},\"avg_util\":null,"
                + "\"vram_timeline\":";
        for (String bad : List.of("\"x\"", "[[1,2,3]]", "[[1]]", "[[-1,5]]", "[[1,-5]]", "[[1.5,2]]", "[1,2]", "{}",
                "[[1,2]," + "[1,2],".repeat(1024) + "[1,2]]")) {
            assertThrows(IllegalArgumentException.class, () -> codec.decode(head + bad + "}"), bad);
        }
    }
}

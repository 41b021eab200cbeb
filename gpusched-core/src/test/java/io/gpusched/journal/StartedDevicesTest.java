package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A started line's {@code devices}, the UUIDs of its GPUs: its codec, what the fold and a compaction keep
 * of it (the attempt in flight's), and that a damaged field costs the run its devices, never the line.
 */
class StartedDevicesTest {
    private final JournalCodec codec = new JournalCodec();

    @Test
    void aStartedLineNamesItsDevices_andReadsBackAsItself_whileOlderLinesNameNone() {
        JournalEvent.Started s = new JournalEvent.Started("k#0", 4242, List.of(1, 3), OptionalLong.of(20480), Optional.empty(),
                List.of("GPU-bbbb", "MIG-1a2b"));
        String line = codec.encode(s);
        assertEquals("{\"key\":\"k#0\",\"event\":\"started\",\"pgid\":4242,\"gpus\":[1,3],\"vram\":20480,"
                + "\"devices\":[\"GPU-bbbb\",\"MIG-1a2b\"]}", line);
        assertEquals(s, codec.decode(line).orElseThrow());
        JournalEvent.Started older = (JournalEvent.Started) codec.decode(
                "{\"key\":\"k#0\",\"event\":\"started\",\"pgid\":4242,\"gpus\":[1]}").orElseThrow();
        assertEquals(List.of(), older.devices());
        assertEquals("{\"key\":\"k#0\",\"event\":\"started\",\"pgid\":4242,\"gpus\":[1]}",
                codec.encode(new JournalEvent.Started("k#0", 4242, List.of(1))), "no devices, no field");
        assertThrows(IllegalArgumentException.class, () -> new JournalEvent.Started("k#0", 4242, List.of(1, 3),
                OptionalLong.empty(), Optional.empty(), List.of("GPU-bbbb")), "one device per GPU or none");
    }

    @Test
    void damagedDevicesCostTheRunItsDevices_neverTheLine() {
        for (String bad : List.of("[\"GPU-bbbb\"]", "[\"GPU-bbbb\",\"x\"]", "[1,2]", "\"GPU-bbbb\"", "null",
                "[\"GPU-bbbb\",\"GPU-b\\u0000\"]")) {
            JournalEvent.Started s = (JournalEvent.Started) codec.decode("{\"key\":\"k#0\",\"event\":\"started\",\"pgid\":4242,"
                    + "\"gpus\":[1,3],\"devices\":" + bad + "}").orElseThrow();
            assertEquals(List.of(1, 3), s.gpus(), bad);
            assertEquals(List.of(), s.devices(), bad);
        }
    }

    @Test
    void theFoldKeepsTheDevicesOfTheAttemptInFlight_andACompactionWritesThemAgain() {
        JournalState state = new JournalState();
        state.apply(new JournalEvent.Seen("k#0", 1, "train"));
        state.apply(new JournalEvent.Launching("k#0", 1, List.of(1)));
        state.apply(new JournalEvent.Started("k#0", 4242, List.of(1), OptionalLong.empty(), Optional.empty(),
                List.of("GPU-bbbb")));
        assertEquals(List.of("GPU-bbbb"), state.devices("k#0"));

        JournalState compacted = new JournalState();
        Compaction.of(state, 100).forEach(compacted::apply);
        assertEquals(List.of("GPU-bbbb"), compacted.devices("k#0"), "a restart after a compaction still finds them");
        assertEquals(state.record("k#0"), compacted.record("k#0"));

        state.apply(new JournalEvent.Done("k#0", "ok", 0, Map.of(1, 100L), OptionalDouble.empty()));
        assertEquals(List.of(), state.devices("k#0"), "no attempt in flight");
        state.apply(new JournalEvent.Launching("k#0", 2, List.of(0)));
        state.apply(new JournalEvent.Started("k#0", 4343, List.of(0)));
        assertEquals(List.of(), state.devices("k#0"), "a start that names none forgets the last one's");
    }
}

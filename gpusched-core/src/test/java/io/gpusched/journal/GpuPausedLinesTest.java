package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code gpu_paused} lines: by device where they name one, by index where they do not (older lines). */
class GpuPausedLinesTest {
    private final JournalCodec codec = new JournalCodec();

    private static JournalEvent.GpuPaused paused(int gpu, String device, boolean paused) {
        return new JournalEvent.GpuPaused(JournalEvent.GpuPaused.keyOf(gpu), gpu, Optional.ofNullable(device), paused);
    }

    private static JournalState fold(List<JournalEvent> events) {
        JournalState s = new JournalState();
        events.forEach(s::apply);
        return s;
    }

    @Test
    void aLineWithoutDeviceReadsAsAPauseOfItsIndex_asBeforePausesNamedDevices() {
        assertEquals(Optional.of(paused(1, null, true)),
                codec.decode("{\"key\":\"gpu1\",\"event\":\"gpu_paused\",\"gpu\":1,\"paused\":true}"));
    }

    @Test
    void aDeviceIsWrittenAndReadBack_andADamagedOneReadsAsAbsent() {
        JournalEvent.GpuPaused p = paused(2, "GPU-8f2c-01", true);
        String line = codec.encode(p);
        assertEquals("{\"key\":\"gpu2\",\"event\":\"gpu_paused\",\"gpu\":2,\"device\":\"GPU-8f2c-01\",\"paused\":true}",
                line.replaceAll(",\"at_ms\":[0-9]+", ""));
        assertEquals(Optional.of(p), codec.decode(line));
        assertEquals(Optional.of(paused(2, null, true)),
                codec.decode("{\"key\":\"gpu2\",\"event\":\"gpu_paused\",\"gpu\":2,\"device\":7,\"paused\":true}"));
    }

    @Test
    void aDevicesPauseFollowsItsDevice_andResumesWhereverItWasListedThen() {
        JournalState s = fold(List.of(paused(1, "GPU-b", true), paused(2, "GPU-b", true)));
        assertEquals(List.of(paused(2, "GPU-b", true)), s.pauses(), "one pause, at its device's new index");
        assertEquals(Set.of(2), s.pausedGpus());
        s.apply(paused(2, "GPU-b", false));
        assertEquals(List.of(), s.pauses());
    }

    @Test
    void aDevicesPauseAtAnIndexBindsTheIndexsPauseThere_andAResumeThereEndsBoth() {
        JournalState bound = fold(List.of(paused(1, null, true), paused(1, "GPU-b", true)));
        assertEquals(List.of(paused(1, "GPU-b", true)), bound.pauses());
        JournalState both = fold(List.of(paused(1, "GPU-b", true), paused(1, null, true)));
        assertEquals(List.of(paused(1, "GPU-b", true), paused(1, null, true)), both.pauses(),
                "an index paused after a device journaled there (a device without UUID took the index)");
        both.apply(paused(1, "GPU-b", false));
        assertEquals(List.of(), both.pauses());
    }

    @Test
    void compactionWritesPausesThatFoldToTheSamePauses() {
        JournalState s = fold(List.of(paused(1, "GPU-b", true), paused(1, null, true), paused(0, "GPU-a", true),
                paused(3, null, true)));
        List<JournalEvent> compacted = Compaction.of(s, Integer.MAX_VALUE);
        assertEquals(s.pauses(), fold(compacted).pauses());
        assertEquals(4, fold(compacted).pauses().size());
    }
}

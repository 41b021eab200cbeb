package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Memory;
import org.junit.jupiter.api.Test;

/** Decoding and judging raw process entries, with buffers written here byte by byte. */
class ProcessEntriesTest {
    private static final long GIB = 1L << 30;

    private static Memory entry(int stride, int pid, long used, int gi, int ci) {
        Memory m = new Memory(stride);
        m.clear();
        m.setInt(0, pid);
        m.setLong(8, used);
        if (stride >= 24) {
            m.setInt(16, gi);
            m.setInt(20, ci);
        }
        return m;
    }

    @Test
    void pidIsReadAsUnsigned() {
        assertEquals(0xFFFF_FFFEL, ProcessEntries.pid(entry(16, 0xFFFF_FFFE, 0, 0, 0), 16, 0));
    }

    @Test
    void notAvailableMemoryReadsAsZeroMib() {
        assertEquals(0, ProcessEntries.usedMib(entry(24, 5, -1L, -1, -1), 24, 0));
    }

    @Test
    void memoryIsRoundedUpToWholeMib() {
        assertEquals(2, ProcessEntries.usedMib(entry(24, 5, (1L << 20) + 1, -1, -1), 24, 0));
    }

    @Test
    void ordinaryEntryIsPlausible() {
        assertTrue(ProcessEntries.plausible(entry(24, 4242, GIB, -1, -1), 24, 0, 80 * GIB));
    }

    @Test
    void migEntryWithSmallInstanceIdsIsPlausible() {
        assertTrue(ProcessEntries.plausible(entry(24, 4242, GIB, 3, 0), 24, 0, 80 * GIB));
    }

    @Test
    void pidZeroIsImplausible() {
        assertFalse(ProcessEntries.plausible(entry(24, 0, GIB, -1, -1), 24, 0, 80 * GIB));
    }

    @Test
    void pidAtOrAboveTheKernelLimitIsImplausible() {
        assertFalse(ProcessEntries.plausible(entry(24, 1 << 22, GIB, -1, -1), 24, 0, 80 * GIB));
        assertFalse(ProcessEntries.plausible(entry(24, -1, GIB, -1, -1), 24, 0, 80 * GIB));
    }

    @Test
    void memoryAboveTheDeviceTotalIsImplausibleEvenWithTheTopBitSet() {
        assertFalse(ProcessEntries.plausible(entry(24, 7, 81 * GIB, -1, -1), 24, 0, 80 * GIB));
        assertFalse(ProcessEntries.plausible(entry(24, 7, Long.MIN_VALUE, -1, -1), 24, 0, 80 * GIB));
    }

    @Test
    void notAvailableMemoryIsPlausible() {
        assertTrue(ProcessEntries.plausible(entry(24, 7, -1L, -1, -1), 24, 0, 80 * GIB));
    }

    @Test
    void garbageInstanceIdsAreImplausible() {
        assertFalse(ProcessEntries.plausible(entry(24, 7, GIB, 0x12345678, -1), 24, 0, 80 * GIB));
    }
}

package io.gpusched.engine.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class UtilWindowTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static GpuSnapshot snap(OptionalInt gpu0, OptionalInt gpu1) {
        return new GpuSnapshot(List.of(
                new GpuStat(0, Optional.empty(), "g", Optional.empty(), 24000, 0, gpu0, true),
                new GpuStat(1, Optional.empty(), "g", Optional.empty(), 24000, 0, gpu1, true)), List.of(), List.of());
    }

    @Test
    void theMeanOfTheLast30SecondsOfReadings_roundedHalfUp_andNothingWithoutAReading() {
        UtilWindow w = new UtilWindow();
        assertEquals(OptionalInt.empty(), w.recent(0));
        w.record(T0, snap(OptionalInt.of(90), OptionalInt.empty()));
        w.record(T0.plusSeconds(10), snap(OptionalInt.of(90), OptionalInt.empty()));
        w.record(T0.plusSeconds(20), snap(OptionalInt.of(0), OptionalInt.empty()));
        assertEquals(OptionalInt.of(60), w.recent(0));
        assertEquals(OptionalInt.empty(), w.recent(1), "a GPU without readings is never busy");
        w.record(T0.plusSeconds(20), snap(OptionalInt.of(1), OptionalInt.empty()));
        assertEquals(OptionalInt.of(45), w.recent(0), "(90 + 90 + 0 + 1) / 4 = 45.25");
        // 35 s on: the first reading is older than the window and no longer counts.
        w.record(T0.plusSeconds(35), snap(OptionalInt.of(0), OptionalInt.empty()));
        assertEquals(OptionalInt.of(23), w.recent(0), "(90 + 0 + 1 + 0) / 4 = 22.75");
    }

    @Test
    void readingsFromBeforeTheWallClockWasSetBack_countNoMore_aGpuIdleSinceTakesJobsAgain() {
        UtilWindow w = new UtilWindow();
        for (int s = 0; s < 30; s++) {
            w.record(T0.plusSeconds(s), snap(OptionalInt.of(100), OptionalInt.empty()));
        }
        assertEquals(OptionalInt.of(100), w.recent(0));
        // The clock is set back a day; the GPU has gone idle.
        w.record(T0.minus(java.time.Duration.ofDays(1)).plusSeconds(31), snap(OptionalInt.of(0), OptionalInt.empty()));
        assertEquals(OptionalInt.of(0), w.recent(0), "30 busy readings dated tomorrow no longer hold it at 97 %");
    }

    private static GpuStat named(int index, String uuid, int percent) {
        return new GpuStat(index, Optional.of(uuid), "g", Optional.empty(), 24000, 0, OptionalInt.of(percent), true);
    }

    @Test
    void aDeviceNamedByUuidKeepsItsReadingsWhenRenumbered_andTheDeviceThatTakesItsIndexStartsWithNone() {
        UtilWindow w = new UtilWindow();
        for (int s = 0; s < 10; s++) {
            w.record(T0.plusSeconds(s), new GpuSnapshot(List.of(named(0, "GPU-aaaa", 0), named(1, "GPU-bbbb", 100)),
                    List.of(), List.of()));
        }
        // A device appears before GPU-bbbb (MIG instances made on gpu 0): it is gpu 2 now.
        GpuStat newcomer = named(1, "GPU-cccc", 0);
        GpuStat moved = named(2, "GPU-bbbb", 100);
        w.record(T0.plusSeconds(10), new GpuSnapshot(List.of(named(0, "GPU-aaaa", 0), newcomer, moved), List.of(),
                List.of()));
        assertEquals(OptionalInt.of(0), w.recent(newcomer), "not GPU-bbbb's 100 % of before");
        assertEquals(OptionalInt.of(100), w.recent(moved), "its own eleven readings, wherever it is listed");
    }

    @Test
    void theReadingsOfADeviceNoLongerListedGo() {
        UtilWindow w = new UtilWindow();
        GpuStat gone = named(1, "MIG-1", 100);
        w.record(T0, new GpuSnapshot(List.of(named(0, "MIG-0", 0), gone), List.of(), List.of()));
        w.record(T0.plusSeconds(1), new GpuSnapshot(List.of(named(0, "MIG-0", 0)), List.of(), List.of()));
        assertEquals(OptionalInt.empty(), w.recent(gone), "a destroyed MIG instance leaves no window behind");
    }
}

package io.gpusched.engine.observe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class VramRingTest {
    private static long[][] arr(List<long[]> points) {
        return points.toArray(long[][]::new);
    }

    @Test
    void keepsEverySampleUntilFull_thenMergesNeighboursIntoTheHigherAndDoublesItsStride() {
        VramRing ring = new VramRing(4);
        ring.add(0, 10);
        ring.add(1, 30);
        ring.add(2, 20);
        assertArrayEquals(new long[][] {{0, 10}, {1, 30}, {2, 20}}, arr(ring.points()));
        ring.add(3, 5); // full: (0,10)+(1,30) -> (1,30); (2,20)+(3,5) -> (2,20)
        assertEquals(2, ring.stride());
        assertArrayEquals(new long[][] {{1, 30}, {2, 20}}, arr(ring.points()));
        ring.add(4, 7); // half of a stride-2 point: shown as it is so far
        assertArrayEquals(new long[][] {{1, 30}, {2, 20}, {4, 7}}, arr(ring.points()));
        ring.add(5, 9);
        assertArrayEquals(new long[][] {{1, 30}, {2, 20}, {5, 9}}, arr(ring.points()));
    }

    @Test
    void aLongSeriesStaysWithinTheBoundAndKeepsItsPeakAtItsTime() {
        VramRing ring = new VramRing(512);
        for (int t = 0; t < 100_000; t++) {
            ring.add(t, t == 77_777 ? 99_999 : t % 1000);
            if (t % 997 == 0) {
                org.junit.jupiter.api.Assertions.assertTrue(ring.points().size() <= 512);
            }
        }
        List<long[]> points = ring.points();
        assertEquals(true, points.size() <= 512 && points.size() >= 256, "size " + points.size());
        assertEquals(1, points.stream().filter(p -> p[1] == 99_999 && p[0] == 77_777).count());
    }

    @Test
    void downsampleKeepsTheHighestOfEachRun() {
        List<long[]> series = List.of(new long[] {0, 1}, new long[] {1, 5}, new long[] {2, 2}, new long[] {3, 8},
                new long[] {4, 3});
        assertArrayEquals(new long[][] {{1, 5}, {3, 8}, {4, 3}}, arr(VramRing.downsample(series, 3)));
        assertEquals(5, VramRing.downsample(series, 32).size());
        assertArrayEquals(new long[][] {{3, 8}}, arr(VramRing.downsample(series, 1)));
    }

    @Test
    void refusesAnOddOrTinyCapacity() {
        assertThrows(IllegalArgumentException.class, () -> new VramRing(3));
        assertThrows(IllegalArgumentException.class, () -> new VramRing(0));
    }
}

package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.engine.observe.VramRing;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The per-job memory ring behind the dashboard's charts: whatever the series, it stays within its bound,
 * keeps the highest sample at its own time, and every point it shows is a sample that happened, in order.
 */
class VramRingPropertiesTest {
    /** A capacity and a series of samples (times increasing by 0..3, MiB anything from 0). */
    record Case(int capacity, List<long[]> samples) {
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("capacity " + capacity + ", " + samples.size() + " samples:");
            samples.stream().limit(40).forEach(s -> b.append(" (").append(s[0]).append(',').append(s[1]).append(')'));
            return b.toString();
        }
    }

    static Gen<Case> cases() {
        Gen<Integer> capacity = Gen.ints(1, 40).map(half -> 2 * half);
        return capacity.flatMap(cap -> (r, size) -> {
            int n = r.nextInt(r.nextBoolean() ? 4 * cap + 2 : 3000);
            List<long[]> samples = new ArrayList<>(n);
            long t = 0;
            for (int i = 0; i < n; i++) {
                t += r.nextInt(4);
                samples.add(new long[] {t, r.nextInt(8) == 0 ? r.nextLong(0, Long.MAX_VALUE) : r.nextInt(100)});
            }
            return new Case(cap, samples);
        });
    }

    @Test
    void neverMoreThanItsCapacity_theHighestSampleKeptAtItsTime_everyPointARealSampleInOrder() {
        Property.forAll(cases()).tries(400).check(c -> {
            VramRing ring = new VramRing(c.capacity());
            List<long[]> added = new ArrayList<>();
            for (long[] s : c.samples()) {
                ring.add(s[0], s[1]);
                added.add(s);
                List<long[]> points = ring.points();
                assertTrue(points.size() <= c.capacity(), () -> points.size() + " points after " + added.size());
            }
            List<long[]> points = ring.points();
            if (c.samples().isEmpty()) {
                assertEquals(0, points.size());
                return;
            }
            long max = c.samples().stream().mapToLong(s -> s[1]).max().orElseThrow();
            assertEquals(max, points.stream().mapToLong(p -> p[1]).max().orElseThrow(), "the highest sample survives");
            assertSubsequence(c.samples(), points);
            // Not thinned more than it must be: a full ring holds at least half its capacity.
            assertTrue(points.size() >= Math.min(c.samples().size(), c.capacity() / 2), points.size() + " points");
        });
    }

    @Test
    void downsampleGivesAtMostNPoints_keepsTheHighest_andEachIsARealSampleInOrder() {
        Property.forAll(cases().with(Gen.ints(1, 64), (c, n) -> new Object[] {c, n})).tries(400).check(x -> {
            Case c = (Case) x[0];
            int n = (Integer) x[1];
            List<long[]> out = VramRing.downsample(c.samples(), n);
            assertTrue(out.size() <= n && out.size() <= c.samples().size());
            assertEquals(Math.min(n, c.samples().size()) > 0, !out.isEmpty());
            if (!out.isEmpty()) {
                assertEquals(c.samples().stream().mapToLong(s -> s[1]).max().orElseThrow(),
                        out.stream().mapToLong(p -> p[1]).max().orElseThrow());
            }
            assertSubsequence(c.samples(), out);
        });
    }

    /** Each point is one of the samples (the same object), and they come in the samples' order. */
    private static void assertSubsequence(List<long[]> samples, List<long[]> points) {
        int i = 0;
        for (long[] p : points) {
            while (i < samples.size() && !(samples.get(i)[0] == p[0] && samples.get(i)[1] == p[1])) {
                i++;
            }
            assertTrue(i < samples.size(), "(" + p[0] + "," + p[1] + ") is not a sample after the previous point");
            i++;
        }
    }
}

package io.gpusched.engine.observe;

import java.util.ArrayList;
import java.util.List;

/**
 * A bounded series of (time, MiB) samples that never loses its highest one. Each stored point stands
 * for {@code stride} consecutive samples and holds the highest of them (at that sample's time). When the
 * store fills up, neighbouring points are merged pairwise the same way and the stride doubles, so a
 * series of any length keeps an even step over its whole span in at most {@code capacity} points.
 * Appending is O(1) amortised: a merge of {@code capacity} points happens once per {@code capacity / 2}
 * stored points.
 *
 * <p>Not thread-safe: the engine guards it ({@link VramTrack}). Public only so the testkit's property
 * suites can reach it; the package is not exported.
 */
public final class VramRing {
    private final int capacity;
    private final long[] times;
    private final long[] values;
    private int size;
    private int stride = 1;
    // The samples of the point being filled: how many, and the highest with its time.
    private int pendingCount;
    private long pendingTime;
    private long pendingValue;

    /**
     * @param capacity the most points {@link #points()} returns; even, at least 2
     * @throws IllegalArgumentException if it is odd or below 2
     */
    public VramRing(int capacity) {
        if (capacity < 2 || capacity % 2 != 0) {
            throw new IllegalArgumentException("a ring's capacity is even and at least 2, got " + capacity);
        }
        this.capacity = capacity;
        this.times = new long[capacity];
        this.values = new long[capacity];
    }

    /**
     * Adds one sample. Times should not go backwards (the points keep the order they came in).
     *
     * @param time when, in any unit (the engine uses ms since the job started)
     * @param value the sample, e.g. MiB
     */
    public void add(long time, long value) {
        if (pendingCount == 0 || value > pendingValue) {
            pendingTime = time;
            pendingValue = value;
        }
        if (++pendingCount < stride) {
            return;
        }
        times[size] = pendingTime;
        values[size] = pendingValue;
        size++;
        pendingCount = 0;
        if (size == capacity) {
            // Merged as soon as it is full, so the point being filled always has a place in points().
            for (int i = 0; i < capacity / 2; i++) {
                int keep = values[2 * i + 1] > values[2 * i] ? 2 * i + 1 : 2 * i;
                times[i] = times[keep];
                values[i] = values[keep];
            }
            size = capacity / 2;
            stride *= 2;
        }
    }

    /** @return how many samples each stored point stands for now: 1, then 2, 4, ... as the ring fills */
    public int stride() {
        return stride;
    }

    /**
     * @return the points, oldest first, the one still being filled last: never more than the capacity,
     *     each {@code {time, value}}
     */
    public List<long[]> points() {
        List<long[]> out = new ArrayList<>(size + 1);
        for (int i = 0; i < size; i++) {
            out.add(new long[] {times[i], values[i]});
        }
        if (pendingCount > 0) {
            out.add(new long[] {pendingTime, pendingValue});
        }
        return out;
    }

    /**
     * At most {@code n} points of a series, each the highest of a run of neighbours (at its own time), so
     * the highest point survives: for the journal's short summary of a job's timeline.
     *
     * @param points a series, oldest first, each {@code {time, value}}
     * @param n the most points wanted, at least 1
     * @return the series itself when it is short enough, else at most {@code n} of its points, in order
     */
    public static List<long[]> downsample(List<long[]> points, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be at least 1, got " + n);
        }
        if (points.size() <= n) {
            return List.copyOf(points);
        }
        int bucket = (points.size() + n - 1) / n;
        List<long[]> out = new ArrayList<>(n);
        for (int from = 0; from < points.size(); from += bucket) {
            long[] best = points.get(from);
            for (int i = from + 1; i < Math.min(points.size(), from + bucket); i++) {
                if (points.get(i)[1] > best[1]) {
                    best = points.get(i);
                }
            }
            out.add(best);
        }
        return out;
    }
}

package io.gpusched.dashboard;

import java.util.Arrays;

/**
 * A Prometheus histogram's counts: the loop thread observes, {@link #snapshot()} copies for the HTTP
 * thread. Each observation lands in the first bucket whose upper bound is at least the value.
 */
final class Histogram {
    private final double[] bounds;
    private final long[] counts;
    private double sum;
    private long count;

    /** @param bounds the upper bounds, increasing; {@code +Inf} is implied after them */
    Histogram(double... bounds) {
        for (int i = 1; i < bounds.length; i++) {
            if (!(bounds[i] > bounds[i - 1])) {
                throw new IllegalArgumentException("bucket bounds must increase: " + Arrays.toString(bounds));
            }
        }
        this.bounds = bounds.clone();
        this.counts = new long[bounds.length + 1];
    }

    /** @param v a value; NaN is ignored (it has no bucket) */
    void observe(double v) {
        if (Double.isNaN(v)) {
            return;
        }
        int i = 0;
        while (i < bounds.length && v > bounds[i]) {
            i++;
        }
        counts[i]++;
        sum += v;
        count++;
    }

    Snapshot snapshot() {
        long[] cumulative = new long[counts.length];
        long running = 0;
        for (int i = 0; i < counts.length; i++) {
            running += counts[i];
            cumulative[i] = running;
        }
        return new Snapshot(bounds.clone(), cumulative, sum, count);
    }

    /**
     * The histogram at one moment.
     *
     * @param bounds the finite upper bounds
     * @param cumulative observations at most each bound, then all of them ({@code +Inf})
     * @param sum the sum of the observations
     * @param count how many
     */
    record Snapshot(double[] bounds, long[] cumulative, double sum, long count) {
    }
}

package io.gpusched.stats;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * How long jobs waited: from their submission ({@code submitted_at_ms}), or for a jobs-file line its first
 * {@code seen} line, to their first start. Percentiles are nearest-rank: the smallest wait with at least
 * that share of the waits at or below it, so each is a wait that happened.
 *
 * @param count how many jobs' waits are counted
 * @param p50Millis the median wait, in milliseconds; empty when none is counted
 * @param p95Millis the 95th percentile, in milliseconds; empty when none is counted
 * @param maxMillis the longest wait, in milliseconds; empty when none is counted
 */
public record Waits(int count, OptionalLong p50Millis, OptionalLong p95Millis, OptionalLong maxMillis) {
    /**
     * @param waitsMillis waits in milliseconds, in any order
     * @return their percentiles
     */
    static Waits of(long[] waitsMillis) {
        long[] sorted = waitsMillis.clone();
        Arrays.sort(sorted);
        return new Waits(sorted.length, percentile(sorted, 50), percentile(sorted, 95),
                sorted.length == 0 ? OptionalLong.empty() : OptionalLong.of(sorted[sorted.length - 1]));
    }

    /** The nearest-rank percentile of sorted values: the ⌈p·n/100⌉-th smallest. */
    static OptionalLong percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return OptionalLong.empty();
        }
        int rank = (int) Math.max(1, (p * (long) sorted.length + 99) / 100);
        return OptionalLong.of(sorted[rank - 1]);
    }
}

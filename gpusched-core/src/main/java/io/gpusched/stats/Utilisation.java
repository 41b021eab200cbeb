package io.gpusched.stats;

import java.util.Map;
import java.util.TreeMap;

/**
 * The share of GPU-time occupied by jobs over the period: for each GPU, the time at least one counted run
 * held it, over the period's length. Jobs sharing a GPU at once count once, so a share is at most 1.
 *
 * @param busyMillis by GPU index, the milliseconds of the period at least one counted run held it
 * @param periodMillis the period's length, in milliseconds
 */
public record Utilisation(Map<Integer, Long> busyMillis, long periodMillis) {
    /**
     * Copies the map, sorted by GPU index.
     *
     * @param busyMillis see {@link #busyMillis()}
     * @param periodMillis see {@link #periodMillis()}
     */
    public Utilisation {
        busyMillis = java.util.Collections.unmodifiableMap(new TreeMap<>(busyMillis));
    }

    /**
     * @param gpu a GPU index
     * @return its busy share of the period, in [0, 1]; 0 for an empty period or a GPU never used
     */
    public double share(int gpu) {
        return periodMillis <= 0 ? 0 : (double) busyMillis.getOrDefault(gpu, 0L) / periodMillis;
    }

    /** @return all GPUs' busy time over all GPUs' time in the period, in [0, 1]; 0 when there is none */
    public double all() {
        long total = busyMillis.values().stream().mapToLong(Long::longValue).sum();
        return periodMillis <= 0 || busyMillis.isEmpty() ? 0 : (double) total / ((double) periodMillis * busyMillis.size());
    }
}

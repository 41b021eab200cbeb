package io.gpusched.nvml;

/**
 * Byte counts from NVML (unsigned 64-bit) to MiB. Rounding always errs towards less free memory, so
 * the scheduler never plans with memory that is not there: totals round down, uses round up.
 */
final class Mib {
    private static final long MASK = (1L << 20) - 1;

    private Mib() {
    }

    /** @return whole MiB in {@code bytes} (unsigned), rounded down */
    static long floor(long bytes) {
        return bytes >>> 20;
    }

    /** @return MiB needed to hold {@code bytes} (unsigned), rounded up */
    static long ceil(long bytes) {
        return (bytes >>> 20) + ((bytes & MASK) == 0 ? 0 : 1);
    }
}

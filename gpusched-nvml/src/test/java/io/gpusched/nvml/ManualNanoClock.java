package io.gpusched.nvml;

import java.time.Duration;
import java.util.function.LongSupplier;

/** A nanosecond clock that moves only when a test says so. */
final class ManualNanoClock implements LongSupplier {
    private long now = 1_000_000_000L;

    @Override
    public long getAsLong() {
        return now;
    }

    void advance(Duration by) {
        now += by.toNanos();
    }
}

package io.gpusched.engine.loop;

import java.time.Instant;
import java.time.InstantSource;
import java.util.function.LongSupplier;

/**
 * The loop's clock, on its own so every part reads time the same way and tests can step it: the wall
 * time that dates events, journal lines and deadlines ({@link #now()}), and a monotonic ticker for the
 * loop's waits ({@link #nanos()}), which a wall-clock step must not stretch or cut short.
 */
public final class LoopClock implements InstantSource {
    private final InstantSource wall;
    private final LongSupplier ticker;

    /**
     * @param wall the wall time
     * @param ticker monotonic nanoseconds (as {@link System#nanoTime()})
     */
    public LoopClock(InstantSource wall, LongSupplier ticker) {
        this.wall = wall;
        this.ticker = ticker;
    }

    /** @return the wall time now */
    public Instant now() {
        return wall.instant();
    }

    @Override
    public Instant instant() {
        return wall.instant();
    }

    /** @return the ticker's nanoseconds now: only differences mean anything */
    public long nanos() {
        return ticker.getAsLong();
    }
}

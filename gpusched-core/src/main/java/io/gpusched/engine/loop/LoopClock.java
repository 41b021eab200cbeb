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
    /** How far past a deadline a real wait aims: the ticker it waits on and the wall it is read by drift. */
    private static final long REAL_SLACK_NANOS = 1_000_000;

    private final InstantSource wall;
    private final LongSupplier ticker;
    private final long slackNanos;

    /**
     * @param wall the wall time
     * @param ticker monotonic nanoseconds (as {@link System#nanoTime()})
     */
    public LoopClock(InstantSource wall, LongSupplier ticker) {
        this(wall, ticker, REAL_SLACK_NANOS);
    }

    /**
     * @param wall the wall time
     * @param ticker monotonic nanoseconds
     * @param slackNanos how far past a deadline a wait for it aims, so that the wall time read on waking
     *     is past it too: 1 ms for the real clocks, 0 where wall and ticker are one count (a virtual clock)
     */
    LoopClock(InstantSource wall, LongSupplier ticker, long slackNanos) {
        this.wall = wall;
        this.ticker = ticker;
        this.slackNanos = slackNanos;
    }

    /** @return nanoseconds a wait for a deadline adds past it (see the constructor) */
    public long slackNanos() {
        return slackNanos;
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

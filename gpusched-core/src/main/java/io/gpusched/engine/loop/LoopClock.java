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
    /** The wall time and the ticker when this clock was made: where {@link #steady()} starts. */
    private final Instant steadyFrom;
    private final long steadyFromNanos;

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
        this.steadyFrom = wall.instant();
        this.steadyFromNanos = ticker.getAsLong();
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

    /**
     * The scheduler's own time line for how long jobs have waited and used GPUs (the queue policy's
     * aging, reservations and fair share): the wall time when this clock was made, advanced by the ticker
     * since. A wall clock set forward or back after that does not move it, so a step neither ages every
     * waiting job a day nor holds a reservation a day; dates shown and journaled stay {@link #now()}'s.
     * Equal to {@link #now()} where wall and ticker are one count (a virtual clock).
     *
     * @return the steady time now
     */
    public Instant steady() {
        return steadyFrom.plusNanos(ticker.getAsLong() - steadyFromNanos);
    }

    /**
     * A wall date (a submission's, from the journal) on the {@link #steady()} time line: as long before
     * steady now as it is before the wall's now. A date in the future (written while the clock was ahead)
     * counts as now, so nothing waits out the difference.
     *
     * @param wallDate a date by the wall clock
     * @return the same moment on the steady time line, never after steady now
     */
    public Instant steadyOf(Instant wallDate) {
        Instant wallNow = now();
        Instant steadyNow = steady();
        if (!wallDate.isBefore(wallNow)) {
            return steadyNow;
        }
        java.time.Duration ago = java.time.Duration.between(wallDate, wallNow);
        // A date before the steady line's range (Instant.MIN's side) is as old as it can be. That range is
        // built from its seconds, not by Duration.between(Instant.MIN, ...): whose nanoseconds overflow, and
        // the JDK answers through an ArithmeticException it throws and catches, at every call (one per
        // submission planned, and per job first seen waiting).
        java.time.Duration range = java.time.Duration.ofSeconds(steadyNow.getEpochSecond() - Instant.MIN.getEpochSecond(),
                steadyNow.getNano());
        return ago.compareTo(range) >= 0 ? Instant.MIN : steadyNow.minus(ago);
    }

    /**
     * A moment on the {@link #steady()} time line as a wall date, for showing it (a pending job's since).
     *
     * @param steadyDate a moment on the steady time line
     * @return the wall date as long before the wall's now as it is before steady now
     */
    public Instant wallOf(Instant steadyDate) {
        return now().minus(java.time.Duration.between(steadyDate, steady()));
    }

    /** @return the ticker's nanoseconds now: only differences mean anything */
    public long nanos() {
        return ticker.getAsLong();
    }
}

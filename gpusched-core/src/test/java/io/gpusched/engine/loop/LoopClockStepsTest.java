package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The loop clock's steady time line ({@link LoopClock#steady()}) under a wall clock that steps: a
 * hand-set wall and a hand-set ticker, no real time.
 */
class LoopClockStepsTest {
    private static final Instant T0 = Instant.parse("2026-03-01T09:00:00Z");
    private final AtomicReference<Instant> wall = new AtomicReference<>(T0);
    private final AtomicLong ticker = new AtomicLong(5_000);
    private final LoopClock clock = new LoopClock(wall::get, ticker::get);

    private void pass(Duration d) {
        wall.set(wall.get().plus(d));
        ticker.addAndGet(d.toNanos());
    }

    @Test
    void steadyTimeFollowsTheTicker_notAWallClockSetADayForwardOrBack() {
        pass(Duration.ofMinutes(10));
        assertEquals(T0.plus(Duration.ofMinutes(10)), clock.steady());
        wall.set(wall.get().plus(Duration.ofDays(1)));
        assertEquals(T0.plus(Duration.ofMinutes(10)), clock.steady(), "a step forward");
        wall.set(wall.get().minus(Duration.ofDays(2)));
        pass(Duration.ofMinutes(5));
        assertEquals(T0.plus(Duration.ofMinutes(15)), clock.steady(), "a step back, then five minutes");
    }

    @Test
    void aJournaledWallDateIsAsLongAgoOnTheSteadyLine_andOneInTheFutureIsNow() {
        pass(Duration.ofHours(1));
        wall.set(wall.get().minus(Duration.ofDays(1))); // set back a day since
        Instant submitted = wall.get().minus(Duration.ofMinutes(20));
        assertEquals(clock.steady().minus(Duration.ofMinutes(20)), clock.steadyOf(submitted));
        assertEquals(clock.steady(), clock.steadyOf(wall.get().plus(Duration.ofDays(1))),
                "written while the clock was a day ahead: waits from now, not from tomorrow");
        assertEquals(submitted, clock.wallOf(clock.steadyOf(submitted)), "shown again as the wall's date");
    }

    /**
     * The steady line ends at {@link Instant#MIN}: a wall date further back than that (possible only when the
     * wall is ahead of the steady line) is {@code Instant.MIN}, to the nanosecond on both sides of the edge.
     */
    @Test
    void aWallDateBeyondTheSteadyLinesStartIsTheOldestMoment_exactlyAtItsEdge() {
        pass(Duration.ofNanos(123_456_789)); // a steady now with a nanosecond part
        wall.set(wall.get().plus(Duration.ofDays(1))); // the wall a day ahead of the steady line
        Instant edge = Instant.MIN.plus(Duration.ofDays(1)); // as long before the wall's now as MIN is before steady now
        assertEquals(Instant.MIN, clock.steadyOf(edge));
        assertEquals(Instant.MIN, clock.steadyOf(edge.minusNanos(1)));
        assertEquals(Instant.MIN.plusNanos(1), clock.steadyOf(edge.plusNanos(1)));
        assertEquals(Instant.MIN, clock.steadyOf(Instant.MIN));
        assertEquals(clock.steady().minus(Duration.ofDays(400)), clock.steadyOf(wall.get().minus(Duration.ofDays(400))));
    }
}

package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.engine.loop.LoopTimers.Timer;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoopTimersTest {
    private final AtomicLong clock = new AtomicLong(1_000);
    private final LoopTimers timers = new LoopTimers(clock::get);

    @Test
    void everyTimerIsDueAtStart() {
        for (Timer t : Timer.values()) {
            assertTrue(timers.due(t, clock.get()), t.name());
        }
    }

    @Test
    void theLoopWakesForTheEarliestActiveTimerOnly() {
        timers.schedule(Timer.ROUND, 500);
        timers.schedule(Timer.SAMPLE, 50);
        timers.schedule(Timer.SWEEP, 20);
        assertEquals(20, timers.waitNanos(clock.get(), 10_000, true, true, true));
        assertEquals(50, timers.waitNanos(clock.get(), 10_000, true, true, false), "no sweep pending");
        assertEquals(500, timers.waitNanos(clock.get(), 10_000, true, false, false), "no job running");
        assertEquals(10_000, timers.waitNanos(clock.get(), 10_000, false, false, false), "stopping: deadlines only");
        assertEquals(15, timers.waitNanos(clock.get(), 15, true, true, true), "a nearer deadline caps the wait");
    }

    @Test
    void aTimerFiresWhenTheClockReachesIt() {
        timers.schedule(Timer.ROUND, 500);
        clock.addAndGet(499);
        assertFalse(timers.due(Timer.ROUND, clock.get()));
        clock.addAndGet(1);
        assertTrue(timers.due(Timer.ROUND, clock.get()));
        assertEquals(0, timers.waitNanos(clock.get(), 10_000, true, false, false), "overdue: no wait");
    }
}

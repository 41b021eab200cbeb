package io.gpusched.engine.loop;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The loop's timers, on one monotonic nanosecond clock (injected, so tests can drive it): when the
 * next round, memory sample and leftover sweep are due. The loop sleeps until the earliest timer that
 * matters now, or until a message arrives.
 */
public final class LoopTimers {
    /** What the loop does on a schedule. */
    public enum Timer {
        /** Snapshot, jobs source, queue, dispatch, board. */
        ROUND,
        /** A memory sample between rounds, while jobs run. */
        SAMPLE,
        /** A pass over {@code /proc} for what ended runs left. */
        SWEEP
    }

    private final LongSupplier nanos;
    private final Map<Timer, Long> due = new EnumMap<>(Timer.class);

    /** @param nanos a monotonic clock in nanoseconds ({@code System::nanoTime}) */
    public LoopTimers(LongSupplier nanos) {
        this.nanos = nanos;
        long now = nanos.getAsLong();
        for (Timer t : Timer.values()) {
            due.put(t, now);
        }
    }

    public long now() {
        return nanos.getAsLong();
    }

    /** @return whether {@code t} is due at {@code now} */
    public boolean due(Timer t, long now) {
        return now - due.get(t) >= 0;
    }

    /** Sets {@code t} to fire {@code afterNanos} from now. */
    public void schedule(Timer t, long afterNanos) {
        due.put(t, nanos.getAsLong() + afterNanos);
    }

    /**
     * @param active whether each timer matters now (no sample without running jobs, no sweep without
     *     ended runs), in {@link Timer} order
     * @param cap the longest wait allowed (the nearest job deadline)
     * @return nanoseconds until the earliest active timer, at most {@code cap}, at least 0
     */
    public long waitNanos(long now, long cap, boolean... active) {
        long wake = now + cap;
        for (Timer t : Timer.values()) {
            if (active[t.ordinal()]) {
                wake = Math.min(wake, due.get(t));
            }
        }
        return Math.max(0, wake - now);
    }
}

package io.gpusched.engine.loop;

import java.time.Instant;
import java.util.PriorityQueue;

/**
 * A clock that moves only when the loop waits: the loop's wall time and ticker are one virtual
 * nanosecond count from a fixed start, and a wait ({@link #next}) jumps straight to the earliest of its
 * end and the next action scheduled with {@link #at}, runs every action due then (they post to the
 * inbox: a run's exit, a submission), and returns. An hour of scheduling passes in the time its rounds
 * take to compute. Confined to the loop's thread, as are the actions it runs.
 */
public final class VirtualTime implements LoopWait {
    /** An action due at a virtual time; {@code seq} keeps actions due together in the order given. */
    private record Due(long at, long seq, Runnable action) {
    }

    private final Instant start;
    private final PriorityQueue<Due> due = new PriorityQueue<>((a, b) -> a.at() != b.at()
            ? Long.compare(a.at(), b.at()) : Long.compare(a.seq(), b.seq()));
    private long now;
    private long seq;

    /** @param start the wall time at virtual nanosecond 0 */
    public VirtualTime(Instant start) {
        this.start = start;
        this.wall = start;
    }

    /** @return the loop clock reading this virtual time: wall = start + elapsed, ticker = elapsed */
    public LoopClock clock() {
        return new LoopClock(this::wall, () -> now, 0);
    }

    /** The wall time last read, and the virtual time it is of (the start, at 0). */
    private Instant wall;
    private long wallAt;

    /**
     * The wall time now: made once per virtual instant, as the loop reads its clock many times a round
     * (every event and journal line is dated) while the clock stands still.
     */
    private Instant wall() {
        if (wallAt != now) {
            wall = start.plusNanos(now);
            wallAt = now;
        }
        return wall;
    }

    /** @return virtual nanoseconds since the start */
    public long nanos() {
        return now;
    }

    /**
     * Schedules {@code action} to run on the loop's thread when the virtual clock reaches {@code atNanos}
     * (at once, at the next wait, if that is already past).
     *
     * @param atNanos virtual nanoseconds since the start
     * @param action what happens then: typically a post to the inbox
     */
    public void at(long atNanos, Runnable action) {
        due.add(new Due(atNanos, seq++, action));
    }

    /** @return whether anything is scheduled still */
    public boolean pending() {
        return !due.isEmpty();
    }

    @Override
    public Inbox.Message next(Inbox inbox, long nanos) {
        Inbox.Message m = inbox.poll();
        if (m != null || nanos <= 0) {
            return m;
        }
        long until = nanos > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + nanos;
        if (due.isEmpty() || due.peek().at() > until) {
            now = until; // nothing happens before the wait ends: the whole wait passes at once
            return null;
        }
        now = Math.max(now, due.peek().at());
        while (!due.isEmpty() && due.peek().at() <= now) {
            due.poll().action().run();
        }
        return inbox.poll();
    }
}

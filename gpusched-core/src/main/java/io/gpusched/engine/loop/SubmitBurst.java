package io.gpusched.engine.loop;

/**
 * When the round that new submissions call for runs. A round re-plans the whole queue, so with a
 * large queue (10,000 jobs: about 15 ms) a client submitting one job after another would wait for the
 * previous submission's round before the loop reads its next request. For a queue of at least
 * {@link #LARGE_QUEUE} jobs the round therefore waits until submissions pause for {@link #SETTLE_NANOS},
 * and never more than {@link #MAX_DEFER_NANOS} after the first one; a smaller queue is planned at once.
 * Every submission is still journaled and answered the moment it is read. Pure: the clock is the
 * caller's.
 */
public final class SubmitBurst {
    /** The queue size from which a round waits for a burst of submissions to pause. */
    static final int LARGE_QUEUE = 1000;
    /** How long submissions must pause before the round. */
    static final long SETTLE_NANOS = 3_000_000;
    /** The longest a submission waits for its round. */
    static final long MAX_DEFER_NANOS = 50_000_000;

    private boolean pending;
    private long first;
    private long last;

    /** A submission was accepted at {@code now} (monotonic nanoseconds). */
    public void submitted(long now) {
        if (!pending) {
            pending = true;
            first = now;
        }
        last = now;
    }

    /** @return whether a submission waits for a round */
    public boolean pending() {
        return pending;
    }

    /**
     * @param now monotonic nanoseconds
     * @param queued how many jobs the queue held at the last round
     * @return nanoseconds until the round is due: 0 for now, {@link Long#MAX_VALUE} when nothing waits
     */
    public long dueIn(long now, int queued) {
        if (!pending) {
            return Long.MAX_VALUE;
        }
        if (queued < LARGE_QUEUE) {
            return 0;
        }
        return Math.max(0, Math.min(last + SETTLE_NANOS, first + MAX_DEFER_NANOS) - now);
    }

    /** A round ran: it planned every submission accepted before it. */
    public void planned() {
        pending = false;
    }
}

package io.gpusched.engine.loop;

/**
 * When the status board after new submissions is published. Submissions are planned alone as they come
 * (each costs O(log n) of the queue) and answered once their lines are durable; the board, though, is
 * the whole queue (with 100,000 jobs, tens of milliseconds to assemble and write), and a loop busy
 * writing it makes the next submission wait. For a queue of at least {@link #LARGE_QUEUE} jobs the
 * board therefore waits until submissions pause for {@link #SETTLE_NANOS}, and never more than
 * {@link #MAX_DEFER_NANOS} after the first one; and it comes no sooner than {@link #LOAD_FACTOR} times
 * its last cost after the last one, so publishing takes at most about one part in
 * {@link #LOAD_FACTOR} of the loop's time during a flood (at 100,000 queued, about one board a second).
 * A smaller queue's board is published at once. Pure: the clock is the caller's.
 */
public final class SubmitBurst {
    /** The queue size from which the board waits for a burst of submissions to pause. */
    static final int LARGE_QUEUE = 1000;
    /** How long submissions must pause before the board. */
    static final long SETTLE_NANOS = 3_000_000;
    /** The longest the board waits after a submission, unless its own cost asks for longer. */
    static final long MAX_DEFER_NANOS = 50_000_000;
    /** Boards after submissions are at least this many times their cost apart. */
    static final long LOAD_FACTOR = 20;

    private boolean pending;
    private long first;
    private long last;
    private long publishedAt = Long.MIN_VALUE / 2;
    private long cost;

    /** A submission was planned at {@code now} (monotonic nanoseconds); its board is still to come. */
    public void submitted(long now) {
        if (!pending) {
            pending = true;
            first = now;
        }
        last = now;
    }

    /** @return whether a submission's board is still to come */
    public boolean pending() {
        return pending;
    }

    /**
     * @param now monotonic nanoseconds
     * @param queued how many jobs the queue holds
     * @return nanoseconds until the board is due: 0 for now, {@link Long#MAX_VALUE} when nothing waits
     */
    public long dueIn(long now, int queued) {
        if (!pending) {
            return Long.MAX_VALUE;
        }
        if (queued < LARGE_QUEUE) {
            return 0;
        }
        long due = Math.max(Math.min(last + SETTLE_NANOS, first + MAX_DEFER_NANOS), publishedAt + LOAD_FACTOR * cost);
        return Math.max(0, due - now);
    }

    /** The board was published: it shows every submission planned before it. */
    public void planned() {
        pending = false;
    }

    /**
     * The board was published after submissions, at {@code now}, and took {@code nanos}.
     *
     * @param now monotonic nanoseconds, when it was done
     * @param nanos how long it took
     */
    public void published(long now, long nanos) {
        pending = false;
        publishedAt = now;
        cost = Math.max(0, nanos);
    }
}

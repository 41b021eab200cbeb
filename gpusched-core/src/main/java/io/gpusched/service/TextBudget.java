package io.gpusched.service;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of {@code queue} text answers a service has rendered and not yet written, over every
 * connection (issue #27's text printed by the daemon). A text is rendered a piece at a time as its
 * client's socket takes it, so what an answer holds unwritten is at most one piece; each answer takes
 * that share, {@link QueueAnswer#share}, before its first byte and gives it back once written or when
 * its connection closes. A client that asks on every connection it may open and never reads holds at
 * most a share per connection; an answer whose share would pass {@link #total()} is answered with its
 * rows instead, streamed, which hold nothing (the client prints them itself). The one bound on a text:
 * its length is not (a text of any length takes one share). Thread-safe.
 */
final class TextBudget {
    /** The default: 64 MiB for every answer's unwritten text together. */
    static final long TOTAL = 64L << 20;

    private final long total;
    private final AtomicLong held = new AtomicLong();

    TextBudget() {
        this(TOTAL);
    }

    /** @param total the most bytes all answers' unwritten texts may hold at once */
    TextBudget(long total) {
        this.total = total;
    }

    /** @return the most bytes all answers' unwritten texts may hold at once */
    long total() {
        return total;
    }
    /** @return the bytes held now */
    long held() {
        return held.get();
    }

    /**
     * @param bytes a text's size
     * @return whether it was taken: false when it would pass {@link #total()} (nothing is taken then)
     */
    boolean take(long bytes) {
        while (true) {
            long now = held.get();
            if (now + bytes > total) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** @param bytes bytes taken earlier, now written or dropped */
    void giveBack(long bytes) {
        held.addAndGet(-bytes);
    }
}

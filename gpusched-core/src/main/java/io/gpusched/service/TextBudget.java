package io.gpusched.service;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of {@code queue} text answers a service holds before they are written (issue #27's text
 * printed by the daemon). A text answer is rendered whole before its length is sent and held until the
 * client reads it; a client that asks on every connection it may open and never reads would otherwise
 * make the daemon hold one text per connection. So one answer may take at most {@link #perAnswer()}
 * bytes, all of them together at most {@link #total()}; an answer that does not fit is answered with
 * its rows instead, streamed, which hold nothing (the client prints them itself). Bytes are taken back
 * as each piece is written, and all at once when its connection closes. Thread-safe.
 */
final class TextBudget {
    /** The defaults: 16 MiB for one answer, 64 MiB for all. */
    static final long PER_ANSWER = 16L << 20;
    static final long TOTAL = 64L << 20;

    private final long perAnswer;
    private final long total;
    private final AtomicLong held = new AtomicLong();

    TextBudget() {
        this(PER_ANSWER, TOTAL);
    }

    /**
     * @param perAnswer the most bytes one answer's text may be
     * @param total the most bytes all answers' texts may hold at once
     */
    TextBudget(long perAnswer, long total) {
        this.perAnswer = perAnswer;
        this.total = total;
    }

    /** @return the most bytes one answer's text may be */
    long perAnswer() {
        return perAnswer;
    }

    /** @return the most bytes all answers' texts may hold at once */
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

package io.gpusched.engine.loop;

/**
 * How the loop waits for its next message: the one place the loop spends time. On the real machine it
 * blocks on the {@link Inbox} for up to the given wall of nanoseconds ({@link #REAL}); on a
 * {@link VirtualTime} it sleeps not at all, but moves the virtual clock to whatever comes first — the
 * end of the wait, or the next thing scheduled on that clock (a simulated run's exit, an arrival) — and
 * lets it happen.
 */
public interface LoopWait {
    /** Blocks on the inbox in real time. */
    LoopWait REAL = Inbox::take;

    /**
     * @param inbox the loop's inbox
     * @param nanos how long to wait at most, in the loop clock's nanoseconds; 0 means only what is queued
     * @return the next message, or null if none came within {@code nanos}
     * @throws InterruptedException when the loop's thread is interrupted while waiting
     */
    Inbox.Message next(Inbox inbox, long nanos) throws InterruptedException;
}

package io.gpusched.dashboard;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Bounds the dashboard's answers other than {@code /events}: how many are made and written at once, and
 * how long one may take to be written. Every connection may have a thread ({@link ServerLimits}), but an
 * answer holds its whole body (an {@code /api/queue} of 100,000 jobs is about 20 MB) until the client has
 * read it, so they take a slot of {@link #MAX_ANSWERS}; and a client that does not read would hold its
 * slot for ever, so an answer not written {@link #ANSWER_SECONDS} after its request was read has its
 * thread interrupted, which closes the connection (the JDK's socket is an interruptible channel) and
 * frees the slot and the thread.
 */
final class AnswerSlots {
    /** Answers made and written at once: the most bodies held in memory together. */
    static final int MAX_ANSWERS = 8;
    /** Seconds to wait for a slot before answering 503. */
    static final int WAIT_SECONDS = 5;
    /**
     * Seconds an answer may take, from taking its slot to its last byte written. The largest,
     * {@code /api/queue} of 100,000 jobs, crosses a 1 MB/s link in about 20 s.
     */
    static final int ANSWER_SECONDS = 30;
    /**
     * A JVM system property ({@code -D}) that shortens {@link #ANSWER_SECONDS} to its value in seconds, for the
     * test that proves the limit is enforced (DashboardLimitsTest) without waiting 30 s; it can only shorten
     * it ({@link ServerLimits#shortened}), and is no gpusched option.
     */
    static final String ANSWER_SECONDS_PROPERTY = "gpusched.dashboard.answerSeconds";

    /** {@link #ANSWER_SECONDS}, or less where {@link #ANSWER_SECONDS_PROPERTY} shortens it. */
    private final long answerNanos = TimeUnit.SECONDS.toNanos(ServerLimits.shortened(ANSWER_SECONDS_PROPERTY, ANSWER_SECONDS));

    private final Semaphore slots = new Semaphore(MAX_ANSWERS, true);
    // Guarded by this: each answering thread and when its answer is due, in System.nanoTime().
    private final Map<Thread, Long> due = new HashMap<>();

    /**
     * Starts the calling thread's clock: from now its answer (a refusal included, which a client that
     * pipelines requests and reads none could block on too) has {@link #ANSWER_SECONDS}; then {@link #stopClock}.
     */
    synchronized void startClock() {
        due.put(Thread.currentThread(), System.nanoTime() + answerNanos);
    }

    /** The calling thread's answer is done (written, or failed): no deadline reaches it any more. */
    void stopClock() {
        synchronized (this) {
            due.remove(Thread.currentThread());
        }
        // An interrupt meant for this answer must not reach the pool's next task (the pool clears it too).
        Thread.interrupted();
    }

    /**
     * Takes a slot for the calling thread's answer, waiting up to {@link #WAIT_SECONDS}; then {@link #give}.
     *
     * @return false when none came free in time, or the wait was interrupted (answer 503)
     */
    boolean take() {
        try {
            return slots.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Gives back the slot {@link #take} took. */
    void give() {
        slots.release();
    }

    /**
     * Interrupts each answering thread whose answer is overdue (once): its write, blocked on a client that
     * does not read, ends and its connection is closed. Called every tick.
     *
     * @param nowNanos {@link System#nanoTime()}
     */
    synchronized void enforce(long nowNanos) {
        due.entrySet().removeIf(e -> {
            if (nowNanos - e.getValue() < 0) {
                return false;
            }
            e.getKey().interrupt();
            return true;
        });
    }
}

package io.gpusched.service;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The time a submission waits for the scheduler's loop to number it, for every submission of a service
 * with one timer ({@link Requests}' take-back). {@link CompletableFuture#orTimeout} schedules a task for
 * each on the JDK's delay thread, and a lone client's submission, each the earliest deadline when it comes,
 * woke that thread every time: a thread switch per submission on a busy machine (issue #24's lone-client
 * medians). Here the waits queue in the order they began (each the same time long, so the oldest ends
 * first); one task is armed, for the oldest, and when it runs it fails those whose time is up and arms
 * itself for the next. Answered ones leave the head of the queue as the next ones come, so it holds about
 * as many as are waiting.
 */
final class TakeDeadlines {
    private final long nanos;
    private final ConcurrentLinkedQueue<Waiting> waiting = new ConcurrentLinkedQueue<>();
    /** Whether a task is armed for the oldest wait (or the one that runs is still looking). */
    private final AtomicBoolean armed = new AtomicBoolean();

    /** One wait: when it ends, and the copy of the number it fails then. */
    private static final class Waiting {
        final long deadline;
        final CompletableFuture<?> number;

        Waiting(long deadline, CompletableFuture<?> number) {
            this.deadline = deadline;
            this.number = number;
        }
    }

    TakeDeadlines(Duration within) {
        this.nanos = within.toNanos();
    }

    /**
     * @return a copy of {@code number}, failed with a {@link TimeoutException} if it is not done within
     *     the time (the original is never failed by this)
     */
    <T> CompletableFuture<T> within(CompletableFuture<T> number) {
        CompletableFuture<T> copy = number.copy();
        if (copy.isDone()) {
            return copy;
        }
        forgetAnswered();
        waiting.add(new Waiting(System.nanoTime() + nanos, copy));
        if (armed.compareAndSet(false, true)) {
            arm(nanos);
        }
        return copy;
    }

    /** Drops the answered waits at the head of the queue. */
    private void forgetAnswered() {
        for (Waiting w = waiting.peek(); w != null && w.number.isDone(); w = waiting.peek()) {
            waiting.remove(w);
        }
    }

    private void arm(long delayNanos) {
        // Run on the delay thread itself, as orTimeout's own task is: no pool thread for this.
        CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS, Runnable::run).execute(this::expire);
    }

    /** Fails the waits whose time is up, oldest first, then arms for the next; disarms when none is left. */
    private void expire() {
        long now = System.nanoTime();
        while (true) {
            Waiting w = waiting.peek();
            if (w == null) {
                armed.set(false);
                // One added after the peek, by a thread that saw the task armed: it is this task's still.
                if (waiting.isEmpty() || !armed.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            if (w.number.isDone()) {
                waiting.remove(w);
                continue;
            }
            long left = w.deadline - now;
            if (left > 0) {
                arm(left);
                return;
            }
            waiting.remove(w);
            w.number.completeExceptionally(new TimeoutException());
        }
    }
}

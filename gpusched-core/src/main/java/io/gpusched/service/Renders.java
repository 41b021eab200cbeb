package io.gpusched.service;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * Where the service renders the queue's text ({@code queue} with {@code "text"}): the one answer whose
 * cost grows with the queue and is not shared between clients (each format and width is printed anew;
 * at 100,000 jobs a render is 100 ms of CPU or more). Renders run on threads of their own, never on
 * those that answer {@code hello}, {@code submit}, {@code job} and the queue's rows, and one at a time
 * per user: a user's next render waits behind their own, and when its turn comes it goes behind every
 * render other users were already waiting for. So a user who asks for a new width on each of their
 * connections holds at most one of these threads, delays no other kind of answer, and delays another
 * user's render by at most one render of each user ahead of it.
 *
 * <p>What waits is bounded by the connections a user may hold: a connection asks one thing at a time.
 * Thread-safe.
 */
final class Renders {
    /** Threads that render; a user holds one at most. */
    static final int THREADS = 2;

    private final ExecutorService pool;
    /** The users with a render running, and each one's renders waiting behind it, oldest first. Guarded by this. */
    private final Map<String, ArrayDeque<Runnable>> users = new HashMap<>();

    /** @param threads names the rendering threads */
    Renders(ThreadFactory threads) {
        this.pool = Executors.newFixedThreadPool(THREADS, threads);
    }

    /**
     * Renders for {@code user} now, or once their renders before it are done.
     *
     * @param user who asked (the kernel's name for them)
     * @param render the render and its answer; what it throws is its own to handle
     * @return false when the service is closing and nothing more is rendered
     */
    boolean submit(String user, Runnable render) {
        synchronized (this) {
            ArrayDeque<Runnable> waiting = users.get(user);
            if (waiting != null) {
                waiting.add(render);
                return true;
            }
            users.put(user, new ArrayDeque<>());
        }
        return start(user, render);
    }

    private boolean start(String user, Runnable render) {
        try {
            pool.execute(() -> {
                try {
                    render.run();
                } finally {
                    next(user);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            synchronized (this) {
                users.remove(user); // closing: what waited is dropped with its connections
            }
            return false;
        }
    }

    /** The user's render is done: their next one goes to the back of the line, or they have none. */
    private void next(String user) {
        Runnable r;
        synchronized (this) {
            ArrayDeque<Runnable> waiting = users.get(user);
            r = waiting == null ? null : waiting.poll();
            if (r == null) {
                users.remove(user);
                return;
            }
        }
        start(user, r);
    }

    /** @return how many of {@code user}'s renders wait behind the one running (tests) */
    synchronized int waiting(String user) {
        ArrayDeque<Runnable> waiting = users.get(user);
        return waiting == null ? 0 : waiting.size();
    }

    /** Stops rendering: renders under way are interrupted, those waiting dropped. */
    void shutdownNow() {
        pool.shutdownNow();
        synchronized (this) {
            users.clear();
        }
    }
}

package io.gpusched.engine.observe;

import io.gpusched.engine.stop.Stops;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Asks a backend for snapshots on a worker thread of its own and waits at most a bound for each, so a
 * hung driver costs the event loop one bounded wait instead of freezing it (exits unreaped, timeouts
 * unenforced). While a call that overran is still running, further calls fail at once: there is only
 * ever one worker and one call in flight. A late answer is thrown away: it describes the GPUs as they
 * were longer ago than the bound, and nothing is placed on such data.
 *
 * <p>Used from the event loop's thread only. The backend still sees calls from one thread at a time.
 */
public final class BoundedBackend implements AutoCloseable {
    private final GpuBackend backend;
    private final Duration bound;
    private final ExecutorService worker;
    private Future<GpuSnapshot> inFlight;
    private long inFlightSince;
    /** {@link #inFlight} was started by {@link #ask()} and is the next {@link #snapshot()}'s to take. */
    private boolean asked;
    /** How old an asked snapshot may be and still be taken as the GPUs' state now, in nanoseconds. */
    static final long ASKED_FRESH_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);

    public BoundedBackend(GpuBackend backend, Duration bound) {
        this.backend = backend;
        this.bound = bound;
        // A fixed pool of one creates its thread on the first call and keeps it; a daemon, so a call
        // stuck in native code can never keep the JVM alive.
        this.worker = Executors.newFixedThreadPool(1, r -> {
            Thread t = new Thread(r, "gpusched-backend");
            t.setDaemon(true);
            return t;
        });
    }

    private BoundedBackend(GpuBackend backend) {
        this.backend = backend;
        this.bound = Duration.ZERO;
        this.worker = null;
    }

    /**
     * A backend asked on the loop's own thread, with no bound: for one that cannot hang, being no driver
     * but a table in memory (a simulated machine), where a hand-over to a worker would cost each round
     * a thread switch for nothing.
     *
     * @param backend the backend
     * @return the backend, unbounded
     */
    public static BoundedBackend inline(GpuBackend backend) {
        return new BoundedBackend(backend);
    }

    /**
     * @return the backend's answer, if it came within the bound
     * @throws BackendException when the backend failed, overran the bound, or has still not answered
     *     an earlier call that overran; an unchecked exception other than that is rethrown as it was
     *     thrown
     */
    GpuSnapshot snapshot() {
        if (worker == null) {
            return backend.snapshot();
        }
        if (asked) {
            asked = false;
            if (!inFlight.isDone() || System.nanoTime() - inFlightSince <= ASKED_FRESH_NANOS) {
                return answer();
            }
            // Answered too long ago to speak for the GPUs now (its round never came): asked again.
            inFlight = null;
        }
        if (inFlight != null && !inFlight.isDone()) {
            throw new BackendException("GPU backend still stuck on a query sent "
                    + seconds(Duration.ofNanos(System.nanoTime() - inFlightSince)) + " ago, over the "
                    + seconds(bound) + " bound; not asking again until it returns");
        }
        inFlightSince = System.nanoTime();
        inFlight = worker.submit(backend::snapshot);
        return answer();
    }

    /**
     * Starts a snapshot on the worker now, for the next {@link #snapshot()} to take (issue #27): asked as
     * an exit comes in, the backend works while the loop writes that exit's outcome, and the round that
     * follows finds the answer waiting instead of asking then. Nothing for a backend asked inline, or
     * while a call is in flight; an answer not taken within {@link #ASKED_FRESH_NANOS} is not used.
     */
    public void ask() {
        if (worker == null || inFlight != null) {
            return;
        }
        inFlightSince = System.nanoTime();
        inFlight = worker.submit(backend::snapshot);
        asked = true;
    }

    /** Waits for the call in flight, within the bound counted from when it was asked. */
    private GpuSnapshot answer() {
        try {
            long left = Math.max(0, bound.toNanos() - (System.nanoTime() - inFlightSince));
            GpuSnapshot snap = inFlight.get(left, TimeUnit.NANOSECONDS);
            inFlight = null;
            if (System.nanoTime() - inFlightSince > bound.toNanos()) {
                // The answer arrived after the bound but before this thread woke to give up on it (a
                // stalled machine): too old all the same.
                throw overran();
            }
            return snap;
        } catch (TimeoutException e) {
            throw overran();
        } catch (ExecutionException e) {
            inFlight = null;
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new BackendException("GPU backend failed: " + cause, cause);
        } catch (InterruptedException e) {
            // Leave the flag for the loop, which treats an interrupt as a stop request.
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while waiting for the GPU backend");
        }
    }

    private BackendException overran() {
        return new BackendException("GPU backend did not answer within " + seconds(bound));
    }

    /** Stops the worker; a call stuck in it is interrupted and left to finish on a daemon thread. */
    @Override
    public void close() {
        if (worker != null) {
            worker.shutdownNow();
        }
    }

    static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms / 1000.0 + " s";
    }
}

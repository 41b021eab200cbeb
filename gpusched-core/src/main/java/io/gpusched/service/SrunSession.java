package io.gpusched.service;

import io.gpusched.model.GpuschedException;
import io.gpusched.model.Grant;
import io.gpusched.model.JobResult;
import io.gpusched.Lease;
import io.gpusched.model.LeaseEnd;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.Scheduler;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.SubmitContext;
import io.gpusched.jobs.JobSpec;
import io.gpusched.protocol.Answer;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.Request;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One {@code srun} (or {@code srun_attach}) over its connection, which it holds to the end: queue the
 * lease, tell the client where it waits and why, hand over the grant, then wait for the client to say
 * how its command ended. The connection itself is the client's liveness: closed before the grant, the
 * request is withdrawn (cancelled); closed after, the scheduler ends the run once no process of it is
 * left. See {@code PROTOCOL.md}.
 *
 * <p>A session holds no thread while it waits (an srun may wait and run for hours): it is state moved
 * on by callbacks, from the scheduler's futures (granted, ended), the client's next line, and a timer
 * for the waiting updates; a call that must wait for the scheduler's loop runs on the service's
 * worker pool. The callbacks may come on any of those threads, so the state is guarded by this object.
 */
final class SrunSession {
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    /** How often a waiting client hears where it stands, when that changed. */
    private static final long UPDATE_MILLIS = 1000;

    /**
     * The connection as a session holds it; thread-safe, and none of it waits.
     */
    interface Client {
        /** Queues one line to the client. */
        void send(String line);

        /** Closes the connection once what was sent is written; nothing more is read. */
        void end();

        /**
         * Calls {@code then}, once, with the client's next line; or with empty when the connection
         * ends first (closed, a line over {@link Protocol#MAX_LINE_BYTES}, the service stopping).
         */
        void nextLine(Consumer<Optional<String>> then);
    }

    /** Where a session is. */
    private enum Phase {
        /** The request is being queued; nothing is read from the client yet. */
        STARTING,
        /** Queued: the client hears where it waits; a line or a close from it withdraws the request. */
        WAITING,
        /** The GPUs are the client's: its next line is how the command ended. */
        GRANTED,
        /** Ending: the last answer is on its way, the connection closes after it. */
        DONE
    }

    private final Scheduler scheduler;
    private final Client client;
    private final String peer;
    /** Runs what waits for the scheduler's loop (cancel, leaseEnded), off the caller's thread. */
    private final Executor blocking;
    private final ScheduledExecutorService timer;
    // Guarded by this.
    private Phase phase = Phase.STARTING;
    private int no;
    private Optional<Lease> lease = Optional.empty();
    /** The job's result to come, for a holder that attached after a restart (it queued no lease here). */
    private Optional<CompletableFuture<JobResult>> attachedResult = Optional.empty();
    private String token = "";
    /** The client's line once heard: empty inside when the connection ended instead. */
    private Optional<Optional<String>> heard = Optional.empty();
    private Optional<Answer.Waiting> said = Optional.empty();
    private Optional<ScheduledFuture<?>> updates = Optional.empty();

    private SrunSession(Scheduler scheduler, Client client, String peer, Executor blocking, ScheduledExecutorService timer) {
        this.scheduler = scheduler;
        this.client = client;
        this.peer = peer;
        this.blocking = blocking;
        this.timer = timer;
    }

    /**
     * Starts a session; the caller's thread may wait for the scheduler's loop (queueing the lease), and
     * returns once the session lives on callbacks. The session ends the connection when it ends.
     *
     * @param blocking runs the session's later calls that wait for the scheduler's loop
     * @param timer schedules the waiting client's updates
     */
    static void start(Scheduler scheduler, Client client, String peer, Request request, Executor blocking,
                      ScheduledExecutorService timer) {
        SrunSession s = new SrunSession(scheduler, client, peer, blocking, timer);
        try {
            if (request instanceof Request.SrunAttach a) {
                s.attach(a);
            } else if (request instanceof Request.Srun r) {
                s.queue(r);
            } else {
                throw new IllegalArgumentException(request.op() + " is no srun");
            }
        } catch (RuntimeException e) {
            // The scheduler is not running, or what cannot be answered: the connection ends, nothing else.
            client.end();
        }
    }

    private void queue(Request.Srun request) {
        Lease l;
        try {
            Map.Entry<JobSpec, SubmitContext> job = Requests.submission(request, peer);
            Requests.admit(scheduler, job.getKey());
            l = scheduler.lease(job.getKey(), job.getValue());
        } catch (GpuschedException | IllegalArgumentException e) {
            // As submit answers the same request: a bad line is bad_job, a bad field bad_request.
            refuse(Requests.errorOf(e));
            return;
        } catch (RuntimeException e) {
            refuse(Requests.error("failed", String.valueOf(e.getMessage())));
            return;
        }
        // A copy, so the timeout fails only this wait, never the job's own future.
        l.job().number().copy().orTimeout(Requests.TAKE_WITHIN.toMillis(), TimeUnit.MILLISECONDS).whenComplete((n, e) -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof TimeoutException && !l.job().withdraw()) {
                // The loop has it: its number or refusal comes, however long its line takes.
                l.job().number().whenComplete((m, f) -> taken(l, m, f));
                return;
            }
            taken(l, n, e);
        });
    }

    /** The scheduler took the request ({@code n}), refused it ({@code e}), or it was taken back (a timeout). */
    private void taken(Lease l, Integer n, Throwable e) {
        if (e != null) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof io.gpusched.model.JournalUnwritableException || cause instanceof io.gpusched.model.QueueFullException) {
                refuse(Requests.errorOf((RuntimeException) cause));
                return;
            }
            refuse(Requests.error("failed", "the scheduler did not take the request: "
                    + (cause instanceof TimeoutException ? "not within " + Requests.TAKE_WITHIN.toSeconds()
                    + " s (it may be stopping, or busy); it was not queued" : cause.getMessage())));
            return;
        }
        queued(l, n);
    }

    private void refuse(String error) {
        client.send(error);
        client.end();
    }

    private synchronized void queued(Lease l, int n) {
        no = n;
        lease = Optional.of(l);
        phase = Phase.WAITING;
        client.send(CODEC.encode(new Answer.Queued(n)));
        client.nextLine(this::heard);
        l.granted().whenComplete((g, e) -> settle());
        l.job().result().whenComplete((r, e) -> settle());
        updates = Optional.of(timer.scheduleWithFixedDelay(this::update, UPDATE_MILLIS, UPDATE_MILLIS,
                TimeUnit.MILLISECONDS));
    }

    /** The client spoke, or its connection ended. */
    private synchronized void heard(Optional<String> line) {
        heard = Optional.of(line);
        if (phase == Phase.WAITING) {
            settle();
        } else if (phase == Phase.GRANTED) {
            held(line);
        }
    }

    /**
     * While waiting, whatever happened first decides, in this order: the grant, the job's end before it,
     * the client speaking out of turn or going away (the request is withdrawn).
     */
    private synchronized void settle() {
        if (phase != Phase.WAITING) {
            return;
        }
        Lease l = lease.orElseThrow();
        CompletableFuture<JobResult> result = l.job().result();
        if (l.granted().isDone()) {
            stopUpdates();
            Grant grant;
            try {
                grant = l.granted().join();
            } catch (RuntimeException e) {
                phase = Phase.DONE;
                client.end();
                return;
            }
            phase = Phase.GRANTED;
            token = grant.token();
            client.send(CODEC.encode(new Answer.Granted(no, grant.gpus(), grant.environment())));
            heard.ifPresent(this::held); // what the client said meanwhile is its report
            return;
        }
        if (result.isDone()) {
            stopUpdates();
            phase = Phase.DONE;
            String how = result.isCompletedExceptionally() ? "the scheduler stopped"
                    : result.join().status().journalName();
            refuse(Requests.error("ended", "job " + no + " ended before its GPUs were granted: " + how));
            return;
        }
        if (heard.isPresent()) {
            // The client went away or spoke out of turn: the request is withdrawn.
            stopUpdates();
            phase = Phase.DONE;
            int n = no;
            blocking.execute(() -> {
                try {
                    scheduler.cancel(n);
                } catch (RuntimeException e) {
                    // the scheduler stopped: a waiting lease is cancelled when it starts again
                }
                client.end();
            });
        }
    }

    private void stopUpdates() {
        updates.ifPresent(u -> u.cancel(false));
        updates = Optional.empty();
    }

    /** Tells a waiting client where it stands, when that changed (on the timer's thread). */
    private void update() {
        int n;
        synchronized (this) {
            if (phase != Phase.WAITING) {
                return;
            }
            n = no;
        }
        Optional<Answer.Waiting> where = where(n); // outside the lock: it reads the whole queue
        synchronized (this) {
            if (phase == Phase.WAITING && where.isPresent() && !where.equals(said)) {
                said = where;
                client.send(CODEC.encode(where.get()));
            }
        }
    }

    /** Where a pending job stands: its place among the pending (1 is next) and why it waits. */
    private Optional<Answer.Waiting> where(int no) {
        Optional<QueueSnapshot> s = scheduler.snapshot();
        if (s.isEmpty()) {
            return Optional.empty();
        }
        List<StatusBoard.Pending> pending = s.get().board().pending();
        for (int i = 0; i < pending.size(); i++) {
            if (pending.get(i).no() == no) {
                return Optional.of(new Answer.Waiting(no, i + 1, pending.size(), pending.get(i).reason()));
            }
        }
        return Optional.empty();
    }

    /** A holder back after losing its connection (the daemon restarted): it must own the lease. */
    private void attach(Request.SrunAttach request) {
        // The codec refused a number under 1 or a missing token: those never get here.
        int number = request.no();
        String t = request.token();
        Optional<CompletableFuture<JobResult>> result = scheduler.owner(number).map(peer::equals).orElse(false)
                ? scheduler.leaseAttach(number, t) : Optional.empty();
        if (result.isEmpty()) {
            refuse(Requests.error("not_held", "job " + number + " holds no GPUs for you under that token (it ended, or"
                    + " the scheduler lost it while it restarted)"));
            return;
        }
        synchronized (this) {
            no = number;
            token = t;
            attachedResult = result;
            phase = Phase.GRANTED;
            client.send(CODEC.encode(new Answer.Held(number)));
            client.nextLine(this::heard);
        }
    }

    /**
     * The grant is the client's and it spoke (or went away): record its command's exit status, answer the
     * job's outcome: the result of the lease this session queued, or of the one it attached to.
     */
    private synchronized void held(Optional<String> line) {
        phase = Phase.DONE;
        int n = no;
        String t = token;
        Optional<CompletableFuture<JobResult>> result = lease.map(l -> l.job().result()).or(() -> attachedResult);
        OptionalInt status = line.flatMap(SrunSession::exitStatus).map(OptionalInt::of).orElse(OptionalInt.empty());
        blocking.execute(() -> {
            try {
                ended(n, t, line, status, result);
            } catch (RuntimeException e) {
                client.end(); // the scheduler stopped: nothing to answer
            }
        });
    }

    /** On a worker: the exit status to the scheduler, then the answer, once the outcome is known. */
    private void ended(int n, String t, Optional<String> line, OptionalInt status,
                       Optional<CompletableFuture<JobResult>> result) {
        if (status.isEmpty()) {
            scheduler.leaseEnded(n, t, OptionalInt.empty());
            if (line.isPresent()) {
                client.send(Requests.error("bad_request", "expected {\"v\":1,\"op\":\"exited\",\"status\":0..255};"
                        + " the grant ends once nothing of the run is left"));
            }
            client.end();
            return;
        }
        LeaseEnd end = scheduler.leaseEnded(n, t, status);
        if (result.isEmpty()) {
            client.send(CODEC.encode(new Answer.Ended(n, end, Optional.empty())));
            client.end();
            return;
        }
        // Waited for on no thread: the answer goes out when the outcome is journaled, or after 15 s without.
        result.get().copy().orTimeout(15, TimeUnit.SECONDS).whenComplete((r, e) -> {
            // Without it (15 s passed) the outcome is journaled whatever happens here; the client just hears less.
            Optional<Answer.Outcome> outcome = e != null ? Optional.empty() : Optional.of(new Answer.Outcome(r.status(),
                    r.exitCode(), r.attributed() ? java.util.OptionalLong.of(r.overallPeakMib()) : java.util.OptionalLong.empty(),
                    r.declaredMib(), r.verdict(), r.duration().toMillis() / 1000.0));
            client.send(CODEC.encode(new Answer.Ended(n, end, outcome)));
            client.end();
        });
    }

    private static Optional<Integer> exitStatus(String line) {
        try {
            if (CODEC.decodeRequest(line) instanceof Request.Exited e && e.status() >= 0 && e.status() <= 255) {
                return Optional.of(e.status());
            }
        } catch (IllegalArgumentException e) {
            // no exited request: treated as no status
        }
        return Optional.empty();
    }

}

package io.gpusched.service;

import io.gpusched.Grant;
import io.gpusched.JobResult;
import io.gpusched.Lease;
import io.gpusched.LeaseEnd;
import io.gpusched.QueueSnapshot;
import io.gpusched.Scheduler;
import io.gpusched.StatusBoard;
import io.gpusched.SubmitContext;
import io.gpusched.jobs.JobSpec;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One {@code srun} (or {@code srun_attach}) over its connection, which it holds to the end: queue the
 * lease, tell the client where it waits and why, hand over the grant, then wait for the client to say
 * how its command ended. The connection itself is the client's liveness: closed before the grant, the
 * request is withdrawn (cancelled); closed after, the scheduler ends the run once no process of it is
 * left. See {@code PROTOCOL.md}.
 */
final class SrunSession {
    /** How often a waiting client hears where it stands, when that changed. */
    private static final long UPDATE_MILLIS = 1000;
    private final Scheduler scheduler;
    private final LineChannel lines;
    private final String peer;
    /** The client's next line, read on a thread of its own so the session notices a close while it waits. */
    private CompletableFuture<Optional<String>> next;

    private SrunSession(Scheduler scheduler, LineChannel lines, String peer) {
        this.scheduler = scheduler;
        this.lines = lines;
        this.peer = peer;
    }

    /** @return whether a request line asks for a session rather than one answer */
    static boolean wants(Map<String, Object> request) {
        return Long.valueOf(Protocol.VERSION).equals(request.get("v"))
                && ("srun".equals(request.get("op")) || "srun_attach".equals(request.get("op")));
    }

    /** Serves the session on the calling thread until it ends; the caller closes the connection after. */
    static void serve(Scheduler scheduler, LineChannel lines, String peer, Map<String, Object> request,
                      Submission submission) throws IOException {
        new SrunSession(scheduler, lines, peer).run(request, submission);
    }

    /** A request's job, owner, directory and environment, as {@code submit} reads them. */
    interface Submission {
        /** @return the request's job and where and how it runs, for this caller */
        Map.Entry<JobSpec, SubmitContext> of(Map<String, Object> request, String peer);
    }

    private void run(Map<String, Object> request, Submission submission) throws IOException {
        if ("srun_attach".equals(request.get("op"))) {
            attach(request);
            return;
        }
        Map.Entry<JobSpec, SubmitContext> job;
        Lease lease;
        int no;
        try {
            job = submission.of(request, peer);
            lease = scheduler.lease(job.getKey(), job.getValue());
            no = lease.job().number().get(30, TimeUnit.SECONDS);
        } catch (IllegalArgumentException e) {
            lines.write(Requests.error("bad_job", e.getMessage()));
            return;
        } catch (io.gpusched.QueueFullException e) {
            lines.write(Requests.error("queue_full", e.getMessage()));
            return;
        } catch (ExecutionException | TimeoutException e) {
            lines.write(Requests.error("failed", "the scheduler did not take the request: "
                    + (e.getCause() == null ? "it may be stopping" : e.getCause().getMessage())));
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException e) {
            lines.write(Requests.error("failed", String.valueOf(e.getMessage())));
            return;
        }
        lines.write(event("queued", Map.of("no", no)));
        readNext();
        Optional<Grant> grant = awaitGrant(lease, no);
        if (grant.isEmpty()) {
            return;
        }
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("no", no);
        g.put("gpus", grant.get().gpus());
        g.put("env", grant.get().environment());
        lines.write(event("granted", g));
        held(no, grant.get().token(), Optional.of(lease.job().result()));
    }

    /** Waits for the grant, telling the client where it stands; empty when the session ended first. */
    private Optional<Grant> awaitGrant(Lease lease, int no) throws IOException {
        String said = "";
        CompletableFuture<JobResult> result = lease.job().result();
        while (true) {
            CompletableFuture.anyOf(lease.granted(), result, next).completeOnTimeout(null, UPDATE_MILLIS,
                    TimeUnit.MILLISECONDS).join();
            if (lease.granted().isDone()) {
                return Optional.of(lease.granted().join());
            }
            if (result.isDone()) {
                String how = result.isCompletedExceptionally() ? "the scheduler stopped"
                        : result.join().status().journalName();
                lines.write(Requests.error("ended", "job " + no + " ended before its GPUs were granted: " + how));
                return Optional.empty();
            }
            if (next.isDone()) {
                // The client went away or spoke out of turn: the request is withdrawn.
                scheduler.cancel(no);
                return Optional.empty();
            }
            Optional<Map<String, Object>> where = where(no);
            String now = where.map(String::valueOf).orElse("");
            if (where.isPresent() && !now.equals(said)) {
                said = now;
                lines.write(event("waiting", where.get()));
            }
        }
    }

    /** Where a pending job stands: its place among the pending (1 is next) and why it waits. */
    private Optional<Map<String, Object>> where(int no) {
        Optional<QueueSnapshot> s = scheduler.snapshot();
        if (s.isEmpty()) {
            return Optional.empty();
        }
        List<StatusBoard.Pending> pending = s.get().board().pending();
        for (int i = 0; i < pending.size(); i++) {
            if (pending.get(i).no() == no) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("no", no);
                m.put("position", i + 1);
                m.put("of", pending.size());
                m.put("reason", pending.get(i).reason());
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    /** A holder back after losing its connection (the daemon restarted): it must own the lease. */
    private void attach(Map<String, Object> request) throws IOException {
        if (!(request.get("no") instanceof Long n) || n < 1 || n > Integer.MAX_VALUE
                || !(request.get("token") instanceof String token)) {
            lines.write(Requests.error("bad_request", "srun_attach needs \"no\" (a job number) and \"token\" (a string)"));
            return;
        }
        int no = n.intValue();
        if (!scheduler.owner(no).map(peer::equals).orElse(false) || !scheduler.leaseHeld(no, token)) {
            lines.write(Requests.error("not_held", "job " + no + " holds no GPUs for you under that token (it ended, or"
                    + " the scheduler lost it while it restarted)"));
            return;
        }
        lines.write(event("held", Map.of("no", no)));
        readNext();
        held(no, token, Optional.empty());
    }

    /** The grant is the client's: wait for its command's exit status, record it, answer the job's outcome. */
    private void held(int no, String token, Optional<CompletableFuture<JobResult>> result) throws IOException {
        Optional<String> line = next.join();
        OptionalInt status = line.flatMap(SrunSession::exitStatus).map(OptionalInt::of).orElse(OptionalInt.empty());
        if (status.isEmpty()) {
            scheduler.leaseEnded(no, token, OptionalInt.empty());
            if (line.isPresent()) {
                lines.write(Requests.error("bad_request", "expected {\"v\":1,\"op\":\"exited\",\"status\":0..255};"
                        + " the grant ends once nothing of the run is left"));
            }
            return;
        }
        LeaseEnd end = scheduler.leaseEnded(no, token, status);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("no", no);
        m.put("recorded", end.name().toLowerCase(java.util.Locale.ROOT));
        if (result.isPresent()) {
            try {
                JobResult r = result.get().get(15, TimeUnit.SECONDS);
                m.put("status", r.status().journalName());
                m.put("exit_code", r.exitCode());
                if (r.attributed()) {
                    m.put("peak_mib", r.overallPeakMib());
                }
                r.declaredMib().ifPresent(d -> m.put("declared_mib", d));
                m.put("verdict", r.verdict().name().toLowerCase(java.util.Locale.ROOT));
                m.put("seconds", r.duration().toMillis() / 1000.0);
            } catch (ExecutionException | TimeoutException e) {
                // the outcome is journaled whatever happens here; the client just hears less
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        lines.write(event("ended", m));
    }

    private static Optional<Integer> exitStatus(String line) {
        try {
            Map<String, Object> m = Json.parseObject(line);
            if ("exited".equals(m.get("op")) && m.get("status") instanceof Long s && s >= 0 && s <= 255) {
                return Optional.of(s.intValue());
            }
        } catch (IllegalArgumentException e) {
            // not JSON: treated as no status
        }
        return Optional.empty();
    }

    private void readNext() {
        next = new CompletableFuture<>();
        CompletableFuture<Optional<String>> f = next;
        Thread t = new Thread(() -> {
            try {
                f.complete(lines.read());
            } catch (IOException e) {
                f.complete(Optional.empty());
            }
        }, "gpusched-srun-reader");
        t.setDaemon(true);
        t.start();
    }

    private static String event(String name, Map<String, ?> fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", Protocol.VERSION);
        m.put("ok", true);
        m.put("event", name);
        m.putAll(fields);
        return Json.write(m);
    }
}

package io.gpusched.service;

import io.gpusched.model.GpuschedException;
import io.gpusched.JobHandle;
import io.gpusched.model.QueueFullException;
import io.gpusched.Scheduler;
import io.gpusched.model.SubmitContext;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.protocol.Answer;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.Request;
import io.gpusched.protocol.UnreadableRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * The answer to each request of {@code PROTOCOL.md}, for a caller the kernel named: checked (what it
 * means, who may do what) and carried out through the scheduler's thread-safe API. Knows nothing of
 * sockets or JSON; {@link ServiceServer} decodes each line once ({@link #decode}) and feeds it the
 * typed request.
 *
 * <p>Why one file of this length: every op's checks of who may do what sit side by side, so a reader
 * sees the whole access rule of the service in one place.
 */
final class Requests {
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    private final Scheduler scheduler;
    private final boolean shared;
    private final Optional<String> adminGroup;
    private final Optional<DashboardLinks> dashboard;
    private final Optional<QueuePrinter> printer;
    /** Prints {@code stats}' figures for a client that cannot read the journal; empty: {@code not_served}. */
    private final Optional<StatsPrinter> statsPrinter;
    /**
     * The users with a {@code stats} request taken and not yet answered: one at a time each (a second is
     * refused at once), so a user flooding stats requests holds one place in the stats thread's line.
     */
    private final java.util.Set<String> stating = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The bytes of text answers held until written, for every connection of this service. */
    private final TextBudget texts = new TextBudget();
    /**
     * How long a submission waits for the scheduler's loop to take it (a loop stopping, or held up by a
     * slow disk or a long round) before it is taken back and answered as not queued.
     */
    static final java.time.Duration TAKE_WITHIN = java.time.Duration.ofSeconds(30);
    private final java.time.Duration takeWithin;
    /** Fails a submission's wait for its number after {@link #takeWithin}, one timer for all of them. */
    private final TakeDeadlines deadlines;
    /**
     * The users with a preview being decided: one at a time each. A preview the last plan cannot answer
     * alone decides the whole queue on the scheduler's one loop; a user sending them back to back on
     * many connections would hold every other user's submission behind them.
     */
    private final java.util.Set<String> previewing = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** @return whether {@code user} has a preview being decided now (tests) */
    boolean previewing(String user) {
        return previewing.contains(user);
    }
    /** The latest snapshot's answers: connections race to set it, and a lost race only renders twice. */
    private volatile QueueAnswer lastAnswer;

    /**
     * @param shared whether the service serves every user (then users act on their own jobs only)
     * @param adminGroup with {@code shared}: members act on every job and on GPUs
     * @param dashboard the web dashboard's links, when one runs beside the service
     * @param printer renders {@code queue}'s text for a client that asks for it; empty: rows answer
     */
    Requests(Scheduler scheduler, boolean shared, Optional<String> adminGroup, Optional<DashboardLinks> dashboard,
             Optional<QueuePrinter> printer) {
        this(scheduler, shared, adminGroup, dashboard, printer, TAKE_WITHIN);
    }

    /** As the other, with how long a submission may wait for the loop to take it before it is taken back. */
    Requests(Scheduler scheduler, boolean shared, Optional<String> adminGroup, Optional<DashboardLinks> dashboard,
             Optional<QueuePrinter> printer, java.time.Duration takeWithin) {
        this(scheduler, shared, adminGroup, dashboard, printer, Optional.empty(), takeWithin);
    }

    /** As the other, printing {@code stats}' figures with {@code statsPrinter}. */
    Requests(Scheduler scheduler, boolean shared, Optional<String> adminGroup, Optional<DashboardLinks> dashboard,
             Optional<QueuePrinter> printer, Optional<StatsPrinter> statsPrinter, java.time.Duration takeWithin) {
        this.statsPrinter = statsPrinter;
        this.takeWithin = takeWithin;
        this.deadlines = new TakeDeadlines(takeWithin);
        this.scheduler = scheduler;
        this.shared = shared;
        this.adminGroup = adminGroup;
        this.dashboard = dashboard;
        this.printer = printer;
    }

    /**
     * Reads one request line, once, into its typed request.
     *
     * @throws UnreadableRequest when it is none of this version ({@link #errorOf} answers it)
     */
    static Request decode(String line) {
        return CODEC.decodeRequest(line);
    }

    /**
     * The answer to one request as the lines to write back in order: one, or for a streamed {@code queue}
     * and for {@code job} as many as {@code PROTOCOL.md} says, each far under
     * {@link Protocol#MAX_LINE_BYTES}. At once for most ops; for {@code submit}, once the scheduler's loop
     * has numbered the job, completed on the thread that learns it, so no thread waits for the number.
     * Call it on a thread that may wait for the scheduler's loop, unless {@link #immediate} says the
     * request never does. {@code srun} and {@code srun_attach} are {@link SrunSession}'s, never answered
     * here. The future never fails: an unexpected fault is thrown here instead.
     */
    CompletableFuture<java.util.List<String>> answer(Request req, String peer) {
        try {
            if (req instanceof Request.Submit s) {
                return submit(s, peer).thenApply(java.util.List::of);
            }
            return CompletableFuture.completedFuture(answerNow(req, peer));
        } catch (GpuschedException | IllegalArgumentException e) {
            return done(errorOf(e));
        }
    }

    /** Every op but {@code submit}, answered at once; a switch over the sealed request type. */
    private java.util.List<String> answerNow(Request req, String peer) {
        // Java 17 has no pattern switch: one instanceof per record, the last branch proving the list whole.
        if (req instanceof Request.Hello) {
            return java.util.List.of(CODEC.encode(new Answer.Hello("gpusched", peer)));
        } else if (req instanceof Request.Preview p) {
            return java.util.List.of(preview(p, peer));
        } else if (req instanceof Request.Queue q) {
            return queue(q);
        } else if (req instanceof Request.Job j) {
            return job(j.no());
        } else if (req instanceof Request.Cancel c) {
            return java.util.List.of(cancel(c.no(), peer));
        } else if (req instanceof Request.CancelUser c) {
            return java.util.List.of(cancelAll(c.user(), peer));
        } else if (req instanceof Request.Logs l) {
            return java.util.List.of(logs(l.no(), peer));
        } else if (req instanceof Request.Pause p) {
            return java.util.List.of(pause(p.gpu(), true, peer));
        } else if (req instanceof Request.Resume r) {
            return java.util.List.of(pause(r.gpu(), false, peer));
        } else if (req instanceof Request.Dashboard) {
            return java.util.List.of(dashboard(peer));
        } else if (req instanceof Request.Drain) {
            return java.util.List.of(drain(peer));
        } else if (req instanceof Request.Stats st) {
            return stats(st, peer);
        } else if (req instanceof Request.Exited) {
            // Said outside an srun's session, where it means nothing: as before typed requests, unknown.
            throw UnreadableRequest.unknownOp(req.op());
        } else if (req instanceof Request.Submit || req instanceof Request.Srun || req instanceof Request.SrunAttach) {
            throw new IllegalStateException(req.op() + " is answered by answer() or SrunSession");
        }
        throw new IllegalStateException("a request type this switch lacks: " + req.getClass().getName());
    }

    /**
     * Whether a request is answered with no thread waiting for the scheduler's loop or another process
     * ({@code hello}, {@code queue}, {@code job}, {@code submit}): the service answers these on threads of
     * their own, so they stay quick while the loop is busy. ({@code queue} and {@code job} are answered
     * once the snapshot shows the round under way, {@link io.gpusched.Scheduler#whenSnapshotCurrent};
     * {@code submit} once the loop has numbered the job and forced its line,
     * {@link io.gpusched.Scheduler#submitWithoutWaiting}; no thread waits for either.) A line that is no
     * request is answered at once too, by the caller.
     */
    static boolean immediate(Request req) {
        return req instanceof Request.Hello || req instanceof Request.Queue || req instanceof Request.Job
                || req instanceof Request.Submit;
    }

    /**
     * Whether answering a request renders the queue's text ({@code queue} with {@code "text"}, on a
     * service with a {@link QueuePrinter}): the one answer whose cost grows with the queue and is
     * rendered anew for each format and width. The service answers these apart ({@link Renders}), so
     * they never hold up the others.
     */
    boolean renders(Request req) {
        return req instanceof Request.Queue q && q.text().isPresent() && printer.isPresent();
    }

    /**
     * The error answer for what a request's checks or the scheduler refused, with the code
     * {@code PROTOCOL.md} gives it: {@code submit} and {@code srun} answer the same.
     */
    static String errorOf(RuntimeException e) {
        if (e instanceof UnreadableRequest u) {
            return error(u.reason().code(), u.getMessage());
        }
        if (e instanceof io.gpusched.model.JournalUnwritableException) {
            return error("journal_unwritable", e.getMessage());
        }
        if (e instanceof QueueFullException) {
            return error("queue_full", e.getMessage());
        }
        if (e instanceof io.gpusched.model.DuplicateJobException) {
            // srun's answer (submit's is an ok one naming the job): the message names the job.
            return error("duplicate", e.getMessage());
        }
        if (e instanceof Infeasible) {
            return error("infeasible", e.getMessage());
        }
        if (e instanceof Forbidden) {
            return error("forbidden", e.getMessage());
        }
        if (e instanceof JobSpecException) {
            return error("bad_job", e.getMessage());
        }
        if (e instanceof IllegalArgumentException) {
            return error("bad_request", e.getMessage());
        }
        return error("failed", e.getMessage());
    }

    private static CompletableFuture<java.util.List<String>> done(String answer) {
        return CompletableFuture.completedFuture(java.util.List.of(answer));
    }

    private CompletableFuture<String> submit(Request.Submit req, String peer) {
        Map.Entry<JobSpec, SubmitContext> job = submission(req.line(), req.cwd(), req.env(), req.output(),
                req.requestId(), req.umask(), peer);
        admit(scheduler, job.getKey());
        // No thread waits for the disk: the number comes on the loop's thread once the line is forced, and
        // what the loop refuses comes the same way, answered as a refusal on the spot would be.
        JobHandle h = scheduler.submitWithoutWaiting(job.getKey(), job.getValue());
        // A copy, so the timeout fails only this wait, never the job's own future.
        return deadlines.within(h.number()).handle((no, e) -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof TimeoutException) {
                // Never "failed" for a job that is then queued after all (a client would send it again): taken
                // back while the loop has not taken it, or else waited for, however long its line takes.
                if (h.withdraw()) {
                    return CompletableFuture.completedFuture(error("failed", "the scheduler did not take the job within "
                            + takeWithin.toSeconds() + " s (it may be stopping, or busy): it was not queued; submit it again"));
                }
                return h.number().handle(Requests::submitted);
            }
            return CompletableFuture.completedFuture(submitted(no, e));
        }).thenCompose(answer -> answer);
    }

    /** The answer to a submission whose number came, or that was refused with {@code e}. */
    private static String submitted(Integer no, Throwable e) {
        if (e == null) {
            return CODEC.encode(new Answer.Submitted(no));
        }
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof io.gpusched.model.DuplicateJobException same) {
            return CODEC.encode(new Answer.Submitted(same.no(), Optional.of(same.state())));
        }
        if (cause instanceof GpuschedException || cause instanceof IllegalArgumentException) {
            return errorOf((RuntimeException) cause);
        }
        return error("failed", cause.getMessage());
    }

    /**
     * Refuses a job that could never run on this machine, before it is queued or journaled: what the
     * scheduler would end infeasible ({@link Scheduler#neverRuns}). Never trusts the client's own check.
     *
     * @throws IllegalArgumentException ({@code infeasible}) with the scheduler's reason
     */
    static void admit(Scheduler scheduler, JobSpec spec) {
        Optional<String> never = scheduler.neverRuns(spec);
        if (never.isPresent()) {
            throw new Infeasible("cannot submit '" + spec.command() + "': it could never run here: " + never.get());
        }
    }

    /**
     * What a {@code submit} of the request's job would do now: start (where) or wait (why); a job that
     * could never run is refused as {@code submit} refuses it.
     */
    private String preview(Request.Preview req, String peer) {
        Map.Entry<JobSpec, SubmitContext> job = submission(req.line(), req.cwd(), Optional.empty(), Optional.empty(),
                Optional.empty(), OptionalInt.empty(), peer);
        if (!previewing.add(peer)) {
            return error("failed", "one preview at a time per user: " + peer + " has one being decided; send the next"
                    + " once its answer came");
        }
        io.gpusched.model.SubmitPreview p;
        try {
            p = scheduler.preview(job.getKey(), job.getValue());
        } finally {
            previewing.remove(peer);
        }
        if (p instanceof io.gpusched.model.SubmitPreview.Never n) {
            throw new Infeasible("cannot submit '" + job.getKey().command() + "': it could never run here: " + n.reason());
        }
        return CODEC.encode(p instanceof io.gpusched.model.SubmitPreview.Starts st
                ? new Answer.Preview(st.gpus(), Optional.empty())
                : new Answer.Preview(java.util.List.of(), Optional.of(((io.gpusched.model.SubmitPreview.Waits) p).reason())));
    }

    /**
     * The job a {@code submit} or {@code srun} request asks for, and its context: the caller as owner,
     * the request's directory and environment. The codec checked the fields' types; this checks what they
     * mean, in this order: the line, the directory, the output, the request id, the umask.
     *
     * @throws IllegalArgumentException for a line that is not a job, a relative {@code cwd}, an unusable
     *     {@code output} or {@code request_id}, a umask over 0777
     */
    static Map.Entry<JobSpec, SubmitContext> submission(String line, String cwdField, Optional<Map<String, String>> env,
                                                         Optional<String> output, Optional<String> requestId,
                                                         OptionalInt umask, String peer) {
        JobSpec spec = JobSpec.parse(line);
        Path cwd = path("cwd", cwdField);
        if (!cwd.isAbsolute()) {
            throw new BadRequest("\"cwd\" must be an absolute path, got " + quoted(cwdField));
        }
        SubmitContext context;
        try {
            context = new SubmitContext(peer, cwd, env);
            if (output.isPresent()) {
                context = context.withOutput(path("output", output.get()));
            }
            if (requestId.isPresent()) {
                context = context.withRequestId(requestId.get());
            }
        } catch (BadRequest e) {
            throw e;
        } catch (IllegalArgumentException e) {
            // The context's words repeat what was wrong (an environment name, the output): bounded here.
            throw new BadRequest(quoted(e.getMessage()));
        }
        if (umask.isPresent()) {
            int mask = umask.getAsInt();
            if (mask > 0777) {
                throw new BadRequest("\"umask\" must be 0 to 511 (octal 0 to 0777), got " + mask);
            }
            context = context.withUmask(mask);
        }
        return Map.entry(spec, context);
    }

    /** The most characters of a refused path an answer repeats: enough to see which it was. */
    private static final int QUOTED_CHARS = 200;

    /** A path field, or its refusal in our words (the JDK's repeats the whole value, up to the 1 MiB line). */
    private static Path path(String field, String value) {
        if (value.indexOf('\0') >= 0) {
            throw new BadRequest("\"" + field + "\" must be a path without NUL characters, got " + quoted(value));
        }
        try {
            return Path.of(value);
        } catch (java.nio.file.InvalidPathException e) {
            throw new BadRequest("\"" + field + "\" is not a path: " + quoted(value));
        }
    }

    /** A value of the request as an answer repeats it: on one line, visible escapes, cut with "...". */
    private static String quoted(String value) {
        return io.gpusched.event.TerminalText.excerpt(value, QUOTED_CHARS);
    }

    /** {@link #submission} of an {@code srun}: the command runs in the client, with its environment. */
    static Map.Entry<JobSpec, SubmitContext> submission(Request.Srun req, String peer) {
        return submission(req.line(), req.cwd(), Optional.empty(), req.output(), req.requestId(), req.umask(), peer);
    }

    /**
     * @return the {@code queue} texts' shares taken now, a piece each: what they may hold unwritten (tests:
     *     the {@link TextBudget}'s bound)
     */
    long heldTextBytes() {
        return texts.held();
    }

    /**
     * The queue, whoever asks: in one line holding the rows that fit, or with {@code "stream": true}
     * in as many lines as its rows need ({@link QueueAnswer}); with {@code "text"}, as the client prints
     * it, printed by the {@link QueuePrinter} when this service has one and the answer's share fits the
     * {@link TextBudget} (rows otherwise, as a daemon from before {@code text} answers), however long the
     * queue: the text is rendered a piece at a time as it is written.
     */
    private java.util.List<String> queue(Request.Queue req) {
        Optional<QueueAnswer> a = answerNow();
        if (a.isEmpty()) {
            return java.util.List.of(notReady());
        }
        if (req.text().isPresent() && printer.isPresent()) {
            try {
                Optional<java.util.List<String>> text = a.get().text(req.text().get(), printer.get(), texts);
                if (text.isPresent()) {
                    return text.get();
                }
            } catch (IllegalArgumentException e) {
                return java.util.List.of(error("bad_request", "queue: " + e.getMessage()));
            }
        }
        return req.stream() ? a.get().streamed() : java.util.List.of(a.get().oneLine());
    }

    /** One job as the queue shows it, with its whole command: what {@code gpusched show} prints. */
    private java.util.List<String> job(int no) {
        Optional<QueueAnswer> a = answerNow();
        if (a.isEmpty()) {
            return java.util.List.of(notReady());
        }
        return a.get().job(no).orElseGet(() -> java.util.List.of(error("no_job", "job " + no + " is not in the queue"
                + " (running, pending, or ended recently); gpusched queue --all lists those it holds")));
    }

    /** The answers for the scheduler's latest snapshot, measured once however many clients ask for it. */
    private Optional<QueueAnswer> answerNow() {
        Optional<io.gpusched.event.QueueSnapshot> s = scheduler.snapshot();
        if (s.isEmpty()) {
            return Optional.empty();
        }
        QueueAnswer a = lastAnswer;
        if (a == null || !a.answers(s.get())) {
            a = new QueueAnswer(s.get(), a == null ? Optional.empty() : a.rendered());
            lastAnswer = a;
        }
        return Optional.of(a);
    }

    private static String notReady() {
        return error("not_ready", "the scheduler has not made its first round yet; try again");
    }

    /** The caller's own dashboard URL (its token is theirs: the kernel named them). */
    private String dashboard(String peer) {
        return dashboard.flatMap(d -> d.urlFor(peer))
                .map(url -> CODEC.encode(new Answer.DashboardUrl(url)))
                .orElseGet(() -> error("not_served", "this gpusched runs no dashboard for " + peer
                        + "; start it with gpusched serve --dashboard PORT"));
    }

    /**
     * Cancels a job of the caller's, or any job for an admin. The owner is checked in the loop's step
     * that cancels: checked apart, a number no job had yet when checked (the next one) could be another
     * user's job by the time it was cancelled. A number no job has is {@code not_found}, whoever asks.
     */
    private String cancel(int no, String peer) {
        boolean anyJob = mayActOnEveryJob(peer);
        return CODEC.encode(new Answer.Cancelled(scheduler.cancel(no, owner -> {
            if (!anyJob) {
                requireOwn(no, owner, peer, "cancel it");
            }
        })));
    }

    /** Every job of a user that has not ended: theirs to cancel, or an admin's. */
    private String cancelAll(String user, String peer) {
        if (shared && !user.equals(peer) && !admin(peer)) {
            throw new Forbidden("only " + user + " or " + admins() + " may cancel " + user + "'s jobs");
        }
        return CODEC.encode(new Answer.CancelledAll(scheduler.cancelAll(user)));
    }

    /**
     * A job's log files, oldest first, and whether it may still write: its own output file when it has
     * one (a root daemon's job, or {@code --output}), else the log directory's, one per attempt on other
     * GPUs. Only its owner and admins learn where another user's output is: a root daemon would
     * otherwise point anyone at it.
     */
    private String logs(int no, String peer) {
        boolean anyJob = mayActOnEveryJob(peer);
        // Owner, output and state in one step of the loop, asked of it rather than read from a snapshot (a
        // snapshot a round old would call a job that just started, its log already there, ended, and a
        // follower would stop). One step: the owner checked is the owner of the output named, where a
        // number no job had when checked could be another user's job by the time its output was asked.
        Optional<io.gpusched.model.JobLogs> job = scheduler.logs(no);
        job.ifPresent(j -> {
            if (!anyJob) {
                requireOwn(no, j.owner(), peer, "read its log");
            }
        });
        java.util.List<String> paths = new java.util.ArrayList<>();
        Optional<Path> own = job.flatMap(io.gpusched.model.JobLogs::outputFile);
        if (own.isPresent()) {
            // Named, not probed: this process may be root, and whether a path exists is for its owner's
            // client to find out with its own rights (a root probe would tell anyone what root can see).
            paths.add(own.get().toString());
        } else if (job.isPresent() || anyJob) {
            // A number the journal no longer holds (its job ended long ago and was compacted away, or
            // before this daemon's journal) has no owner to check: its leftover files are named only to
            // whoever may read every job's, so the answer tells no one else it ever had any.
            paths.addAll(logDirFiles(no));
        }
        Optional<io.gpusched.model.JobStage> state = job.map(io.gpusched.model.JobLogs::state);
        // Derived, not looked up: the terminal exists only while a [tty] job runs, and attach asks tmux.
        return CODEC.encode(new Answer.Logs(paths, state,
                Optional.of(io.gpusched.model.TtySession.of(scheduler.logDir(), no).name())));
    }

    /** The log directory's {@code job<NNN>_gpu<i>.log} files of a job, oldest first. */
    private java.util.List<String> logDirFiles(int no) {
        String prefix = String.format("job%03d_gpu", no);
        java.util.List<String> paths = new java.util.ArrayList<>();
        try (var files = Files.list(scheduler.logDir())) {
            files.filter(f -> f.getFileName().toString().startsWith(prefix) && f.getFileName().toString().endsWith(".log"))
                    .sorted(java.util.Comparator.comparing(Requests::modified))
                    .forEach(f -> paths.add(f.toAbsolutePath().toString()));
        } catch (IOException e) {
            throw new GpuschedException("cannot list " + scheduler.logDir() + ": " + e.getMessage());
        }
        return paths;
    }

    /** Whether a caller may act on any job: everyone on a user's own daemon, else root and admins. */
    private boolean mayActOnEveryJob(String peer) {
        return !shared || admin(peer);
    }

    /** Refuses a caller who is not the job's owner (the journal's); quick, so fit for the loop's thread. */
    private void requireOwn(int no, String owner, String peer, String what) {
        if (!owner.equals(peer)) {
            throw new Forbidden("job " + no + " is " + owner + "'s; only " + owner + " or " + admins() + " may " + what);
        }
    }

    /** Who counts as an admin, in words: {@code an admin (root, group lab)}. */
    private String admins() {
        return "an admin (root" + adminGroup.map(g -> ", group " + g).orElse("") + ")";
    }

    private static java.nio.file.attribute.FileTime modified(Path f) {
        try {
            return Files.getLastModifiedTime(f);
        } catch (IOException e) {
            return java.nio.file.attribute.FileTime.fromMillis(0);
        }
    }

    /**
     * Takes a {@code stats} request of {@code peer}'s for answering: false when they have one taken and
     * not yet answered (one at a time per user); then {@link #statsRefused} is the answer. Each {@code true}
     * must be followed by {@link #statsDone}.
     */
    boolean takeStats(String peer) {
        return stating.add(peer);
    }

    /** The user's {@code stats} request taken by {@link #takeStats} is answered. */
    void statsDone(String peer) {
        stating.remove(peer);
    }

    /** @return whether {@code user} has a {@code stats} request taken and not yet answered (tests) */
    boolean stating(String user) {
        return stating.contains(user);
    }

    /** The answer to a {@code stats} request of a user who has one being answered. */
    static String statsRefused(String peer) {
        return error("failed", "one stats request at a time per user: " + peer + " has one being answered; send the"
                + " next once its answer came");
    }

    /**
     * {@code gpusched stats}' figures from the journal, printed by the {@link StatsPrinter}: read here (the
     * stats thread, never the scheduler's loop), narrowed to what the caller may see. On a daemon serving
     * every user, root and admins see any user's or everyone's; anyone else their own jobs alone
     * ({@link io.gpusched.stats.JournalStats#computeOwn}: even the GPUs listed and the period's start come
     * from their jobs), and asking for another user's is {@code forbidden}, in cancel's words.
     */
    private java.util.List<String> stats(Request.Stats req, String peer) {
        if (statsPrinter.isEmpty()) {
            return java.util.List.of(error("not_served", "this gpusched prints no stats over its socket; run gpusched"
                    + " stats --log-dir DIR as a user who may read its journal"));
        }
        boolean everyone = mayActOnEveryJob(peer);
        if (!everyone && req.user().isPresent() && !req.user().get().equals(peer)) {
            String u = quoted(req.user().get());
            throw new Forbidden("only " + u + " or " + admins() + " may see " + u + "'s stats");
        }
        Path journal = scheduler.logDir().resolve("journal.jsonl");
        io.gpusched.journal.JournalEntries entries;
        try {
            entries = io.gpusched.journal.JournalEntries.read(journal);
        } catch (java.nio.file.NoSuchFileException e) {
            return java.util.List.of(error("failed", "this gpusched has no journal yet (" + journal + ")"));
        } catch (IOException e) {
            return java.util.List.of(error("failed", "cannot read " + journal + ": " + e.getMessage()));
        }
        long now = System.currentTimeMillis();
        java.util.OptionalLong from = req.sinceSeconds().isPresent()
                ? java.util.OptionalLong.of(now - req.sinceSeconds().getAsInt() * 1000L) : java.util.OptionalLong.empty();
        double tolerance = req.tolerance().orElse(io.gpusched.options.SchedulerOptions.defaults().tolerance());
        // Jobs-file lines have no owner in the journal: they are the daemon's user's, who wrote it.
        io.gpusched.stats.StatsQuery query = new io.gpusched.stats.StatsQuery(from, now, req.user(), tolerance,
                System.getProperty("user.name", "?"));
        io.gpusched.stats.Stats stats = everyone ? io.gpusched.stats.JournalStats.compute(entries.entries(), query)
                : io.gpusched.stats.JournalStats.computeOwn(entries.entries(), query.forUser(peer));
        String text;
        try {
            text = statsPrinter.get().print(stats, journal, entries.warnings(), req);
        } catch (IllegalArgumentException e) {
            return java.util.List.of(error("bad_request", "stats: " + e.getMessage()));
        }
        java.util.List<String> lines = new java.util.ArrayList<>();
        lines.add(null);
        int at = 0;
        while (at < text.length()) {
            int end = Math.min(text.length(), at + ProtocolCodec.COMMAND_PART_CHARS);
            if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
                end--; // a pair stays in one part
            }
            lines.add(CODEC.encode(new Answer.Part(text.substring(at, end))));
            at = end;
        }
        lines.set(0, CODEC.encode(new Answer.Stats(lines.size() - 1, entries.warnings())));
        return lines;
    }

    /** Start nothing more, and end once the running jobs have: the whole service's, so an admin's. */
    private String drain(String peer) {
        if (shared && !admin(peer)) {
            throw new Forbidden("draining the daemon is for admins (root" + adminGroup.map(g -> ", group " + g)
                    .orElse("") + "); ask one");
        }
        return CODEC.encode(new Answer.Draining(scheduler.drain()));
    }

    private String pause(int gpu, boolean pause, String peer) {
        if (shared && !admin(peer)) {
            throw new Forbidden("pausing and resuming GPUs is for admins (root" + adminGroup.map(g -> ", group " + g)
                    .orElse("") + "); ask one");
        }
        if (pause) {
            scheduler.pause(gpu);
        } else {
            scheduler.resume(gpu);
        }
        return CODEC.encode(new Answer.Acknowledged());
    }

    /** The error answer {@code {"v":1,"ok":false,"error":{"code":...,"message":...}}}. */
    static String error(String code, String message) {
        return CODEC.encode(new Answer.Failure(code, message));
    }

    /** Whether a user may act on every job and on GPUs: root, or a member of the admin group. */
    private boolean admin(String peer) {
        if (peer.equals("root")) {
            return true;
        }
        if (adminGroup.isEmpty()) {
            return false;
        }
        try {
            Process p = new ProcessBuilder("id", "-nG", "--", peer).redirectErrorStream(true).start();
            String groups = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return p.waitFor() == 0 && java.util.List.of(groups.strip().split("\\s+")).contains(adminGroup.get());
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A request this caller may not make. */
    private static final class Forbidden extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Forbidden(String message) {
            super(message);
        }
    }

    /** A job that could never run on this machine's GPUs. */
    private static final class Infeasible extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Infeasible(String message) {
            super(message);
        }
    }

    /** A request whose fields mean nothing here (a relative directory, a umask over 0777). */
    private static final class BadRequest extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }
}

package io.gpusched.slurm;

import io.gpusched.cluster.AttemptRefusedException;
import io.gpusched.cluster.ClusterAttempt;
import io.gpusched.cluster.ClusterDriver;
import io.gpusched.cluster.ClusterReport;
import io.gpusched.cluster.ClusterRun;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.model.RunSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Slurm as a cluster of the scheduler's engine ({@link ClusterDriver}): an attempt handed over is submitted
 * with {@code sbatch} under the {@link SlurmWrap wrapper} (or followed again when Slurm already holds it),
 * followed with {@code squeue} from a thread of its own every poll, cancelled with {@code scancel}, and
 * reported from the wrapper's {@code started.json} and {@code result.json}. The engine keeps the queue, the
 * journal and the outcome rules; nothing here decides what becomes of an attempt.
 *
 * <p>Never twice: each Slurm job is named {@code gs-<random token>}, the token written to the attempt's
 * directory before {@code sbatch} runs; an attempt the journal said was in Slurm when this run began is
 * followed by its id, and one whose submitter died between {@code sbatch} and its journal line is found by
 * that name, but only for a job the journal knew before this run (so a wiped or {@code --fresh} journal
 * never adopts an older run's jobs).
 */
final class SlurmDriver implements ClusterDriver {
    /** What the journal said before this run: the jobs it knew, and the Slurm job of each attempt in flight. */
    record Before(Set<String> known, Map<String, Long> inFlight, Map<String, Integer> inFlightAttempt) {
        static final Before NOTHING = new Before(Set.of(), Map.of(), Map.of());
    }

    private final Path logDir;
    private final SlurmOptions options;
    private final SlurmClient slurm;
    private final List<String> wrapper;
    private final SlurmMapping mapping;
    private final String source;
    private final Consumer<String> notes;
    private final Consumer<SchedulerEvent> warnings;
    private final Consumer<SlurmException> fatal;
    private final Before before;
    private final Map<String, Long> unclaimed;
    private final java.security.SecureRandom random = new java.security.SecureRandom();
    /** The attempts followed, by Slurm job id: added on the engine's thread, polled on the poller's. */
    private final Map<Long, Followed> followed = new ConcurrentHashMap<>();
    private int queueFailures;
    /**
     * The submit-count limit sbatch last refused a job for, while no attempt is to be submitted: set and
     * cleared on the engine's thread. It holds only while {@link #ends} is what it was when that sbatch was
     * started: a job that ended meanwhile, even during the refused sbatch, frees a place.
     */
    private Optional<Limited> limited = Optional.empty();

    /**
     * How many of the run's Slurm jobs have ended (counted on the poller's thread). A count rather than a
     * flag the poller clears: an end seen while a refused sbatch still ran came before the refusal set the
     * gate, and a cleared flag would have been set again over it, holding the jobs for the whole back-off.
     */
    private final java.util.concurrent.atomic.AtomicLong ends = new java.util.concurrent.atomic.AtomicLong();

    /** Whether the wait for a submit limit was said since the last accepted submission (engine's thread). */
    private boolean limitNoted;

    /**
     * A reached submit-count limit: Slurm's reason code, until when (System.nanoTime) nothing is submitted,
     * and {@link #ends} as the refused sbatch was started.
     */
    private record Limited(String code, long untilNanos, long endsBefore) {
    }

    /**
     * @param warnings where a failed {@code squeue} is said (safe from any thread)
     * @param fatal told, from any thread, when the run cannot go on: no job can be submitted (sbatch cannot
     *     be run, slurmctld cannot be reached, the run's partition or account is refused), or {@code squeue}
     *     failed {@value SlurmExecutor#MAX_QUEUE_FAILURES} times in a row; sbatch refusing one job is not
     *     such a case (that job alone fails, {@link AttemptRefusedException})
     */
    SlurmDriver(Path logDir, SlurmOptions options, CommandRunner commands, List<String> wrapper, String source,
                Consumer<String> notes, Consumer<SchedulerEvent> warnings, Consumer<SlurmException> fatal, Before before) {
        this.logDir = logDir;
        this.options = options;
        // One Slurm command at a time: the engine's thread submits and cancels while the poller asks squeue.
        Object oneAtATime = new Object();
        this.slurm = new SlurmClient(argv -> {
            synchronized (oneAtATime) {
                return commands.run(argv);
            }
        });
        this.wrapper = List.copyOf(wrapper);
        this.mapping = new SlurmMapping(options.shardMib(), options.gpuShards());
        this.source = source;
        this.notes = notes;
        this.warnings = warnings;
        this.fatal = fatal;
        this.before = before;
        this.unclaimed = new ConcurrentHashMap<>(before.inFlight());
    }

    @Override
    public String describe() {
        return "slurm (" + options.backend().orElse("detected") + " inside each job)";
    }

    /**
     * While sbatch's last refusal was for a submit-count limit ({@link SlurmClient.SubmitLimit}) and neither
     * has one of the run's Slurm jobs ended since (each frees a place under the limit) nor has the back-off
     * ({@link SlurmOptions#submitLimitRetry()}) passed: why the jobs wait, so that the engine asks sbatch
     * again once, not once per job and round.
     */
    @Override
    public Optional<io.gpusched.cluster.ClusterBusy> busy() {
        Optional<Limited> l = limited;
        long left = l.map(x -> x.endsBefore() != ends.get() ? 0L : x.untilNanos() - System.nanoTime()).orElse(0L);
        if (left <= 0) {
            limited = Optional.empty();
            return Optional.empty();
        }
        return Optional.of(new io.gpusched.cluster.ClusterBusy(waitReason(l.get().code()), java.time.Duration.ofNanos(left)));
    }

    /** A job's queue reason while the cluster's submit limit holds it back. */
    private String waitReason(String code) {
        return "waits for the cluster's submit limit (sbatch: " + code + "): submitted again when one of this run's"
                + " Slurm jobs ends, or " + said(options.submitLimitRetry()) + " after the refusal";
    }

    private static String said(java.time.Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** A line the mapping refuses ({@code tty}, a vram over one GPU's shards...): its one-line refusal. */
    @Override
    public Optional<String> refusal(io.gpusched.jobs.JobSpec spec) {
        return mapping.map(spec, source) instanceof SlurmRequest.Refused r ? Optional.of(r.message()) : Optional.empty();
    }

    @Override
    public ClusterRun submit(ClusterAttempt a) throws IOException {
        Path dir = attemptDir(a.no(), a.attempt());
        SlurmRequest.Mapped req = mapped(a);
        String key = a.key();
        Long journaled = before.inFlightAttempt().getOrDefault(key, -1) == a.attempt() ? unclaimed.remove(key) : null;
        if (journaled != null) {
            notes.accept("job " + a.no() + " is Slurm job " + journaled + " (journal) — followed again, not submitted"
                    + " twice; the wrapper inside it measured it meanwhile");
            return follow(a, journaled, dir, req);
        }
        Path tokenFile = dir.resolve(SlurmExecutor.TOKEN);
        if (before.known().contains(key) && Files.isRegularFile(tokenFile)) {
            String name = "gs-" + Files.readString(tokenFile).strip();
            Optional<SlurmClient.Queued> held;
            try {
                held = slurm.queue().values().stream().filter(q -> q.name().equals(name)).findFirst();
            } catch (SlurmException e) {
                throw new IOException(e.getMessage(), e);
            }
            if (held.isPresent()) {
                // Submitted by a run that died before its journal line: the same attempt, not a second one.
                notes.accept("job " + a.no() + " is Slurm job " + held.get().id() + " (found by name " + name
                        + ") — not submitted twice");
                return follow(a, held.get().id(), dir, req);
            }
        }
        String token = HexFormat.of().formatHex(randomBytes());
        Files.createDirectories(dir);
        // An older run's files in this directory (a wiped or --fresh journal) must not be read as this attempt's.
        for (String f : List.of(WrapReport.STARTED, WrapReport.RESULT, WrapReport.LOG, "slurm.out", SCRIPT)) {
            Files.deleteIfExists(dir.resolve(f));
        }
        // Before sbatch, so that a run dying right after it can still find the job by this name.
        WrapReport.writeAtomically(dir, SlurmExecutor.TOKEN, token + "\n");
        List<String> sbatch = new ArrayList<>();
        sbatch.add("--job-name=gs-" + token);
        sbatch.add("--output=" + outputPattern(dir.resolve("slurm.out")));
        sbatch.add("--chdir=" + Path.of("").toAbsolutePath());
        options.partition().ifPresent(p -> sbatch.add("--partition=" + p));
        options.account().ifPresent(acc -> sbatch.add("--account=" + acc));
        sbatch.addAll(req.sbatchOptions());
        List<String> wrapped = new ArrayList<>(wrapper);
        wrapped.add("--out");
        wrapped.add(dir.toString());
        // What a local run's job is told of itself (GPUSCHED_JOB_NO, GPUSCHED_JOB_KEY): the wrapper sets them.
        wrapped.add("--job-no");
        wrapped.add(String.valueOf(a.no()));
        wrapped.add("--job-key");
        wrapped.add(a.key());
        options.backend().ifPresent(b -> {
            wrapped.add("--backend");
            wrapped.add(b);
        });
        options.backendOptions().forEach((k, v) -> {
            wrapped.add("--backend-option");
            wrapped.add(k + "=" + v);
        });
        wrapped.addAll(List.of("--", "/bin/sh", "-c", a.spec().command()));
        // A file, not --wrap=SCRIPT: one argument of a long command (a 64 KiB line, quoted) could exceed the
        // kernel's limit on one argument; sbatch reads and keeps the file's contents when it submits.
        WrapReport.writeAtomically(dir, SCRIPT, SlurmClient.script(wrapped));
        String where = source + ":" + a.spec().line() + ": job " + a.no() + " (" + String.join(" ", req.sbatchOptions())
                + "): ";
        SlurmClient.Submission answer;
        long endsBefore = ends.get(); // before sbatch: an end while it runs opens the gate its refusal sets
        try {
            answer = slurm.submit(sbatch, dir.resolve(SCRIPT));
        } catch (SlurmException e) {
            // No job can be submitted (sbatch missing, slurmctld unreachable, the run's partition or account
            // refused): the run cannot go on as asked. Said with the line, since it was the one being submitted.
            SlurmException down = new SlurmException(where + e.getMessage());
            fatal.accept(down);
            throw new IOException(down.getMessage(), e);
        }
        if (answer instanceof SlurmClient.Refused r) {
            // Slurm refused what this line asks for (gpus=, timeout=...): this job fails, the others go on.
            throw new AttemptRefusedException(where + r.why() + "; check what the line asks for against the"
                    + " cluster's nodes and partition limits");
        }
        if (answer instanceof SlurmClient.SubmitLimit l) {
            // The user's or account's count of queued jobs, not this job: it waits, and so do the others,
            // until a job of the run ends or the back-off passes (a job of the user's outside this run may
            // end too, which only the back-off can notice).
            limited = Optional.of(new Limited(l.code(), System.nanoTime() + options.submitLimitRetry().toNanos(),
                    endsBefore));
            // Said once until a submission is accepted again: a long wait is one note, not one per back-off.
            if (!limitNoted) {
                limitNoted = true;
                notes.accept("job " + a.no() + ": " + l.why() + " — the cluster's submit limit is reached; the jobs"
                        + " left wait and are submitted again when one of this run's Slurm jobs ends, or in "
                        + said(options.submitLimitRetry()));
            }
            throw new io.gpusched.cluster.AttemptDeferredException(where + l.why(), busy().orElseGet(() ->
                    new io.gpusched.cluster.ClusterBusy(waitReason(l.code()), options.submitLimitRetry())));
        }
        long id = ((SlurmClient.Accepted) answer).id();
        limitNoted = false;
        notes.accept("job " + a.no() + " submitted to Slurm as job " + id + " (" + String.join(" ", req.sbatchOptions())
                + ")");
        return follow(a, id, dir, req);
    }

    private SlurmRequest.Mapped mapped(ClusterAttempt a) throws IOException {
        // The bumped declaration of a retry may exceed one GPU's shards: then it asks for the whole GPU.
        java.util.OptionalLong v = a.declaredMib();
        if (v.isPresent() && v.getAsLong() > mapping.gpuMib()) {
            v = java.util.OptionalLong.of(mapping.gpuMib());
        }
        SlurmRequest r = mapping.map(a.spec(), v, source);
        if (r instanceof SlurmRequest.Mapped m) {
            return m;
        }
        throw new IOException(((SlurmRequest.Refused) r).message());
    }

    private Followed follow(ClusterAttempt a, long id, Path dir, SlurmRequest.Mapped req) {
        Followed f = new Followed(a.no(), id, dir, req.gres());
        followed.put(id, f);
        return f;
    }

    /**
     * One poll: Slurm's queue, then each followed attempt's start and end. A failed {@code squeue}
     * (slurmctld restarting, a network hiccup) only skips the poll, said as a warning; the jobs keep
     * running in Slurm. {@value SlurmExecutor#MAX_QUEUE_FAILURES} in a row end the run.
     */
    void poll() {
        if (followed.isEmpty()) {
            return;
        }
        Map<Long, SlurmClient.Queued> queue;
        try {
            queue = slurm.queue();
            queueFailures = 0;
        } catch (SlurmException e) {
            if (++queueFailures >= SlurmExecutor.MAX_QUEUE_FAILURES) {
                fatal.accept(e);
                return;
            }
            warnings.accept(new SchedulerEvent.Warning(Instant.now(), e.getMessage() + " (attempt " + queueFailures
                    + " of " + SlurmExecutor.MAX_QUEUE_FAILURES + "; the jobs keep running in Slurm)"));
            return;
        }
        for (Followed f : List.copyOf(followed.values())) {
            f.step(Optional.ofNullable(queue.get(f.id)).map(SlurmClient.Queued::state).orElse("GONE"));
        }
    }

    /** The run cannot go on: says so to whoever stops it. */
    void fail(SlurmException why) {
        fatal.accept(why);
    }

    /** An attempt in Slurm, as the engine follows it. */
    private final class Followed implements ClusterRun {
        final int no;
        final long id;
        final Path dir;
        final String gres;
        final CompletableFuture<List<Integer>> running = new CompletableFuture<>();
        final CompletableFuture<ClusterReport> ended = new CompletableFuture<>();
        volatile boolean cancelRequested;
        /** Its state in Slurm's last answer ({@code squeue}), for the board; {@code submitted} before one. */
        volatile String state = "submitted";
        int missingPolls;

        Followed(int no, long id, Path dir, String gres) {
            this.no = no;
            this.id = id;
            this.dir = dir;
            this.gres = gres;
        }

        @Override
        public long id() {
            return id;
        }

        @Override
        public String request() {
            return gres;
        }

        @Override
        public String where() {
            return "slurm job " + id + " " + state;
        }

        @Override
        public Path log() {
            return dir.resolve(WrapReport.LOG);
        }

        @Override
        public CompletableFuture<List<Integer>> running() {
            return running;
        }

        @Override
        public CompletableFuture<ClusterReport> ended() {
            return ended;
        }

        @Override
        public void cancel() {
            cancelRequested = true;
            try {
                slurm.cancel(id);
                notes.accept("job " + no + ": scancel " + id);
            } catch (SlurmException e) {
                warnings.accept(new SchedulerEvent.Warning(Instant.now(), "job " + no + ": " + e.getMessage()));
            }
        }

        /** Its start, once the wrapper says so; its end, once Slurm no longer runs it. */
        void step(String state) {
            this.state = state;
            if (!running.isDone() && !state.equals("PENDING")) {
                WrapReport.read(dir, WrapReport.STARTED).ifPresent(r -> running.complete(r.gpus()));
            }
            if (isActive(state)) {
                return;
            }
            Optional<WrapReport> result = WrapReport.read(dir, WrapReport.RESULT);
            if (result.isEmpty() && !cancelRequested && !state.equals("CANCELLED") && !state.equals("TIMEOUT")
                    && ++missingPolls < 3) {
                return; // the result file may trail the job's end on a shared file system: give it a few polls
            }
            followed.remove(id);
            // One job fewer of the user's in Slurm: a submit limit it was holding back may take one more now.
            // Counted before the end is told, so that the round that end starts hands the waiting jobs over.
            ends.incrementAndGet();
            if (result.isEmpty() && !cancelRequested && !state.equals("CANCELLED") && !state.equals("TIMEOUT")) {
                notes.accept("job " + no + ": Slurm job " + id + " ended " + state + " without a wrapper result — see "
                        + dir.resolve("slurm.out"));
            }
            ClusterReport r = report(state, result);
            if (r.gpus().isEmpty() && running.isDone()) {
                // Killed before its wrapper could write its result (a scancel): the GPUs its start reported.
                r = new ClusterReport(r.exitCode(), running.join(), r.peakMib(), r.avgUtil(), r.took(), r.measurement(),
                        r.stoppedBy());
            }
            ended.complete(r);
        }
    }

    /**
     * How an attempt ended, from Slurm's last state and the wrapper's report: the exit status to record
     * (the wrapper's; {@link RunSummary#TIMEOUT_EXIT} after Slurm's time limit; 1 with no report), what it
     * measured, and whether Slurm stopped it without this run asking.
     *
     * @param slurmState its last state in {@code squeue} ({@code GONE} once Slurm forgot it)
     * @param result the wrapper's {@code result.json}, if it wrote one
     */
    static ClusterReport report(String slurmState, Optional<WrapReport> result) {
        AttemptEnd.Measured m = AttemptEnd.Measured.of(result);
        int exit = result.flatMap(r -> r.exitCode().isPresent() ? Optional.of(r.exitCode().getAsInt())
                : Optional.empty()).orElse(1);
        // Someone else's scancel of a job that had already exited 0 leaves it ok.
        Optional<StopReason> stop = slurmState.equals("CANCELLED") && (result.isEmpty() || exit != 0)
                ? Optional.of(StopReason.CANCELLED)
                : slurmState.equals("TIMEOUT") ? Optional.of(StopReason.TIMEOUT) : Optional.empty();
        if (stop.equals(Optional.of(StopReason.TIMEOUT))) {
            exit = RunSummary.TIMEOUT_EXIT;
        }
        return new ClusterReport(exit, m.gpus(), m.peakMib(), m.avgUtil(), m.took(), m.measurement(), stop);
    }

    /**
     * A path as {@code sbatch --output} reads it: a filename pattern, where {@code %j}, {@code %u}... are
     * replaced, so each {@code %} of the path is written {@code %%}. A backslash turns the replacing off and
     * is itself dropped, so a path with one cannot be given at all ({@link SlurmExecutor} refuses such a log
     * directory before anything is submitted).
     *
     * @param file the file Slurm is to write, e.g. {@code /logs/100%/slurm/job001-1/slurm.out}
     * @return the pattern that names exactly it, e.g. {@code /logs/100%%/slurm/job001-1/slurm.out}
     */
    static String outputPattern(Path file) {
        String s = file.toString();
        if (s.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("sbatch --output cannot name a path with a backslash: " + s);
        }
        return s.replace("%", "%%");
    }

    /** The job script submitted, in the attempt's directory: the wrapper's command line, one {@code sh} line. */
    static final String SCRIPT = "job.sh";

    private Path attemptDir(int no, int attempt) {
        return logDir.resolve("slurm").resolve(String.format("job%03d-%d", no, attempt));
    }

    private byte[] randomBytes() {
        byte[] b = new byte[6];
        random.nextBytes(b);
        return b;
    }

    /** Slurm states in which the job may still start or is running. */
    private static boolean isActive(String state) {
        return switch (state) {
            case "PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED", "REQUEUED", "REQUEUE_HOLD",
                    "REQUEUE_FED", "RESIZING", "SIGNALING", "STAGE_OUT", "STOPPED", "RESV_DEL_HOLD" -> true;
            default -> false;
        };
    }
}

package io.gpusched.slurm;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.RunSummary;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.Verdict;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.Requirements;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.journal.LearnedVram;
import io.gpusched.journal.LogDirLock;
import io.gpusched.outcome.AttemptJudge;
import io.gpusched.outcome.LogTail;
import io.gpusched.outcome.NothingLearned;
import io.gpusched.outcome.Verdicts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs a gpusched jobs file on Slurm ({@code gpusched jobs.txt --executor slurm}): each job is submitted with
 * {@code sbatch} under the {@link SlurmWrap wrapper}, followed with {@code squeue} every poll, and judged from
 * what the wrapper measured, with the local run's journal, events and OOM retries. Slurm queues and packs; this
 * loop only submits, watches and records.
 *
 * <p>Resuming: an attempt is journalled ({@code slurm_submitted}) as soon as {@code sbatch} answers, and each
 * Slurm job is named {@code gs-<random token>}, the token written to the attempt's directory
 * ({@code submit.token}) before {@code sbatch} runs, so a restarted run finds its attempts again by id, or by
 * that name when it died between {@code sbatch} and the journal line, and never submits one twice. A token is
 * trusted only for a job the journal knew before this run, so a wiped or {@code --fresh} journal never adopts
 * an older run's Slurm jobs. Jobs keep running in Slurm while no submitter watches.
 *
 * <p>One thread: {@link #run()} owns all state; {@link #stop()} only wakes it.
 *
 * <p>Why one long file: like the local engine's loop, submitting, following, judging, cancelling and
 * resuming all change the same per-job state in an order the journal depends on; the pure parts are
 * elsewhere ({@link SlurmMapping}, {@link AttemptEnd}, {@link WrapReport}, {@link SlurmClient}). Its
 * inner {@code Run} is the candidate for a split when it grows again.
 */
public final class SlurmExecutor {
    private final Path jobsFile;
    private final Path logDir;
    private final SlurmOptions options;
    private final SlurmClient slurm;
    private final List<String> wrapper;
    private final Consumer<SchedulerEvent> events;
    private final Consumer<String> notes;
    private final SlurmMapping mapping;
    private final Requirements rules;
    /** The outcome rules a local run judges by; undeclared, a job asks Slurm for a whole GPU, and so does its retry. */
    private final AttemptJudge judge;
    private final java.security.SecureRandom random = new java.security.SecureRandom();
    private final CountDownLatch stopped = new CountDownLatch(1);

    /**
     * @param jobsFile the jobs file
     * @param logDir where the journal ({@code journal.jsonl}) and each attempt's directory
     *     ({@code slurm/job<NNN>-<attempt>/}: {@code job.log}, {@code started.json}, {@code result.json},
     *     {@code slurm.out}) go; must be on a file system the compute nodes share
     * @param options how to use the cluster
     * @param commands runs {@code sbatch}, {@code squeue} and {@code scancel}
     * @param wrapper the command prefix that starts {@link SlurmWrap} on a compute node, e.g.
     *     {@code java -cp gpusched.jar io.gpusched.slurm.SlurmWrap} ({@link #defaultWrapper()})
     * @param events the run's events, the same a local run gives (its log lines)
     * @param notes what only Slurm runs say, one line each, e.g. {@code job 2 submitted to Slurm as job 41 (--gres=shard:2)}
     */
    public SlurmExecutor(Path jobsFile, Path logDir, SlurmOptions options, CommandRunner commands, List<String> wrapper,
                         Consumer<SchedulerEvent> events, Consumer<String> notes) {
        this(jobsFile, logDir, options, commands, wrapper, events, notes, Requirements.NONE);
    }

    /**
     * As the constructor without rules, with requirement rules ({@code --requirements FILE}) applied to every line
     * before it is mapped, as a local run applies them.
     *
     * @param jobsFile the jobs file
     * @param logDir where the journal and the attempts' directories go
     * @param options how to use the cluster
     * @param commands runs {@code sbatch}, {@code squeue} and {@code scancel}
     * @param wrapper the command prefix that starts {@link SlurmWrap} on a compute node
     * @param events the run's events
     * @param notes what only Slurm runs say, one line each
     * @param rules the requirement rules ({@link Requirements#NONE} for none)
     */
    public SlurmExecutor(Path jobsFile, Path logDir, SlurmOptions options, CommandRunner commands, List<String> wrapper,
                         Consumer<SchedulerEvent> events, Consumer<String> notes, Requirements rules) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.jobsFile = jobsFile;
        this.logDir = logDir.toAbsolutePath();
        this.options = Objects.requireNonNull(options, "options");
        this.slurm = new SlurmClient(commands);
        this.wrapper = List.copyOf(wrapper);
        this.events = events;
        this.notes = notes;
        this.mapping = new SlurmMapping(options.shardMib(), options.gpuShards());
        this.judge = new AttemptJudge(options.tolerance(), AttemptJudge.UndeclaredRetry.STAYS_UNDECLARED);
    }

    /**
     * @return this JVM's {@code java} running {@link SlurmWrap} from this JVM's class path: right when the
     *     compute nodes see the same paths (a shared install), as on a one-node cluster
     */
    public static List<String> defaultWrapper() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), SlurmWrap.class.getName());
    }

    /** Wakes the loop and makes {@link #run()} return; submitted jobs keep running in Slurm. */
    public void stop() {
        stopped.countDown();
    }

    /**
     * Checks every line can run on Slurm, without submitting anything.
     *
     * @param specs the jobs of the file
     * @throws SlurmException naming the first line Slurm cannot run, and how many more there are
     */
    void check(List<JobSpec> specs) {
        List<String> refused = new ArrayList<>();
        for (JobSpec s : specs) {
            if (mapping.map(s, source()) instanceof SlurmRequest.Refused r) {
                refused.add(r.message());
            }
        }
        if (!refused.isEmpty()) {
            throw new SlurmException(refused.get(0) + (refused.size() > 1 ? " (and " + (refused.size() - 1)
                    + " more line" + (refused.size() > 2 ? "s" : "") + " Slurm cannot run)" : ""));
        }
    }

    private String source() {
        return String.valueOf(jobsFile.getFileName());
    }

    /**
     * Runs the file until every job has ended (or {@link #stop()}).
     *
     * @return the outcomes, this run's and the journal's earlier ones
     * @throws JobSpecException for a malformed jobs file
     * @throws SlurmException for a line Slurm cannot run, or when Slurm's commands fail
     * @throws io.gpusched.model.LogDirInUseException when another scheduler (local or Slurm) uses the log directory;
     *     nothing is submitted
     */
    public RunSummary run() {
        Map<String, Optional<String>> ruleOf = new java.util.HashMap<>();
        List<JobSpec> specs = new ArrayList<>();
        for (JobSpec line : JobsFileParser.parse(jobsFile)) {
            Requirements.Applied a = rules.apply(line);
            specs.add(a.spec());
            ruleOf.put(a.spec().key(), a.rule());
        }
        check(specs);
        try {
            Files.createDirectories(logDir.resolve("slurm"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + logDir + ": " + e.getMessage(), e);
        }
        // The same lock as a local run's: two submitters on one journal would each submit its jobs.
        LogDirLock lock = LogDirLock.acquire(logDir);
        try (lock; Journal journal = Journal.open(logDir.resolve("journal.jsonl"), options.fresh())) {
            return new Run(journal, specs, ruleOf).loop();
        }
    }

    /** One job of the file as this run follows it. */
    private static final class Tracked {
        final JobSpec spec;
        final int no;
        int attempt;
        OptionalLong vramMib;
        OptionalLong slurmId = OptionalLong.empty();
        Optional<SlurmRequest.Mapped> request = Optional.empty();
        boolean started;
        /** Where a {@code vram=auto} declaration came from, said on the start and finish lines. */
        Optional<String> learned = Optional.empty();
        /** The requirement rule that filled in its attributes, if one did. */
        Optional<String> rule = Optional.empty();
        /** Whether the journal knew the job before this run: only then may an attempt's token be adopted. */
        boolean knownBefore;
        boolean cancelRequested;
        boolean ended;
        int missingPolls;
        Instant queuedAt;

        Tracked(JobSpec spec, int no, int attempt, OptionalLong vramMib, Instant queuedAt) {
            this.spec = spec;
            this.no = no;
            this.attempt = attempt;
            this.vramMib = vramMib;
            this.queuedAt = queuedAt;
        }
    }

    /** The loop's state for one {@link #run()}. */
    private final class Run {
        private final Journal journal;
        private final Map<String, Tracked> jobs = new LinkedHashMap<>();
        private final List<JobResult> results = new ArrayList<>();
        private final List<JobResult> earlier = new ArrayList<>();
        private final List<String> resumed = new ArrayList<>();
        /** Jobs counted as dispatched: a job's retries are not new jobs (the start line's {@code k/n}). */
        private final java.util.Set<String> counted = new java.util.HashSet<>();
        private long jobsFileModified;
        private int queueFailures;

        Run(Journal journal, List<JobSpec> specs, Map<String, Optional<String>> ruleOf) {
            this.journal = journal;
            JournalState state = journal.state();
            for (JobSpec s : specs) {
                JobRecord rec = state.record(s.key());
                boolean known = rec.no().isPresent();
                if (!known) {
                    journal.append(new JournalEvent.Seen(s.key(), state.nextNo(), s.command()));
                    rec = state.record(s.key());
                }
                int no = rec.no().getAsInt();
                if (rec.terminal()) {
                    JobStatus st = JobStatus.fromJournal(rec.status()).orElse(JobStatus.FAILED);
                    int exit = rec.returncode().orElse(0);
                    events.accept(st == JobStatus.OK ? new SchedulerEvent.AlreadyCompleted(Instant.now(), no, s.command())
                            : new SchedulerEvent.AlreadyEnded(Instant.now(), no, s.key(), s.command(), st, exit, false));
                    earlier.add(new JobResult(s.key(), no, s.command(), rec.gpus(), st, exit, s.vramMib(), rec.peakMib(),
                            Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO, Measurement.UNWATCHED));
                    continue;
                }
                Tracked t = new Tracked(s, no, rec.attempts() + 1,
                        rec.nextVramMib().isPresent() ? rec.nextVramMib() : s.vramMib(), Instant.now());
                t.rule = ruleOf.getOrDefault(s.key(), Optional.empty());
                if (s.learnVram() && rec.nextVramMib().isEmpty()) {
                    learn(t, state);
                }
                t.knownBefore = known;
                t.slurmId = state.slurmJob(s.key());
                if (t.slurmId.isPresent()) {
                    // a journaled start, its attempt not ended since: the record keeps its session
                    t.started = rec.runningPgid().isPresent();
                    t.request = Optional.of(mapped(t));
                    // Said after the run's first line; not an orphan event, whose words speak of local sessions.
                    resumed.add("job " + no + " is Slurm job " + t.slurmId.getAsLong() + " (journal) — followed again,"
                            + " not submitted twice; the wrapper inside it measured it meanwhile");
                    if (t.started) {
                        counted.add(s.key());
                    }
                }
                jobs.put(s.key(), t);
            }
            // Long.MIN_VALUE: the first poll reads the file's cancel words too, so a line cancelled before
            // this run started is scancelled (or never submitted).
            jobsFileModified = Long.MIN_VALUE;
        }

        /**
         * {@code vram=auto}: the declaration learned from the journal's peaks of the same command, as a local run
         * learns it (the latest ok or timed-out peak plus the default spike buffer); a whole GPU while nothing was
         * learned. Slurm runs teach local ones and the other way round when they share a log directory.
         */
        private void learn(Tracked t, JournalState state) {
            Optional<LearnedVram> learned = LearnedVram.learn(t.spec.command(), t.rule, state.peaks(),
                    io.gpusched.options.SchedulerOptions.defaults().spikeBuffer());
            if (learned.isPresent()) {
                t.vramMib = OptionalLong.of(learned.get().mib());
                t.learned = Optional.of(learned.get().describe());
            } else {
                t.learned = Optional.of(NothingLearned.SLURM);
            }
        }

        RunSummary loop() {
            events.accept(new SchedulerEvent.RunStarted(Instant.now(), jobs.size(), false, options.poll(),
                    Optional.empty(), "slurm (" + options.backend().orElse("detected") + " inside each job)"));
            resumed.forEach(notes);
            while (true) {
                readCancels();
                Optional<Map<Long, SlurmClient.Queued>> queue = queue();
                for (Tracked t : jobs.values()) {
                    if (!t.ended && queue.isPresent()) {
                        step(t, queue.get());
                    }
                }
                if (jobs.values().stream().allMatch(t -> t.ended)) {
                    break;
                }
                try {
                    if (stopped.await(options.poll().toMillis(), TimeUnit.MILLISECONDS)) {
                        break;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            boolean interrupted = jobs.values().stream().anyMatch(t -> !t.ended);
            RunSummary summary = new RunSummary(results, earlier, interrupted);
            events.accept(new SchedulerEvent.RunFinished(Instant.now(), summary));
            return summary;
        }

        /**
         * Slurm's queue, or empty after a failed {@code squeue} (slurmctld restarting, a network hiccup): the jobs
         * keep running in Slurm, so a few failures only skip polls; {@value #MAX_QUEUE_FAILURES} in a row end the run.
         */
        private Optional<Map<Long, SlurmClient.Queued>> queue() {
            try {
                Map<Long, SlurmClient.Queued> q = slurm.queue();
                queueFailures = 0;
                return Optional.of(q);
            } catch (SlurmException e) {
                if (++queueFailures >= MAX_QUEUE_FAILURES) {
                    throw e;
                }
                events.accept(new SchedulerEvent.Warning(Instant.now(), e.getMessage() + " (attempt " + queueFailures
                        + " of " + MAX_QUEUE_FAILURES + "; the jobs keep running in Slurm)"));
                return Optional.empty();
            }
        }

        /** One job, one poll: submit it, notice its start, or take its outcome. */
        private void step(Tracked t, Map<Long, SlurmClient.Queued> queue) {
            if (t.cancelRequested && t.slurmId.isEmpty()) {
                end(t, AttemptEnd.neverSubmitted(judge, t.attempt, declared(t)));
                return;
            }
            if (t.slurmId.isEmpty()) {
                submit(t, queue);
                return;
            }
            long id = t.slurmId.getAsLong();
            Optional<SlurmClient.Queued> q = Optional.ofNullable(queue.get(id));
            String state = q.map(SlurmClient.Queued::state).orElse("GONE");
            Path dir = attemptDir(t);
            if (!t.started && !state.equals("PENDING")) {
                WrapReport.read(dir, WrapReport.STARTED).ifPresent(r -> announceStart(t, r));
            }
            if (isActive(state)) {
                return;
            }
            Optional<WrapReport> result = WrapReport.read(dir, WrapReport.RESULT);
            if (result.isEmpty() && !t.cancelRequested && !state.equals("CANCELLED") && !state.equals("TIMEOUT")
                    && ++t.missingPolls < 3) {
                return; // the result file may trail the job's end on a shared file system: give it a few polls
            }
            finish(t, state, result);
        }

        private void submit(Tracked t, Map<Long, SlurmClient.Queued> queue) {
            Path dir = attemptDir(t);
            Path tokenFile = dir.resolve(TOKEN);
            Optional<String> oldName = Optional.empty();
            try {
                if (t.knownBefore && Files.isRegularFile(tokenFile)) {
                    oldName = Optional.of("gs-" + Files.readString(tokenFile).strip());
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + tokenFile + ": " + e.getMessage(), e);
            }
            Optional<String> adopt = oldName;
            Optional<SlurmClient.Queued> already = queue.values().stream()
                    .filter(q -> adopt.isPresent() && q.name().equals(adopt.get())).findFirst();
            SlurmRequest.Mapped req = mapped(t);
            long id;
            if (already.isPresent()) {
                // Submitted by a run that died before its journal line: the same attempt, not a second one.
                id = already.get().id();
                notes.accept("job " + t.no + " is Slurm job " + id + " (found by name " + already.get().name()
                        + ") — not submitted twice");
            } else {
                String token = java.util.HexFormat.of().formatHex(randomBytes());
                String name = "gs-" + token;
                try {
                    Files.createDirectories(dir);
                    // An older run's files in this directory (a wiped or --fresh journal) must not be read as this
                    // attempt's: its result, or an OOM in its log.
                    for (String f : List.of(WrapReport.STARTED, WrapReport.RESULT, WrapReport.LOG, "slurm.out")) {
                        Files.deleteIfExists(dir.resolve(f));
                    }
                    // Before sbatch, so that a run dying right after it can still find the job by this name.
                    WrapReport.writeAtomically(dir, TOKEN, token + "\n");
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
                }
                List<String> sbatch = new ArrayList<>();
                sbatch.add("--job-name=" + name);
                sbatch.add("--output=" + dir.resolve("slurm.out"));
                sbatch.add("--chdir=" + Path.of("").toAbsolutePath());
                options.partition().ifPresent(p -> sbatch.add("--partition=" + p));
                options.account().ifPresent(a -> sbatch.add("--account=" + a));
                sbatch.addAll(req.sbatchOptions());
                List<String> wrapped = new ArrayList<>(wrapper);
                wrapped.add("--out");
                wrapped.add(dir.toString());
                options.backend().ifPresent(b -> {
                    wrapped.add("--backend");
                    wrapped.add(b);
                });
                options.backendOptions().forEach((k, v) -> {
                    wrapped.add("--backend-option");
                    wrapped.add(k + "=" + v);
                });
                wrapped.addAll(List.of("--", "/bin/sh", "-c", t.spec.command()));
                id = slurm.submit(sbatch, wrapped);
                notes.accept("job " + t.no + " submitted to Slurm as job " + id + " (" + String.join(" ", req.sbatchOptions())
                        + ")");
            }
            journal.append(new JournalEvent.SlurmSubmitted(t.spec.key(), id, req.gres()));
            t.slurmId = OptionalLong.of(id);
            t.request = Optional.of(req);
            t.missingPolls = 0;
        }

        private SlurmRequest.Mapped mapped(Tracked t) {
            // The bumped declaration of a retry may exceed one GPU's shards: then it asks for the whole GPU.
            OptionalLong v = t.vramMib;
            if (v.isPresent() && v.getAsLong() > mapping.gpuMib()) {
                v = OptionalLong.of(mapping.gpuMib());
            }
            SlurmRequest r = mapping.map(t.spec, v, source());
            if (r instanceof SlurmRequest.Mapped m) {
                return m;
            }
            throw new SlurmException(((SlurmRequest.Refused) r).message());
        }

        private void announceStart(Tracked t, WrapReport r) {
            t.started = true;
            SlurmRequest.Mapped req = t.request.orElseGet(() -> mapped(t));
            long pgid = r.session() >= 2 ? r.session() : t.slurmId.getAsLong();
            journal.append(new JournalEvent.Started(t.spec.key(), pgid, r.gpus(), req.declaredMib(), t.rule));
            counted.add(t.spec.key());
            Duration waited = Duration.between(t.queuedAt, Instant.ofEpochMilli(r.startedMs()));
            events.accept(new SchedulerEvent.JobStarted(Instant.now(), t.no, t.spec.key(), t.spec.command(), r.gpus(),
                    req.declaredMib(), counted.size(), jobs.size(), r.session(), attemptDir(t).resolve(WrapReport.LOG),
                    t.attempt, waited.isNegative() ? Duration.ZERO : waited,
                    t.spec.share().map(Object::toString),
                    // the rule's figure is said while it is the declaration: not after an OOM's bump, nor when learned
                    t.attempt == 1 && t.learned.isEmpty() ? t.rule : Optional.empty(), t.learned));
        }

        private void finish(Tracked t, String slurmState, Optional<WrapReport> result) {
            int maxAttempts = 1 + Math.max(t.spec.retries(), options.oomRetries());
            OptionalLong declared = declared(t);
            AttemptEnd e = AttemptEnd.judge(judge, slurmState, result, t.cancelRequested,
                    () -> LogTail.read(attemptDir(t).resolve(WrapReport.LOG), Verdicts.OOM_TAIL_BYTES), t.attempt,
                    maxAttempts, declared);
            if (e.decision() instanceof AttemptJudge.Requeue r) {
                journal.append(new JournalEvent.Oom(t.spec.key(), t.attempt, r.bumpedMib()));
                events.accept(new SchedulerEvent.RequeuedAfterOom(Instant.now(), t.no, t.attempt, maxAttempts, declared,
                        r.bumpedMib()));
                if (r.bumpedMib().isPresent()) {
                    t.vramMib = r.bumpedMib();
                }
                t.attempt++;
                t.slurmId = OptionalLong.empty();
                t.request = Optional.empty();
                t.started = false;
                t.missingPolls = 0;
                t.queuedAt = Instant.now();
                return;
            }
            if (!e.measured().reported() && ((AttemptJudge.Final) e.decision()).status() == JobStatus.FAILED) {
                notes.accept("job " + t.no + ": Slurm job " + t.slurmId.getAsLong() + " ended " + slurmState
                        + " without a wrapper result — see " + attemptDir(t).resolve("slurm.out"));
            }
            end(t, e);
        }

        private OptionalLong declared(Tracked t) {
            return t.request.map(SlurmRequest.Mapped::declaredMib).orElse(t.vramMib);
        }

        /** Journals and reports a job's outcome, the judge's {@link AttemptJudge.Final} decision. */
        private void end(Tracked t, AttemptEnd e) {
            OptionalLong declared = declared(t);
            AttemptJudge.Final outcome = (AttemptJudge.Final) e.decision();
            JobStatus status = outcome.status();
            int exit = e.exitCode();
            AttemptEnd.Measured m = e.measured();
            journal.append(new JournalEvent.Done(t.spec.key(), status.journalName(), exit, m.peakMib(), m.avgUtil()));
            JobResult r = new JobResult(t.spec.key(), t.no, t.spec.command(), m.gpus(), status, exit, declared, m.peakMib(),
                    outcome.verdict(), m.avgUtil(), m.took(), m.measurement(), Optional.empty(), Optional.empty(), t.learned);
            results.add(r);
            t.ended = true;
            events.accept(new SchedulerEvent.JobFinished(Instant.now(), r, options.tolerance()));
        }

        /** Re-reads the jobs file when it changed, for lines that gained {@code cancel}. */
        private void readCancels() {
            long m = modified();
            if (m == jobsFileModified) {
                return;
            }
            jobsFileModified = m;
            List<JobSpec> now;
            try {
                now = JobsFileParser.parse(jobsFile);
            } catch (JobSpecException | UncheckedIOException e) {
                events.accept(new SchedulerEvent.JobsFileRejected(Instant.now(), e.getMessage()));
                return;
            }
            for (JobSpec s : now) {
                Tracked t = jobs.get(s.key());
                if (s.cancel() && t != null && !t.ended && !t.cancelRequested) {
                    t.cancelRequested = true;
                    if (t.slurmId.isPresent()) {
                        events.accept(new SchedulerEvent.JobStopping(Instant.now(), t.no, SchedulerEvent.StopReason.CANCELLED,
                                Duration.between(t.queuedAt, Instant.now()), Optional.empty()));
                        slurm.cancel(t.slurmId.getAsLong());
                        notes.accept("job " + t.no + ": scancel " + t.slurmId.getAsLong());
                    }
                }
            }
        }

        private long modified() {
            try {
                return Files.getLastModifiedTime(jobsFile).toMillis() ^ Files.size(jobsFile);
            } catch (IOException e) {
                return jobsFileModified;
            }
        }

        private Path attemptDir(Tracked t) {
            return logDir.resolve("slurm").resolve(String.format("job%03d-%d", t.no, t.attempt));
        }
    }

    /** Failed {@code squeue} calls in a row that end a run. */
    static final int MAX_QUEUE_FAILURES = 10;

    /** The file in an attempt's directory holding its Slurm job name's token. */
    static final String TOKEN = "submit.token";

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

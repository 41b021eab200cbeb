package io.gpusched.engine;

import io.gpusched.GpuschedException;
import io.gpusched.JobResult;
import io.gpusched.JobStatus;
import io.gpusched.Measurement;
import io.gpusched.RunSummary;
import io.gpusched.SchedulerEvent;
import io.gpusched.SchedulerEvent.StopReason;
import io.gpusched.SchedulerOptions;
import io.gpusched.StatusBoard;
import io.gpusched.Verdict;
import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The scheduler's event loop. One thread — the one that calls {@link #run()} — owns every piece of
 * state here; other threads only {@link #post} messages (process exits, submissions, stop). A job's
 * exit is handled the moment it is posted: its GPUs go to the next job without waiting for a poll.
 *
 * <p>Each round: snapshot → attribute → jobs file → cancellations → timeouts and kills → pending →
 * dispatch → status board. Between rounds, memory is sampled on its own, faster cadence while jobs
 * run, so short peaks are seen.
 */
public final class Engine {
    /** Messages other threads post to the loop. */
    sealed interface Message permits Exited, Submitted, Stop {
    }

    record Exited(RunningJob job, int exitCode) implements Message {
    }

    record Submitted(JobSpec spec, CompletableFuture<JobResult> result) implements Message {
    }

    record Stop() implements Message {
    }

    private final GpuBackend backend;
    private final BoundedBackend gpus;
    private final SchedulerOptions options;
    private final Allocator allocator;
    private final InstantSource clock;
    private final Path logDir;
    private final boolean fresh;
    private final Consumer<SchedulerEvent> listener;
    private final JobsSource source;
    private final ProcFs procFs = ProcFs.system();
    private final SessionSignals signals = new SessionSignals(procFs);
    private final LinkedBlockingQueue<Message> inbox = new LinkedBlockingQueue<>();
    // Inside a drain of the inbox: journal appends are not forced one by one, and what must follow
    // the fsync waits in afterForce until endGroup() forces them all at once.
    private boolean grouping;
    private final List<Runnable> afterForce = new ArrayList<>();

    private Journal journal;
    private JobLauncher launcher;
    private RunFiles runFiles;
    private String tokenPrefix;
    /** Why the journal cannot be written, while it cannot: no job starts until it can. */
    private Optional<String> journalFailing = Optional.empty();
    private final Map<String, RunningJob> running = new LinkedHashMap<>();
    private final Map<Long, RunningJob> bySession = new HashMap<>();
    private final Map<String, CompletableFuture<JobResult>> futures = new HashMap<>();
    /** Observed peak of each process we did not launch, per GPU it uses; forgotten when it exits. */
    private final Map<ExternalProcess, Long> externalPeaks = new HashMap<>();
    private final List<JobResult> results = new ArrayList<>();
    private EndedJobs ended;
    /** Jobs the stop interrupted, for the last board. */
    private final List<StatusBoard.Interrupted> interruptedRows = new ArrayList<>();
    /** Whether GPU processes were seen whose PIDs this PID namespace does not have. */
    private boolean pidsInvisible;
    private final Set<String> orphansWarned = new HashSet<>();
    private final Set<String> warnedOnce = new HashSet<>();
    private final List<Sweep> sweeps = new ArrayList<>();
    private List<PendingJob> pending = List.of();
    private Map<String, String> waitReasons = Map.of();
    private int liveOrphans;
    private Optional<GpuSnapshot> lastSnapshot = Optional.empty();
    private boolean gpusAnnounced;
    private int backendFailures;
    private boolean stopping;
    /** The loop's thread was interrupted (an executor's shutdownNow): a stop, and the flag owed back. */
    private boolean interruptedWhileRunning;
    private Instant stopDeadline;
    private boolean drainedAnnounced;
    private boolean dirty = true;
    // Work-skipping: the queue is re-planned only when the jobs source, the journal/running set
    // (counted by changes) or the GPU views differ from the last plan.
    private long seenVersion = -1;
    private long changes;
    private long plannedVersion = -1;
    private long plannedChanges = -1;
    private List<GpuView> plannedViews = List.of();
    // The status board's pending and done rows, rebuilt only when they change (identity lets the
    // board writer reuse its rendering too).
    private List<PendingJob> boardPendingOf;
    private Map<String, String> boardReasonsOf;
    private List<StatusBoard.Pending> boardPending = List.of();
    private int boardDoneCount = -1;
    private List<JobResult> boardDone = List.of();
    private long boardEarlierChanges = -1;
    private List<JobResult> boardEarlier = List.of();

    /** A process we did not launch, on one GPU. */
    private record ExternalProcess(int gpu, long pid) {
    }

    /** A pending job with what its next attempt asks for. */
    record PendingJob(JobSpec spec, int no, OptionalLong declaredMib, int attempts) {
    }

    /**
     * @param backend GPU state source
     * @param options tunables
     * @param clock time source for durations, timeouts and kill deadlines
     * @param logDir per-job logs and the journal
     * @param fresh remove the journal before starting
     * @param jobsFile live jobs file, if any
     * @param jobs fixed jobs (when there is no file)
     * @param listener receives every event on this thread
     */
    public Engine(GpuBackend backend, SchedulerOptions options, InstantSource clock, Path logDir, boolean fresh,
                  Optional<Path> jobsFile, List<JobSpec> jobs, Consumer<SchedulerEvent> listener) {
        this(backend, options, clock, logDir, fresh,
                new JobsSource(jobsFile, jobs, JobsSource.quietFor(options.poll()), System::nanoTime), listener);
    }

    /** As the public constructor, with the jobs source given, so tests can step its quiet period by hand. */
    Engine(GpuBackend backend, SchedulerOptions options, InstantSource clock, Path logDir, boolean fresh,
           JobsSource source, Consumer<SchedulerEvent> listener) {
        this.backend = backend;
        this.gpus = new BoundedBackend(backend, options.backendTimeout());
        this.options = options;
        this.allocator = new Allocator(options.placement());
        this.clock = clock;
        this.logDir = logDir;
        this.fresh = fresh;
        this.listener = listener;
        this.source = source;
    }

    /**
     * Posts a message from any thread.
     *
     * @param m the message
     */
    void post(Message m) {
        inbox.add(m);
    }

    /**
     * Submits a job from any thread.
     *
     * @param spec the job
     * @param result completed with the job's result when it ends
     */
    public void submit(JobSpec spec, CompletableFuture<JobResult> result) {
        post(new Submitted(spec, result));
    }

    /** Asks the loop, from any thread, to terminate running jobs and return. */
    public void stop() {
        post(new Stop());
    }

    /**
     * Runs the loop on the calling thread until the queue drains (forever with watch) or
     * {@link #stop()} is called.
     *
     * @return the run's summary
     * @throws GpuschedException if the journal cannot be opened or {@code setsid} is missing
     */
    public RunSummary run() {
        Path setsid = JobLauncher.findSetsid().orElseThrow(() -> new GpuschedException(
                "setsid not found: gpusched needs util-linux's setsid to give each job its own session; install util-linux"));
        LogDirLock lock;
        try {
            lock = LogDirLock.acquire(logDir);
        } catch (RuntimeException e) {
            gpus.close();
            throw e;
        }
        try (lock) {
            journal = Journal.open(logDir.resolve("journal.jsonl"), fresh);
            try {
                launcher = new JobLauncher(setsid, Path.of("").toAbsolutePath(), backend.jobEnvironment(), options.visibleDevices());
                runFiles = new RunFiles(logDir);
                tokenPrefix = journal.path().toAbsolutePath() + "#";
                if (fresh) {
                    try {
                        runFiles.removeAll();
                    } catch (IOException e) {
                        throw new GpuschedException("cannot clear " + runFiles.dir() + " for --fresh: " + e.getMessage(), e);
                    }
                }
                journal.loadWarnings().forEach(this::warnOnce);
                recoverLaunches();
                ended = new EndedJobs(journal.state().records(), options.retryFailed());
                Optional<String> err = source.refresh();
                if (err.isPresent() && source.jobs().isEmpty()) {
                    throw new GpuschedException(err.get().replace(" — keeping the previous queue until the file is fixed", "")
                            .replace("; keeping the previous queue", ""));
                }
                emit(new SchedulerEvent.RunStarted(now(), source.jobs().size(), source.live(), options.poll(),
                        Optional.of(logDir.resolve("status.txt")), backend.describe()));
                return loop();
            } finally {
                journal.close();
            }
        } finally {
            gpus.close();
            if (interruptedWhileRunning) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private RunSummary loop() {
        long nextRound = System.nanoTime();
        long nextSample = nextRound;
        long nextSweep = nextRound;
        long sampleNanos = options.effectiveSampleInterval().toNanos();
        long pollNanos = options.poll().toNanos();
        while (true) {
            long nowNanos = System.nanoTime();
            long wake = nowNanos + deadlineWait();
            if (!stopping) {
                // While stopping no round, sample or sweep runs: their times stay in the past and would
                // make every wait zero. Exits and kill deadlines alone wake a stopping loop.
                wake = Math.min(wake, Math.min(nextRound, running.isEmpty() ? Long.MAX_VALUE : nextSample));
                wake = Math.min(wake, sweeps.isEmpty() ? Long.MAX_VALUE : nextSweep);
            }
            long waitNanos = Math.max(0, wake - nowNanos);
            Message m;
            try {
                m = dirty && !stopping ? inbox.poll() : inbox.poll(waitNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                // Stop as asked, but keep the flag off while stopping: set, every wait of the loop would
                // return at once and the stop would spin a core until its jobs die. run() restores it.
                interruptedWhileRunning = true;
                m = new Stop();
            }
            // The outcomes of every exit this drain finds share one fsync; their reports follow it.
            grouping = true;
            try {
                while (m != null) {
                    handle(m);
                    m = inbox.poll();
                }
            } finally {
                endGroup();
            }
            if (stopping) {
                if (running.isEmpty() || !now().isBefore(stopDeadline)) {
                    return finishStop();
                }
                escalateKills();
                continue;
            }
            nowNanos = System.nanoTime();
            if (!running.isEmpty() && nowNanos - nextSample >= 0) {
                sample();
                nextSample = nowNanos + sampleNanos;
            }
            if (dirty || nowNanos - nextRound >= 0) {
                dirty = false;
                round();
                // A jobs-file change waiting to settle is looked at again as soon as it can be decided.
                nextRound = System.nanoTime() + Math.min(pollNanos, source.settleNanos().orElse(pollNanos));
                nextSample = System.nanoTime() + sampleNanos;
            }
            // After the round: a freed GPU goes to the next job before the sweep's pass over /proc.
            if (!sweeps.isEmpty() && nowNanos - nextSweep >= 0) {
                sweep();
                nextSweep = System.nanoTime() + sampleNanos;
            }
            if (pending.isEmpty() && running.isEmpty() && liveOrphans == 0 && inbox.isEmpty() && !dirty
                    && source.settleNanos().isEmpty()) {
                if (!options.watch()) {
                    emit(new SchedulerEvent.Drained(now(), false));
                    return finish(false);
                }
                if (!drainedAnnounced) {
                    drainedAnnounced = true;
                    emit(new SchedulerEvent.Drained(now(), true));
                }
            } else if (!running.isEmpty() || !pending.isEmpty()) {
                drainedAnnounced = false;
            }
        }
    }

    /** Nanoseconds until the nearest timeout or kill deadline, by the injected clock, capped at a poll. */
    private long deadlineWait() {
        Instant now = now();
        long best = options.poll().toNanos();
        for (RunningJob rj : running.values()) {
            Optional<Instant> d = rj.stopping.isPresent()
                    ? Optional.of(rj.stopSentAt.plus(options.killGrace()))
                    : rj.spec.timeout().map(rj.startedAt::plus);
            if (d.isPresent()) {
                best = Math.min(best, Math.max(0, Duration.between(now, d.get()).toNanos()) + 1_000_000);
            }
        }
        if (stopping) {
            best = Math.min(best, Math.max(0, Duration.between(now, stopDeadline).toNanos()) + 1_000_000);
        }
        return best;
    }

    // ------------------------------------------------------------------ messages

    private void handle(Message m) {
        if (m instanceof Exited e) {
            reap(e.job(), e.exitCode());
            dirty = true;
        } else if (m instanceof Submitted s) {
            JobSpec keyed = source.submit(s.spec());
            futures.put(keyed.key(), s.result());
            dirty = true;
        } else if (m instanceof Stop) {
            if (!stopping) {
                beginStop();
            }
        }
    }

    private void beginStop() {
        stopping = true;
        stopDeadline = now().plus(options.killGrace()).plusSeconds(2);
        emit(new SchedulerEvent.Stopping(now(), running.size()));
        for (RunningJob rj : running.values()) {
            if (rj.stopping.isEmpty()) {
                rj.stopping = Optional.of(StopReason.SHUTDOWN);
                rj.stopSentAt = now();
            }
            signals.terminate(rj.pid);
        }
    }

    private RunSummary finishStop() {
        List<JournalEvent> interrupted = new ArrayList<>();
        List<RunningJob> gone = new ArrayList<>();
        for (RunningJob rj : List.copyOf(running.values())) {
            // Still alive after the grace: last resort. Once nothing of it is left it is interrupted and
            // a restart runs it again; anything that outlives SIGKILL (stuck in the kernel) stays
            // journaled as started, so a restart waits for it as an orphan instead of starting a copy.
            running.remove(rj.key());
            bySession.remove(rj.pid);
            ProcFs.Run run = leftoverRun(rj);
            signals.killLeftovers(List.of(run), otherSessions());
            if (procFs.leftovers(List.of(run), otherSessions()).get(0).isEmpty()) {
                interrupted.add(new JournalEvent.Interrupted(rj.key()));
                interruptedRows.add(interruptedRow(rj));
                gone.add(rj);
            }
        }
        if (!interrupted.isEmpty()) {
            record(interrupted);
        }
        gone.forEach(rj -> removeRunFilesOnceDurable(rj.no, rj.run));
        return finish(true);
    }

    private StatusBoard.Interrupted interruptedRow(RunningJob rj) {
        return new StatusBoard.Interrupted(rj.no, rj.spec.command(), rj.gpus, Duration.between(rj.startedAt, now()));
    }

    private RunSummary finish(boolean interrupted) {
        sweep();
        // The last board: nothing running any more, and what the stop interrupted.
        interruptedRows.sort(java.util.Comparator.comparingInt(StatusBoard.Interrupted::no));
        emitBoard();
        RunSummary summary = new RunSummary(results, ended.earlierResults(), interrupted);
        for (Map.Entry<String, CompletableFuture<JobResult>> f : futures.entrySet()) {
            f.getValue().completeExceptionally(new GpuschedException("the scheduler stopped before job " + f.getKey() + " finished"));
        }
        emit(new SchedulerEvent.RunFinished(now(), summary));
        return summary;
    }

    // ------------------------------------------------------------------ rounds

    private void round() {
        retryJournal();
        boolean fresh = takeSnapshot();
        source.refresh().ifPresent(msg -> emit(new SchedulerEvent.JobsFileRejected(now(), msg)));
        List<JobSpec> jobs = source.jobs();
        long version = source.version();
        if (version != seenVersion) {
            ensureSeen(jobs);
            seenVersion = version;
        }
        applyCancellations(jobs);
        enforceDeadlines();
        List<GpuView> views = fresh ? views(lastSnapshot.orElseThrow()) : List.of();
        if (fresh && liveOrphans == 0 && version == plannedVersion && changes == plannedChanges
                && views.equals(plannedViews)) {
            // Nothing that placement reads has changed since the last plan: same pending list, same
            // answers. Skipping it keeps a round over 10,000 blocked lines in the microseconds.
            emitBoard();
            return;
        }
        pending = computePending(jobs);
        Map<String, String> reasons = new HashMap<>();
        if (!fresh) {
            // Never place on stale data: wait for the backend to answer again.
            pending.forEach(p -> reasons.put(p.spec().key(), "dispatch paused: GPU backend failing ("
                    + backendFailures + " in a row)"));
            plannedVersion = -1;
        } else if (journalFailing.isPresent()) {
            // A start that cannot be journaled could be started twice after a crash.
            pending.forEach(p -> reasons.put(p.spec().key(), "dispatch paused: cannot write the journal"));
            plannedVersion = -1;
        } else {
            plannedViews = dispatch(views, jobs.size(), reasons);
            plannedVersion = version;
            plannedChanges = changes;
        }
        waitReasons = reasons;
        emitBoard();
    }

    private boolean takeSnapshot() {
        GpuSnapshot snap;
        try {
            snap = gpus.snapshot();
        } catch (BackendException | UnsupportedOperationException e) {
            backendFailures++;
            emit(new SchedulerEvent.BackendFailed(now(), e.getMessage(), backendFailures,
                    backendFailures >= options.backendFailureLimit()));
            return false;
        }
        if (backendFailures > 0) {
            emit(new SchedulerEvent.BackendRecovered(now(), backendFailures));
            backendFailures = 0;
        }
        snap.warnings().forEach(this::warnOnce);
        lastSnapshot = Optional.of(snap);
        if (!gpusAnnounced) {
            checkAllowedGpus(snap);
            gpusAnnounced = true;
            emit(new SchedulerEvent.GpusDiscovered(now(), snap.gpus().stream().map(GpuStat::index)
                    .filter(i -> options.placement().allows(i)).toList()));
        }
        attribute(snap);
        return true;
    }

    /**
     * A {@code --gpus} index the machine does not have is a typo, not a job's infeasibility: it would
     * fail every job for good. Refused before anything is placed.
     */
    private void checkAllowedGpus(GpuSnapshot snap) {
        Set<Integer> found = new java.util.TreeSet<>();
        snap.gpus().forEach(g -> found.add(g.index()));
        List<Integer> missing = options.allowedGpus().orElse(Set.of()).stream().filter(i -> !found.contains(i))
                .sorted().toList();
        if (!missing.isEmpty()) {
            throw new GpuschedException("--gpus names " + (missing.size() == 1 ? "GPU " : "GPUs ")
                    + missing.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
                    + ", which this machine does not have; GPUs found: " + (found.isEmpty() ? "none"
                    : found.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")))
                    + " — no job was started; give indices from that list");
        }
    }

    private void sample() {
        try {
            GpuSnapshot snap = gpus.snapshot();
            lastSnapshot = Optional.of(snap);
            attribute(snap);
        } catch (BackendException | UnsupportedOperationException e) {
            // The next round reports failures; a missed sample only loses resolution.
        }
        enforceDeadlines();
    }

    // ------------------------------------------------------------------ attribution

    private void attribute(GpuSnapshot snap) {
        for (RunningJob rj : running.values()) {
            rj.currentMib.replaceAll((g, v) -> 0L);
        }
        Map<Long, OptionalLong> sessions = new HashMap<>();
        Set<ExternalProcess> seenExternal = new HashSet<>();
        int visible = 0;
        for (GpuProcess p : snap.processes()) {
            OptionalLong sid = sessions.computeIfAbsent(p.pid(), procFs::sessionOf);
            if (sid.isPresent()) {
                visible++;
            }
            RunningJob rj = sid.isPresent() ? bySession.get(sid.getAsLong()) : null;
            if (rj != null && rj.currentMib.containsKey(p.gpu())) {
                rj.currentMib.merge(p.gpu(), p.usedMib(), Long::sum);
                rj.attributed = true;
            } else {
                ExternalProcess key = new ExternalProcess(p.gpu(), p.pid());
                seenExternal.add(key);
                externalPeaks.merge(key, p.usedMib(), Math::max);
            }
        }
        externalPeaks.keySet().retainAll(seenExternal);
        if (!snap.processes().isEmpty() && visible == 0 && !running.isEmpty()) {
            pidsInvisible = true;
            warnOnce("GPU processes are reported with PIDs that do not exist in this PID namespace (a container without"
                    + " --pid=host?): per-job peaks will be n/a; placement still uses device totals");
        }
        for (RunningJob rj : running.values()) {
            rj.currentMib.forEach((g, mib) -> rj.peakMib.merge(g, mib, Math::max));
            double sum = 0;
            int n = 0;
            for (int g : rj.gpus) {
                Optional<GpuStat> s = snap.gpu(g);
                if (s.isPresent() && s.get().utilPercent().isPresent()) {
                    sum += s.get().utilPercent().getAsInt();
                    n++;
                }
            }
            if (n > 0) {
                rj.utilSum += sum / n;
                rj.utilSamples++;
            }
            long peak = rj.overallPeak();
            if (options.verbose() && rj.attributed && peak >= rj.lastVerbosePeak + options.verboseStepMib()) {
                rj.lastVerbosePeak = peak;
                emit(new SchedulerEvent.VramGrew(now(), rj.no, rj.currentMib, peak));
            }
            if (rj.declaredMib.isPresent() && !rj.overWarned
                    && peak > rj.declaredMib.getAsLong() * (1 + options.tolerance())) {
                rj.overWarned = true;
                int gpu = rj.peakMib.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
                emit(new SchedulerEvent.ExceededDeclaration(now(), rj.no, gpu, rj.peakMib.get(gpu), rj.declaredMib.getAsLong()));
            }
        }
    }

    // ------------------------------------------------------------------ queue

    private void ensureSeen(List<JobSpec> jobs) {
        List<JournalEvent> seen = new ArrayList<>();
        int next = journal.state().nextNo();
        Set<String> batch = new HashSet<>();
        for (JobSpec j : jobs) {
            if (journal.state().record(j.key()).no().isEmpty() && batch.add(j.key())) {
                seen.add(new JournalEvent.Seen(j.key(), next++, j.command()));
            }
        }
        record(seen);
        ended.retainQueue(jobs);
    }

    private int no(String key) {
        return journal.state().record(key).no().orElse(0);
    }

    private void applyCancellations(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            if (!j.cancel()) {
                continue;
            }
            RunningJob rj = running.get(j.key());
            if (rj != null) {
                if (rj.stopping.isEmpty()) {
                    stopJob(rj, StopReason.CANCELLED);
                }
                continue;
            }
            JobRecord r = journal.state().record(j.key());
            if (r.terminal() || r.runningPgid().isPresent()) {
                continue;
            }
            record(List.of(new JournalEvent.Done(j.key(), "cancelled", 0, Map.of(), OptionalDouble.empty())));
            ended.ended(j);
            complete(new JobResult(j.key(), no(j.key()), j.command(), List.of(), JobStatus.CANCELLED, 0, j.vramMib(),
                    Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO));
        }
    }

    private void enforceDeadlines() {
        Instant now = now();
        for (RunningJob rj : running.values()) {
            if (rj.stopping.isEmpty() && rj.spec.timeout().isPresent()
                    && !now.isBefore(rj.startedAt.plus(rj.spec.timeout().get()))) {
                stopJob(rj, StopReason.TIMEOUT);
            }
        }
        escalateKills();
    }

    private void escalateKills() {
        Instant now = now();
        for (RunningJob rj : running.values()) {
            if (rj.stopping.isPresent() && !rj.killEscalated && !now.isBefore(rj.stopSentAt.plus(options.killGrace()))) {
                rj.killEscalated = true;
                emit(new SchedulerEvent.KillEscalated(now, rj.no, options.killGrace()));
                signals.kill(rj.pid);
            }
        }
    }

    private void stopJob(RunningJob rj, StopReason why) {
        rj.stopping = Optional.of(why);
        rj.stopSentAt = now();
        emit(new SchedulerEvent.JobStopping(now(), rj.no, why, Duration.between(rj.startedAt, now()), rj.spec.timeout()));
        signals.terminate(rj.pid);
    }

    private List<PendingJob> computePending(List<JobSpec> jobs) {
        List<PendingJob> out = new ArrayList<>();
        int orphans = 0;
        for (JobSpec j : jobs) {
            if (running.containsKey(j.key())) {
                continue;
            }
            JobRecord r = journal.state().record(j.key());
            if (r.runningPgid().isPresent()) {
                long pgid = r.runningPgid().getAsLong();
                if (procFs.sessionAlive(pgid) || ProcessHandle.of(pgid).map(ProcessHandle::isAlive).orElse(false)) {
                    orphans++;
                    if (orphansWarned.add(j.key())) {
                        emit(new SchedulerEvent.OrphanFound(now(), no(j.key()), pgid));
                    }
                    continue;
                }
                orphansWarned.remove(j.key());
                orphanEnded(j, r);
                r = journal.state().record(j.key());
            }
            if (ended.retryNow(j, r)) {
                emit(new SchedulerEvent.AlreadyEnded(now(), no(j.key()), j.key(), j.command(), EndedJobs.status(r),
                        r.returncode().orElse(0), true));
                record(List.of(new JournalEvent.Retry(j.key())));
                r = journal.state().record(j.key());
            }
            if (r.terminal()) {
                ended.firstSightOfEarlier(j, r, no(j.key())).ifPresent(this::endedEarlier);
                if (ended.edited(j)) {
                    emit(new SchedulerEvent.EndedJobEdited(now(), no(j.key()), j.command(), EndedJobs.status(r)));
                }
                continue;
            }
            if (j.cancel()) {
                continue;
            }
            OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : j.vramMib();
            out.add(new PendingJob(j, no(j.key()), declared, r.attempts()));
        }
        liveOrphans = orphans;
        return out;
    }

    /**
     * Says that a job of the queue ended in an earlier run and is not run again, and answers a
     * submission of it with that outcome.
     */
    private void endedEarlier(JobResult earlier) {
        emit(new SchedulerEvent.AlreadyEnded(now(), earlier.no(), earlier.key(), earlier.command(), earlier.status(),
                earlier.exitCode(), false));
        if (earlier.status() == JobStatus.OK) {
            emit(new SchedulerEvent.AlreadyCompleted(now(), earlier.no(), earlier.command()));
        }
        CompletableFuture<JobResult> f = futures.remove(earlier.key());
        if (f != null) {
            afterDurable(() -> f.complete(earlier));
        }
    }

    // ------------------------------------------------------------------ dispatch

    /**
     * Places the pending jobs in queue order on {@code views} (this round's GPUs and running jobs),
     * launching those that fit.
     *
     * @return the views after the launches: what the next round compares against to skip re-planning
     */
    private List<GpuView> dispatch(List<GpuView> views, int total, Map<String, String> reasons) {
        GpuSnapshot snap = lastSnapshot.orElseThrow();
        List<PendingJob> still = new ArrayList<>();
        // The allocator is pure: within one state of the GPUs, an identical request gets an identical
        // answer, so 10,000 blocked lines of a few shapes cost a few allocator calls. Any launch
        // changes the views and clears the memo.
        Map<Request, Placement> memo = new HashMap<>();
        List<RunningJob> launched = new ArrayList<>();
        List<SchedulerEvent> startedEvents = new ArrayList<>();
        for (PendingJob p : pending) {
            Request request = new Request(p.declaredMib(), p.spec().gpus());
            List<GpuView> current = views;
            Placement placement = memo.computeIfAbsent(request, r -> allocator.place(r, current));
            if (placement instanceof Placement.Infeasible inf) {
                fail(p, JobStatus.INFEASIBLE, inf.reason());
            } else if (placement instanceof Placement.Blocked b) {
                reasons.put(p.spec().key(), b.reason());
                still.add(p);
            } else {
                List<Integer> gpus = ((Placement.Placed) placement).gpus();
                Optional<RunningJob> started = launch(p, gpus, snap, total, startedEvents);
                if (started.isPresent()) {
                    launched.add(started.get());
                    views = withTenant(views, started.get());
                    memo.clear();
                } else {
                    reasons.put(p.spec().key(), journalFailing.isPresent() ? "dispatch paused: cannot write the journal"
                            : "could not start: see the warning above");
                    still.add(p);
                }
            }
        }
        pending = still;
        if (!launched.isEmpty()) {
            durableThenReport(startedEvents);
        }
        return views;
    }

    /**
     * One fsync for every {@code launching} and {@code started} event of the round, then the reports.
     * Each launch wrote its intent to the journal file before its spawn, so a scheduler killed at any
     * moment leaves a journal that names every job it may have spawned; the fsync only guards against
     * the machine itself going down, which takes the jobs with it. If the fsync fails, the jobs keep
     * running (stopping them would not make the journal any truer) and no new job starts until the
     * journal can be written again.
     */
    private void durableThenReport(List<SchedulerEvent> startedEvents) {
        try {
            journal.force();
        } catch (JournalException e) {
            journalFailed(e);
        }
        startedEvents.forEach(this::emit);
    }

    private List<GpuView> views(GpuSnapshot snap) {
        Map<Integer, Long> extPeaks = new HashMap<>();
        externalPeaks.forEach((k, v) -> extPeaks.merge(k.gpu(), v, Long::sum));
        List<GpuView> out = new ArrayList<>();
        for (GpuStat g : snap.gpus()) {
            List<Tenant> tenants = new ArrayList<>();
            for (RunningJob rj : running.values()) {
                if (rj.gpus.contains(g.index())) {
                    tenants.add(new Tenant(rj.key(), rj.declaredMib, rj.currentMib.getOrDefault(g.index(), 0L),
                            rj.peakMib.getOrDefault(g.index(), 0L)));
                }
            }
            out.add(new GpuView(g.index(), g.totalMib(), g.usedMib(), extPeaks.getOrDefault(g.index(), 0L), tenants, g.healthy()));
        }
        return out;
    }

    private static List<GpuView> withTenant(List<GpuView> views, RunningJob rj) {
        List<GpuView> out = new ArrayList<>();
        for (GpuView v : views) {
            if (rj.gpus.contains(v.index())) {
                List<Tenant> tenants = new ArrayList<>(v.tenants());
                tenants.add(new Tenant(rj.key(), rj.declaredMib, 0, 0));
                v = new GpuView(v.index(), v.totalMib(), v.usedMib(), v.externalPeaksMib(), tenants, v.healthy());
            }
            out.add(v);
        }
        return out;
    }

    /**
     * Intent, spawn, record: the {@code launching} line (with a fresh run number) is written to the
     * journal file before the spawn, and the spawn happens only if that write succeeded, so no job can
     * run that a restarted scheduler would not know to look for.
     */
    private Optional<RunningJob> launch(PendingJob p, List<Integer> gpus, GpuSnapshot snap, int total,
                                        List<SchedulerEvent> startedEvents) {
        if (journalFailing.isPresent()) {
            return Optional.empty();
        }
        Path log = logPath(p.no(), gpus);
        long run = journal.state().nextRun();
        try {
            runFiles.prepare(p.no(), run);
        } catch (IOException e) {
            warnOnce("cannot start job " + p.no() + ": cannot write " + runFiles.dir() + ": " + e.getMessage()
                    + " — it stays pending; running jobs are unaffected");
            return Optional.empty();
        }
        try {
            journal.appendUnforced(List.of(new JournalEvent.Launching(p.spec().key(), run, gpus)));
        } catch (JournalException e) {
            // Folded and queued, but not in the file: withdraw the intent and start nothing.
            journalFailed(e);
            appendQuietly(new JournalEvent.Interrupted(p.spec().key()));
            return Optional.empty();
        } finally {
            changes++;
        }
        Process process;
        try {
            process = launcher.launch(p.spec().command(), gpus, snap, log,
                    Map.of("GPUSCHED_JOB_NO", String.valueOf(p.no()), "GPUSCHED_JOB_KEY", p.spec().key()),
                    runToken(run), runFiles.paths(p.no(), run));
        } catch (IOException e) {
            appendQuietly(new JournalEvent.Interrupted(p.spec().key()));
            warnOnce("cannot start job " + p.no() + " (log " + log + "): " + e.getMessage()
                    + " — it stays pending; running jobs are unaffected");
            return Optional.empty();
        }
        long startTicks = procFs.startTicks(process.pid()).orElse(0);
        RunningJob rj = new RunningJob(p.spec(), p.no(), p.declaredMib(), gpus, process, log, now(), run, startTicks);
        // The job runs from here on whatever the journal says next: its intent is in the file, and a
        // restart finds it by its pid file or its run token.
        appendQuietly(new JournalEvent.Started(rj.key(), rj.pid, gpus));
        running.put(rj.key(), rj);
        bySession.put(rj.pid, rj);
        startedEvents.add(new SchedulerEvent.JobStarted(now(), p.no(), rj.key(), p.spec().command(), gpus, p.declaredMib(),
                ended.earlierCount() + results.size() + running.size(), total, rj.pid, log, p.attempts() + 1));
        process.onExit().thenAccept(done -> post(new Exited(rj, done.exitValue())));
        return Optional.of(rj);
    }

    /** Writes without forcing; a refusal is reported once and the event stays queued in memory. */
    private void appendQuietly(JournalEvent e) {
        try {
            journal.appendUnforced(List.of(e));
        } catch (JournalException ex) {
            journalFailed(ex);
        }
        changes++;
    }

    // ------------------------------------------------------------------ recovery

    /**
     * Settles every {@code launching} intent a dead scheduler left: the spawn happened if the run's pid
     * file exists or a live process carries its token (the wrapper may not have written the file yet);
     * it then becomes an ordinary orphan. Otherwise it never ran, or was killed before its command
     * ended, and is pending again.
     */
    private void recoverLaunches() {
        List<JournalEvent> settled = new ArrayList<>();
        for (Map.Entry<String, JobRecord> e : journal.state().records().entrySet()) {
            JobRecord r = e.getValue();
            if (!r.launching() || r.run().isEmpty()) {
                continue;
            }
            int no = r.no().orElse(0);
            long run = r.run().getAsLong();
            OptionalLong pid = runFiles.pid(no, run);
            if (pid.isEmpty()) {
                List<Long> carriers = procFs.carriers(runEntry(run));
                for (long c : carriers) {
                    pid = procFs.sessionOf(c);
                    if (pid.isPresent()) {
                        break;
                    }
                }
            }
            if (pid.isEmpty() && runFiles.exitCode(no, run).isPresent()) {
                // Ran to its end, pid file lost: a session id above Linux's pid_max (2^22) matches nothing.
                pid = OptionalLong.of(Integer.MAX_VALUE);
            }
            settled.add(pid.isPresent() ? new JournalEvent.Started(e.getKey(), pid.getAsLong(), r.gpus())
                    : new JournalEvent.Interrupted(e.getKey()));
        }
        if (!settled.isEmpty()) {
            record(settled);
        }
    }

    /**
     * An orphan's session is gone. If its wrapper wrote an exit status, the command ran to its end
     * while no scheduler watched: journal that outcome (an OOM still retries). Otherwise it was killed
     * before its command ended and is pending again.
     */
    private void orphanEnded(JobSpec spec, JobRecord r) {
        int no = r.no().orElse(0);
        if (r.run().isPresent()) {
            // Its session is gone; a daemon it started may have left the session but not the run.
            signals.killLeftovers(List.of(new ProcFs.Run(r.runningPgid().orElse(0), runEntry(r.run().getAsLong()), 0)),
                    otherSessions());
        }
        OptionalInt code = r.run().isPresent() ? runFiles.exitCode(no, r.run().getAsLong()) : OptionalInt.empty();
        if (code.isEmpty()) {
            record(List.of(new JournalEvent.Interrupted(spec.key())));
            emit(new SchedulerEvent.OrphanRequeued(now(), no));
            return;
        }
        Path log = logPath(no, r.gpus());
        warnOnce("job " + no + " ended with exit status " + code.getAsInt() + " while no scheduler was watching;"
                + " recorded from " + runFiles.exitFile(no, r.run().getAsLong()) + ", not run again");
        OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : spec.vramMib();
        settle(new Ending(spec, no, r.gpus(), declared, code.getAsInt(), Optional.empty(), log, false, Map.of(),
                OptionalDouble.empty(), runFiles.ranFor(no, r.run().getAsLong()).orElse(Duration.ZERO), r.run(), false));
    }

    // ------------------------------------------------------------------ endings

    private void reap(RunningJob rj, int exitCode) {
        if (running.get(rj.key()) != rj) {
            return;
        }
        running.remove(rj.key());
        bySession.remove(rj.pid);
        changes++;
        // The leader is gone. Whatever it left — a child that trapped SIGTERM, a background process,
        // a daemon that left the session — still holds memory and would outlive the job: it is killed
        // by the next sweep, which serves every job that ended since the last one.
        sweeps.add(new Sweep(rj.no, leftoverRun(rj),
                rj.stopping.isEmpty()));
        if (rj.stopping.equals(Optional.of(StopReason.SHUTDOWN))) {
            record(List.of(new JournalEvent.Interrupted(rj.key())));
            interruptedRows.add(interruptedRow(rj));
            removeRunFilesOnceDurable(rj.no, rj.run);
            return;
        }
        settle(new Ending(rj.spec, rj.no, rj.gpus, rj.declaredMib, exitCode, rj.stopping, rj.log, rj.attributed,
                rj.peakMib, rj.avgUtil(), Duration.between(rj.startedAt, now()), OptionalLong.of(rj.run), true));
    }

    /** {@link JobLauncher#RUN_VARIABLE}'s value for a run of this journal. */
    private String runToken(long run) {
        return tokenPrefix + run;
    }

    /** The environment entry every process of a run inherits. */
    private String runEntry(long run) {
        return JobLauncher.RUN_VARIABLE + "=" + runToken(run);
    }

    private ProcFs.Run leftoverRun(RunningJob rj) {
        return new ProcFs.Run(rj.pid, runEntry(rj.run), rj.startTicks);
    }

    /** {@code <log-dir>/job<NNN>_gpu<i-j>.log}, the name the original tool gives a job's log. */
    private Path logPath(int no, List<Integer> gpus) {
        String gpuTag = gpus.stream().map(String::valueOf).reduce((a, b) -> a + "-" + b).orElse("");
        return logDir.resolve(String.format("job%03d_gpu%s.log", no, gpuTag));
    }

    /** A finished run whose leftovers the next sweep kills; {@code report} when nobody stopped it. */
    private record Sweep(int no, ProcFs.Run run, boolean report) {
    }

    /**
     * Kills what the runs that ended since the last sweep left behind, in one pass over {@code /proc}
     * (a pass costs about a millisecond; one per ended job would dominate a queue of short jobs).
     */
    private void sweep() {
        if (sweeps.isEmpty()) {
            return;
        }
        List<Sweep> batch = List.copyOf(sweeps);
        sweeps.clear();
        int[] killed = signals.killLeftovers(batch.stream().map(Sweep::run).toList(), otherSessions());
        for (int i = 0; i < batch.size(); i++) {
            int left = killed[i];
            if (left > 0 && batch.get(i).report()) {
                warnOnce("job " + batch.get(i).no() + " left " + left + " process" + (left == 1 ? "" : "es")
                        + " running after it exited; killed " + (left == 1 ? "it" : "them"));
            }
        }
    }

    /** How one attempt ended, whether the scheduler watched it or found it finished on restart. */
    private record Ending(JobSpec spec, int no, List<Integer> gpus, OptionalLong declaredMib, int exitCode,
                          Optional<StopReason> stopping, Path log, boolean attributed, Map<Integer, Long> peakMib,
                          OptionalDouble avgUtil, Duration took, OptionalLong run, boolean watched) {
        long peak() {
            return peakMib.values().stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    /** Journals and reports an attempt's end: an OOM retry, or the job's final outcome. */
    private void settle(Ending end) {
        String key = end.spec().key();
        JobRecord rec = journal.state().record(key);
        boolean oom = end.exitCode() != 0 && end.stopping().isEmpty()
                && Verdicts.looksLikeOom(LogTail.read(end.log(), Verdicts.OOM_TAIL_BYTES));
        int allowed = Math.max(end.spec().retries(), options.oomRetries());
        int attempts = rec.attempts() + 1;
        long peak = end.peak();
        if (oom && attempts <= allowed) {
            OptionalLong next = Verdicts.bump(end.declaredMib(), end.attributed() ? peak : 0);
            record(List.of(new JournalEvent.Oom(key, attempts, next)));
            end.run().ifPresent(r -> removeRunFilesOnceDurable(end.no(), r));
            emit(new SchedulerEvent.RequeuedAfterOom(now(), end.no(), attempts, allowed + 1, end.declaredMib(), next));
            return;
        }
        JobStatus status;
        if (end.stopping().equals(Optional.of(StopReason.CANCELLED))) {
            status = JobStatus.CANCELLED;
        } else if (end.stopping().equals(Optional.of(StopReason.TIMEOUT))) {
            status = JobStatus.TIMEOUT;
        } else if (oom) {
            status = JobStatus.FAILED_OOM;
        } else {
            status = end.exitCode() == 0 ? JobStatus.OK : JobStatus.FAILED;
        }
        Verdict verdict = status == JobStatus.OK
                ? Verdicts.verdict(end.declaredMib(), end.attributed(), peak, options.tolerance())
                : (end.attributed() ? Verdict.NOT_JUDGED : Verdict.UNATTRIBUTED);
        Map<Integer, Long> peaks = end.attributed() ? end.peakMib() : Map.of();
        record(List.of(new JournalEvent.Done(key, status.journalName(), end.exitCode(), peaks, end.avgUtil())));
        ended.ended(end.spec());
        end.run().ifPresent(r -> removeRunFilesOnceDurable(end.no(), r));
        Measurement measured = !end.watched() ? Measurement.UNWATCHED : end.attributed() ? Measurement.MEASURED
                : pidsInvisible ? Measurement.NOT_VISIBLE : Measurement.NONE_SEEN;
        complete(new JobResult(key, end.no(), end.spec().command(), end.gpus(), status, end.exitCode(), end.declaredMib(),
                peaks, verdict, end.avgUtil(), end.took(), measured));
    }

    private void fail(PendingJob p, JobStatus status, String reason) {
        record(List.of(new JournalEvent.Done(p.spec().key(), status.journalName(), 1, Map.of(), OptionalDouble.empty())));
        ended.ended(p.spec());
        emit(new SchedulerEvent.JobInfeasible(now(), p.no(), p.spec().command(), reason));
        complete(new JobResult(p.spec().key(), p.no(), p.spec().command(), List.of(), status, 1, p.declaredMib(), Map.of(),
                Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO));
    }

    private void complete(JobResult r) {
        results.add(r);
        emit(new SchedulerEvent.JobFinished(now(), r, options.tolerance()));
        CompletableFuture<JobResult> f = futures.remove(r.key());
        if (f != null) {
            afterDurable(() -> f.complete(r));
        }
    }

    // ------------------------------------------------------------------ helpers

    private void record(List<JournalEvent> events) {
        try {
            if (grouping) {
                journal.appendUnforced(events);
            } else {
                journal.append(events);
            }
        } catch (JournalException e) {
            journalFailed(e);
        }
        changes++;
    }

    /**
     * Runs what must wait for the journal's fsync: at once, or, inside a drain of the inbox, after
     * the drain's one fsync. Reports, futures and exit-file removals go through here (events via
     * {@link #emit}), so nothing is said or undone before the outcome it rests on is on disk.
     */
    private void afterDurable(Runnable action) {
        if (grouping) {
            afterForce.add(action);
        } else {
            action.run();
        }
    }

    /**
     * A run's pid and exit files prove its outcome to a restarted scheduler until the journal does:
     * they go only once the line that records the outcome is on disk, and stay while the disk refuses
     * writes.
     */
    private void removeRunFilesOnceDurable(int no, long run) {
        afterDurable(() -> {
            if (!journal.behind()) {
                runFiles.remove(no, run);
            }
        });
    }

    private void endGroup() {
        grouping = false;
        if (journal.hasUnforced()) {
            try {
                journal.force();
            } catch (JournalException e) {
                journalFailed(e);
            }
        }
        List<Runnable> held = List.copyOf(afterForce);
        afterForce.clear();
        held.forEach(Runnable::run);
    }

    /**
     * The disk refused a journal write: say so once, keep every event in memory (the state already
     * follows them), keep tracking running jobs, and start nothing new until a write succeeds.
     */
    private void journalFailed(JournalException e) {
        if (journalFailing.isEmpty()) {
            journalFailing = Optional.of(e.getMessage());
            dirty = true;
            emit(new SchedulerEvent.Warning(now(), e.getMessage() + " — running jobs keep running and are tracked;"
                    + " no new job starts until the journal can be written; nothing recorded is lost meanwhile"));
        }
    }

    private void retryJournal() {
        if (journalFailing.isEmpty()) {
            return;
        }
        try {
            journal.force();
        } catch (JournalException e) {
            return;
        }
        journalFailing = Optional.empty();
        changes++;
        emit(new SchedulerEvent.Warning(now(), "journal " + journal.path() + " is writable again; every queued event"
                + " was written and dispatch resumes"));
    }

    private void emitBoard() {
        List<StatusBoard.Running> rows = new ArrayList<>();
        for (RunningJob rj : running.values()) {
            rows.add(new StatusBoard.Running(rj.no, rj.spec.command(), rj.gpus, Duration.between(rj.startedAt, now()),
                    rj.currentMib, rj.overallPeak(), rj.stopping));
        }
        rows.sort(java.util.Comparator.comparingInt(StatusBoard.Running::no));
        if (pending != boardPendingOf || waitReasons != boardReasonsOf) {
            List<StatusBoard.Pending> waiting = new ArrayList<>();
            for (PendingJob p : pending) {
                waiting.add(new StatusBoard.Pending(p.no(), p.spec().command(), p.declaredMib(), p.attempts(),
                        waitReasons.getOrDefault(p.spec().key(), "")));
            }
            boardPending = List.copyOf(waiting);
            boardPendingOf = pending;
            boardReasonsOf = waitReasons;
        }
        if (ended.changes() != boardEarlierChanges) {
            boardEarlier = ended.earlierResults();
            boardEarlierChanges = ended.changes();
        }
        if (results.size() != boardDoneCount) {
            List<JobResult> done = new ArrayList<>(results);
            done.sort(java.util.Comparator.comparingInt(JobResult::no));
            boardDone = List.copyOf(done);
            boardDoneCount = results.size();
        }
        emit(new SchedulerEvent.StatusUpdated(now(), new StatusBoard(rows, boardPending, boardDone, boardEarlier,
                List.copyOf(interruptedRows))));
    }

    /**
     * Sessions no run's escaped process can be in: the running jobs' (each led by its own wrapper)
     * and the scheduler's own. Leaving these out spares reading most environments in a sweep.
     */
    private Set<Long> otherSessions() {
        Set<Long> other = new HashSet<>(bySession.keySet());
        if (ownSession == 0) {
            ownSession = procFs.ownSession().orElse(-1);
        }
        other.add(ownSession);
        return other;
    }

    private long ownSession;

    private void warnOnce(String message) {
        if (warnedOnce.add(message)) {
            emit(new SchedulerEvent.Warning(now(), message));
        }
    }

    private void emit(SchedulerEvent e) {
        if (grouping) {
            afterForce.add(() -> emit(e));
            return;
        }
        try {
            listener.accept(e);
        } catch (RuntimeException ex) {
            // A broken listener must not stop the jobs it reports on.
            if (!(e instanceof SchedulerEvent.Warning)) {
                warnOnce("a scheduler listener failed: " + ex);
            }
        }
    }

    private Instant now() {
        return clock.instant();
    }
}

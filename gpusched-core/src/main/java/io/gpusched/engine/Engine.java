package io.gpusched.engine;

import io.gpusched.GpuschedException;
import io.gpusched.JobResult;
import io.gpusched.RunSummary;
import io.gpusched.SchedulerEvent;
import io.gpusched.SchedulerOptions;
import io.gpusched.alloc.Allocator;
import io.gpusched.engine.LoopTimers.Timer;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.Journal;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The scheduler's event loop. One thread — the one that calls {@link #run()} — owns every piece of
 * state here and in the parts it drives; other threads only {@link #post} messages (process exits,
 * submissions, stop). A job's exit is handled the moment it is posted: its GPUs go to the next job
 * without waiting for a poll.
 *
 * <p>Each round: snapshot → attribute ({@link Measurer}) → jobs source → cancellations and the queue
 * ({@link PendingQueue}) → timeouts and kills ({@link Stops}) → dispatch ({@link Dispatcher}) →
 * status board ({@link BoardRows}). Between rounds, memory is sampled on its own, faster cadence while
 * jobs run, so short peaks are seen. Endings go through {@link Outcomes}, journal writes through
 * {@link Durability}, events through {@link Reporter}, leftover processes through {@link Leftovers}.
 */
public final class Engine {
    /** Messages other threads post to the loop. */
    sealed interface Message permits Exited, Submitted, Control, Stop {
    }

    record Exited(RunningJob job, int exitCode) implements Message {
    }

    record Submitted(JobSpec spec, CompletableFuture<JobResult> result, CompletableFuture<Integer> accepted)
            implements Message {
    }

    /** Work for the loop's thread (cancel, pause); {@code refused} fails it when the loop has ended. */
    record Control(Runnable action, Consumer<GpuschedException> refused) implements Message {
    }

    record Stop() implements Message {
    }

    private final GpuBackend backend;
    private final BoundedBackend gpus;
    private final SchedulerOptions options;
    private final Path logDir;
    private final boolean fresh;
    private final JobsSource source;
    private final ProcFs procFs = ProcFs.system();
    private final SessionSignals signals = new SessionSignals(procFs);
    private final LinkedBlockingQueue<Message> inbox = new LinkedBlockingQueue<>();
    private final Reporter reporter;
    private final RunningJobs running = new RunningJobs(procFs);
    private final Measurer measurer;
    private final Leftovers leftovers;
    private final GpuReader reader;

    // The parts that write the journal exist once it is open (in run()).
    private Durability durability;
    private EndedJobs ended;
    private Outcomes outcomes;
    private Stops stops;
    private PendingQueue queue;
    private Planner planner;
    private final BoardRows board = new BoardRows();

    private final LoopTimers timers = new LoopTimers(System::nanoTime);
    /** The loop's thread was interrupted (an executor's shutdownNow): a stop, and the flag owed back. */
    private boolean interruptedWhileRunning;
    private boolean drainedAnnounced;
    private boolean dirty = true;
    /** Set once the loop has ended: submissions are refused from then on. */
    private volatile boolean closed;
    private volatile Thread loopThread;
    private volatile io.gpusched.QueueSnapshot snapshot;
    private Controls controls;
    private Submissions submissions;
    private long seenVersion = -1;

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
        this.logDir = logDir;
        this.fresh = fresh;
        this.source = source;
        this.reporter = new Reporter(listener, clock);
        this.measurer = new Measurer(options, procFs, running, reporter);
        this.leftovers = new Leftovers(signals, running, reporter);
        this.reader = new GpuReader(gpus, options, measurer, reporter);
    }

    /** Posts a message from any thread; a submission posted after the loop ended is refused at once. */
    void post(Message m) {
        inbox.add(m);
        if (closed && inbox.remove(m)) {
            refuse(m);
        }
    }

    /**
     * Submits a job from any thread.
     *
     * @param spec the job
     * @param result completed with the job's result when it ends
     * @return completed with the job's display number once its submission is journaled; exceptionally
     *     if the scheduler ended first
     */
    public CompletableFuture<Integer> submit(JobSpec spec, CompletableFuture<JobResult> result) {
        CompletableFuture<Integer> accepted = new CompletableFuture<>();
        post(new Submitted(spec, result, accepted));
        return accepted;
    }

    /** From now on submissions are refused; those still queued are refused now. */
    private void closeInbox() {
        closed = true;
        for (Message m = inbox.poll(); m != null; m = inbox.poll()) {
            refuse(m);
        }
    }

    private static void refuse(Message m) {
        if (m instanceof Submitted s) {
            GpuschedException e = new GpuschedException("the scheduler has stopped; submission of '" + s.spec().command()
                    + "' not taken");
            s.accepted().completeExceptionally(e);
            s.result().completeExceptionally(e);
        } else if (m instanceof Control c) {
            c.refused().accept(new GpuschedException("the scheduler is not running"));
        }
    }

    /**
     * Runs {@code action} on the loop's thread, from any thread.
     *
     * @return its answer; fails with a {@link GpuschedException} if the loop has ended, or with what
     *     {@code action} threw
     */
    public <T> CompletableFuture<T> call(java.util.function.Supplier<T> action) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        post(new Control(() -> {
            try {
                answer.complete(action.get());
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
        }, answer::completeExceptionally));
        return answer;
    }

    /**
     * Cancels a job by display number, from any thread.
     *
     * @return what happened
     */
    public CompletableFuture<io.gpusched.CancelOutcome> cancel(int no) {
        return call(() -> controls.cancel(no));
    }

    /**
     * Pauses or resumes a GPU, from any thread.
     *
     * @return done once journaled; fails for a GPU the backend does not report
     */
    public CompletableFuture<Void> pause(int gpu, boolean paused) {
        return call(() -> {
            controls.pause(gpu, paused, reader.indices());
            return null;
        });
    }

    /** @return the queue as the loop last published it; empty before the first round */
    public Optional<io.gpusched.QueueSnapshot> snapshot() {
        return Optional.ofNullable(snapshot);
    }

    /** @return whether the caller is the loop's own thread (a listener), which must never wait for the loop */
    public boolean onLoopThread() {
        return Thread.currentThread() == loopThread;
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
     * @throws GpuschedException if the log directory is in use or unusable, the journal cannot be
     *     opened, {@code setsid} is missing, or {@code --gpus} names a GPU the backend does not have
     */
    public RunSummary run() {
        loopThread = Thread.currentThread();
        Path setsid = JobLauncher.findSetsid().orElseThrow(() -> new GpuschedException(
                "setsid not found: gpusched needs util-linux's setsid to give each job its own session; install util-linux"));
        LogDirLock lock;
        try {
            lock = LogDirLock.acquire(logDir);
        } catch (RuntimeException e) {
            gpus.close();
            throw e;
        }
        try (lock; Journal journal = Journal.open(logDir.resolve("journal.jsonl"), fresh)) {
            assemble(journal, setsid);
            journal.loadWarnings().forEach(reporter::warnOnce);
            outcomes.recoverLaunches();
            submissions.rebuild();
            Optional<String> err = source.refresh();
            if (err.isPresent() && source.jobs().isEmpty()) {
                throw new GpuschedException(err.get().replace(" — keeping the previous queue until the file is fixed", "")
                        .replace("; keeping the previous queue", ""));
            }
            reporter.emit(new SchedulerEvent.RunStarted(reporter.now(), source.jobs().size(), source.live(),
                    options.poll(), Optional.of(logDir.resolve("status.txt")), backend.describe()));
            return loop();
        } finally {
            closeInbox();
            gpus.close();
            if (interruptedWhileRunning) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Builds the parts that write the journal, now that it is open. */
    private void assemble(Journal journal, Path setsid) {
        RunFiles runFiles = new RunFiles(logDir);
        if (fresh) {
            try {
                runFiles.removeAll();
            } catch (IOException e) {
                throw new GpuschedException("cannot clear " + runFiles.dir() + " for --fresh: " + e.getMessage(), e);
            }
        }
        RunNames names = new RunNames(logDir, journal.path());
        durability = new Durability(journal, runFiles, reporter, () -> dirty = true);
        reporter.holdFor(durability);
        ended = new EndedJobs(journal.state().records(), options.retryFailed());
        outcomes = new Outcomes(options, durability, runFiles, names, running, leftovers, procFs, reporter, ended, measurer);
        stops = new Stops(options, running, signals, procFs, names, reporter);
        submissions = new Submissions(durability, source, outcomes, reporter);
        controls = new Controls(durability, running, stops, outcomes, source, reporter, signals);
        queue = new PendingQueue(durability, source, running, stops, outcomes, ended, procFs, reporter);
        RunExecutor local = new JobLauncher(setsid, Path.of("").toAbsolutePath(), backend.jobEnvironment(),
                options.visibleDevices());
        Dispatcher dispatcher = new Dispatcher(new Allocator(options.placement()), durability, runFiles, local, names, running,
                procFs, reporter, outcomes, ended::earlierCount, this::post);
        planner = new Planner(queue, dispatcher, durability, reader);
    }

    private RunSummary loop() {
        long sampleNanos = options.effectiveSampleInterval().toNanos();
        long pollNanos = options.poll().toNanos();
        while (true) {
            // While stopping no round, sample or sweep runs: their times stay in the past and would make
            // every wait zero. Exits and kill deadlines alone wake a stopping loop.
            boolean stopping = stops.stopping();
            drainInbox(timers.waitNanos(timers.now(), stops.deadlineWait(), !stopping, !stopping && !running.isEmpty(),
                    !stopping && !leftovers.isEmpty()));
            if (stops.stopping()) {
                if (stops.stopDone()) {
                    outcomes.interruptedByStop(stops.finishStop());
                    return finish(true);
                }
                stops.escalateKills();
                continue;
            }
            long now = timers.now();
            if (!running.isEmpty() && timers.due(Timer.SAMPLE, now)) {
                reader.sample();
                stops.enforceDeadlines();
                timers.schedule(Timer.SAMPLE, sampleNanos);
            }
            if (dirty || timers.due(Timer.ROUND, now)) {
                dirty = false;
                round();
                // A jobs-file change waiting to settle is looked at again as soon as it can be decided.
                timers.schedule(Timer.ROUND, Math.min(pollNanos, source.settleNanos().orElse(pollNanos)));
                timers.schedule(Timer.SAMPLE, sampleNanos);
            }
            // After the round: a freed GPU goes to the next job before the sweep's pass over /proc.
            if (!leftovers.isEmpty() && timers.due(Timer.SWEEP, now)) {
                leftovers.sweep();
                timers.schedule(Timer.SWEEP, sampleNanos);
            }
            if (queue.pending().isEmpty() && running.isEmpty() && queue.liveOrphans() == 0 && inbox.isEmpty() && !dirty
                    && source.settleNanos().isEmpty()) {
                if (!options.watch()) {
                    reporter.emit(new SchedulerEvent.Drained(reporter.now(), false));
                    return finish(false);
                }
                if (!drainedAnnounced) {
                    drainedAnnounced = true;
                    reporter.emit(new SchedulerEvent.Drained(reporter.now(), true));
                }
            } else if (!running.isEmpty() || !queue.pending().isEmpty()) {
                drainedAnnounced = false;
            }
        }
    }

    /**
     * Waits up to {@code waitNanos} (not at all while a round is due) for messages, then handles every
     * one queued. The outcomes of every exit one drain finds share one fsync; their reports follow it.
     */
    private void drainInbox(long waitNanos) {
        Message m;
        try {
            m = dirty && !stops.stopping() ? inbox.poll() : inbox.poll(waitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            // Stop as asked, but keep the flag off while stopping: set, every wait of the loop would
            // return at once and the stop would spin a core until its jobs die. run() restores it.
            interruptedWhileRunning = true;
            m = new Stop();
        }
        durability.beginGroup();
        try {
            while (m != null) {
                handle(m);
                m = inbox.poll();
            }
        } finally {
            durability.endGroup();
        }
    }

    private void handle(Message m) {
        if (m instanceof Exited e) {
            outcomes.reap(e.job(), e.exitCode());
            dirty = true;
        } else if (m instanceof Submitted s) {
            submissions.accept(s.spec(), s.result(), s.accepted());
            dirty = true;
        } else if (m instanceof Control c) {
            c.action().run();
            dirty = true;
        } else if (m instanceof Stop) {
            stops.beginStop();
        }
    }

    private RunSummary finish(boolean interrupted) {
        leftovers.sweep();
        emitBoard(); // the last board: nothing running any more, and what the stop interrupted
        RunSummary summary = new RunSummary(outcomes.results(), ended.earlierResults(), interrupted);
        outcomes.abandonAwaited();
        closeInbox();
        reporter.emit(new SchedulerEvent.RunFinished(reporter.now(), summary));
        return summary;
    }

    private void round() {
        durability.retry();
        boolean fresh = reader.read();
        source.refresh().ifPresent(msg -> reporter.emit(new SchedulerEvent.JobsFileRejected(reporter.now(), msg)));
        List<JobSpec> jobs = source.jobs();
        long version = source.version();
        if (version != seenVersion) {
            queue.ensureSeen(jobs);
            seenVersion = version;
        }
        queue.applyCancellations(jobs);
        stops.enforceDeadlines();
        planner.plan(jobs, version, fresh ? Optional.of(measurer.views(reader.last(), durability.state().pausedGpus()))
                : Optional.empty());
        durability.compactIfLarger(options.compactAfterBytes(), Outcomes.HISTORY);
        emitBoard();
    }

    private void emitBoard() {
        io.gpusched.StatusBoard b = board.board(reporter.now(), running, queue, outcomes, ended);
        snapshot = new io.gpusched.QueueSnapshot(reporter.now(), b, durability.state().pausedGpus(), queue.orphans());
        reporter.emit(new SchedulerEvent.StatusUpdated(reporter.now(), b));
    }
}

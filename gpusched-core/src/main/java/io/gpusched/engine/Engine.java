package io.gpusched.engine;

import io.gpusched.engine.ending.Orphans;
import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.ending.OwnerTails;
import io.gpusched.engine.lease.Leases;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.Inbox;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.LoopTimers;
import io.gpusched.engine.loop.LoopWait;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.loop.SubmitBurst;
import io.gpusched.engine.observe.BoundedBackend;
import io.gpusched.engine.observe.GpuReader;
import io.gpusched.engine.observe.Measurer;
import io.gpusched.engine.observe.Timelines;
import io.gpusched.engine.plan.Admission;
import io.gpusched.engine.plan.Dispatcher;
import io.gpusched.engine.plan.Launcher;
import io.gpusched.engine.plan.Plan;
import io.gpusched.engine.plan.Planner;
import io.gpusched.engine.proc.ProcFs;
import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.proc.SessionSignals;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.engine.queue.Settlement;
import io.gpusched.engine.queue.Submissions;
import io.gpusched.engine.spawn.JobLauncher;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.spawn.NativeBinary;
import io.gpusched.engine.spawn.OwnerLaunch;
import io.gpusched.engine.spawn.RunDriver;
import io.gpusched.engine.spawn.RunFiles;
import io.gpusched.engine.spawn.RunNames;
import io.gpusched.engine.spawn.SpawnServer;
import io.gpusched.engine.stop.Leftovers;
import io.gpusched.engine.stop.Stops;
import io.gpusched.engine.table.JobTable;
import io.gpusched.engine.table.JobsSource;

import io.gpusched.cluster.ClusterDriver;
import io.gpusched.model.GpuschedException;
import io.gpusched.model.JobResult;
import io.gpusched.model.RunSummary;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.model.SubmitContext;
import io.gpusched.alloc.Allocator;
import io.gpusched.engine.loop.LoopTimers.Timer;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.StateDirectory;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalStore;
import io.gpusched.journal.MemoryJournal;
import io.gpusched.journal.LogDirLock;
import io.gpusched.policy.FairShare;
import io.gpusched.policy.QueuePolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The scheduler's event loop. One thread — the one that calls {@link #run()} — owns every piece of
 * state here and in the parts it drives; other threads only {@link #post} messages (process exits,
 * submissions, stop). A job's exit is handled the moment it is posted: its GPUs go to the next job
 * without waiting for a poll.
 *
 * <p>Each round: snapshot → attribute ({@link Measurer}) → jobs source → cancellations → timeouts and
 * kills ({@link Stops}) → settle what must be written first ({@link Settlement}: orphans, retries,
 * failed dependencies) → read the queue ({@link PendingQueue}) → decide a {@link Plan}, then carry it
 * out ({@link Dispatcher}, {@link Launcher}) → status board ({@link BoardRows}). Between rounds, memory is sampled on its own, faster cadence while
 * jobs run, so short peaks are seen. Endings go through {@link Outcomes}, journal writes through
 * {@link Durability}, events through {@link Reporter}, leftover processes through {@link Leftovers}.
 * What it touches outside itself (processes, how a run starts, the clock) comes in through
 * {@link Ports}, so its decisions can be tested without any process. A job is found by its number,
 * and its owner read, through the {@link JobTable}.
 *
 * <p>Why this file is longer than the others: it is the one place that shows a round's order, the
 * loop's waits, the start-up wiring of the parts and the entry points other threads call; each of
 * those is short, and split apart they would hide the order that matters.
 */
public final class Engine {
    private final GpuBackend backend;
    private final BoundedBackend gpus;
    private final SchedulerOptions options;
    private final Path logDir;
    private final boolean fresh;
    private final JobsSource source;
    private final Ports ports;
    private final ProcTable procFs;
    private final SessionSignals signals;
    private final Inbox inbox = new Inbox();
    private final Reporter reporter;
    private final Timelines timelines;
    private final Measurer measurer;
    private final Leftovers leftovers;
    private final GpuReader reader;

    // The parts that write the journal exist once it is open (in run()).
    private Durability durability;
    private Outcomes outcomes;
    private Stops stops;
    private PendingQueue queue;
    private Planner planner;
    private Settlement settlement;
    private Orphans orphans;
    private final JobTable table;
    private final BoardRows board = new BoardRows();

    /** The loop's clock, which also dates every journal line. */
    private final LoopClock clock;
    private final LoopTimers timers;
    /** The loop's thread was interrupted (an executor's shutdownNow): a stop, and the flag owed back. */
    private boolean interruptedWhileRunning;
    private boolean drainedAnnounced;
    /** {@link #drain()} was asked: nothing more starts, and the loop ends once nothing runs. */
    private boolean draining;
    private boolean dirty = true;
    /** Submissions planned alone whose board is still to be published, and when it is due. */
    private final SubmitBurst burst = new SubmitBurst();
    private volatile Thread loopThread;
    private volatile io.gpusched.event.QueueSnapshot snapshot;
    /**
     * Changes the loop has begun that its next board shows: bumped (by the loop alone) when a round
     * starts, before any of its spawns, and when it takes in a submission, an exit or a control, before
     * anyone hears of it. A client may see such a change (its submission's number, its job's first
     * output) before the board that shows it is published: {@link #whenSnapshotCurrent()} waits for that board.
     */
    private volatile long begun;
    /** {@link #begun} as the last published board showed it; set with {@link #snapshot}, after it. */
    private volatile long shown;
    /** Completed when the next board is published, then replaced: what {@link #whenSnapshotCurrent()} waits on. */
    private volatile CompletableFuture<Void> nextBoard = new CompletableFuture<>();
    private Controls controls;
    private Submissions submissions;
    private Leases leases;
    private long seenVersion = -1;
    private int maxQueuedPerUser = DEFAULT_MAX_QUEUED_PER_USER;
    private long maxQueuedMibPerUser = DEFAULT_MAX_QUEUED_MIB_PER_USER;

    /**
     * How many MiB of commands and environments one user's submissions not yet ended may hold, unless
     * {@link #maxQueuedMibPerUser} says otherwise: 1 GiB, room for a 100,000-job sweep whose jobs each
     * carry an environment of 10 KB.
     */
    public static final long DEFAULT_MAX_QUEUED_MIB_PER_USER = 1024;

    /** How many jobs not yet ended one user may have submitted, unless {@link #maxQueuedPerUser} says otherwise. */
    public static final int DEFAULT_MAX_QUEUED_PER_USER = 200_000;

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
        this(backend, options, clock, logDir, fresh, jobsFile, jobs, Optional.empty(),
                io.gpusched.jobs.Requirements.NONE, listener);
    }

    /**
     * @param backend GPU state source
     * @param options tunables
     * @param clock time source for durations, timeouts and kill deadlines
     * @param logDir per-job logs and the journal
     * @param fresh remove the journal before starting
     * @param jobsFile live jobs file, if any
     * @param jobs fixed jobs (when there is no file)
     * @param requirementsFile the live requirements file ({@code --requirements}), if any
     * @param requirements its rules as read at start
     * @param listener receives every event on this thread
     */
    public Engine(GpuBackend backend, SchedulerOptions options, InstantSource clock, Path logDir, boolean fresh,
                  Optional<Path> jobsFile, List<JobSpec> jobs, Optional<Path> requirementsFile,
                  io.gpusched.jobs.Requirements requirements, Consumer<SchedulerEvent> listener) {
        this(backend, options, clock, logDir, fresh, jobsFile, jobs, requirementsFile, requirements, listener,
                Optional.empty());
    }

    /**
     * As the constructor without a cluster, with jobs handed to one that places them itself (Slurm)
     * instead of started here.
     *
     * @param backend GPU state source (for a cluster, one with no GPUs: the cluster's are not seen from here)
     * @param options tunables
     * @param clock time source for durations, timeouts and kill deadlines
     * @param logDir per-job logs and the journal
     * @param fresh remove the journal before starting
     * @param jobsFile live jobs file, if any
     * @param jobs fixed jobs (when there is no file)
     * @param requirementsFile the live requirements file ({@code --requirements}), if any
     * @param requirements its rules as read at start
     * @param listener receives every event on this thread
     * @param cluster where jobs go; empty for a local run
     */
    public Engine(GpuBackend backend, SchedulerOptions options, InstantSource clock, Path logDir, boolean fresh,
                  Optional<Path> jobsFile, List<JobSpec> jobs, Optional<Path> requirementsFile,
                  io.gpusched.jobs.Requirements requirements, Consumer<SchedulerEvent> listener,
                  Optional<ClusterDriver> cluster) {
        this(backend, options, logDir, fresh, new JobsSource(jobsFile, jobs, requirementsFile, requirements,
                JobsSource.quietFor(options.poll()), System::nanoTime, options.policy().autoVram()), listener,
                new Ports(ProcFs.system(), new LoopClock(clock, System::nanoTime), Optional.empty(), cluster));
    }

    /** As the public constructor, with the jobs source given, so tests can step its quiet period by hand. */
    Engine(GpuBackend backend, SchedulerOptions options, InstantSource clock, Path logDir, boolean fresh,
           JobsSource source, Consumer<SchedulerEvent> listener) {
        this(backend, options, logDir, fresh, source, listener, Ports.system(clock));
    }

    /**
     * What the engine touches outside itself besides the GPU backend and the log directory: the process
     * table (facts and signals), how a local run starts, and the clock. {@link #system} is the real
     * machine's; tests give fakes, so engine decisions are checked with no process at all.
     *
     * @param procs the process table
     * @param clock the loop's clock
     * @param local how a local run starts; empty means {@link JobLauncher} (with {@code setsid} and the
     *     native spawn server), else this driver, and no {@code setsid} is needed
     * @param cluster where jobs go instead of starting here, a cluster that places them itself (Slurm);
     *     empty for a local run
     * @param waits how the loop waits for its next message: {@link LoopWait#REAL} blocks on the inbox; a
     *     {@link io.gpusched.engine.loop.VirtualTime} (with its own {@code clock}) jumps to what happens next
     * @param keeping what the run keeps outside the loop: {@link Keeping#DISK} for a real run;
     *     {@link Keeping#NOTHING} for a simulation
     * @param ownerTails how a failed job's output is read as its owner; empty means through gpusched-runas
     */
    record Ports(ProcTable procs, LoopClock clock, Optional<RunDriver> local, Optional<ClusterDriver> cluster,
                 LoopWait waits, Keeping keeping, Optional<OwnerTails> ownerTails) {
        /** Ports whose failed jobs' output is read as their owners by gpusched-runas (where it runs). */
        Ports(ProcTable procs, LoopClock clock, Optional<RunDriver> local, Optional<ClusterDriver> cluster,
              LoopWait waits, Keeping keeping) {
            this(procs, clock, local, cluster, waits, keeping, Optional.empty());
        }

        /** @return these ports, with failed jobs' output read as their owners by {@code tails} (tests: a read that hangs) */
        Ports withOwnerTails(OwnerTails tails) {
            return new Ports(procs, clock, local, cluster, waits, keeping, Optional.of(tails));
        }

        /** Ports that keep their run on disk. */
        Ports(ProcTable procs, LoopClock clock, Optional<RunDriver> local, Optional<ClusterDriver> cluster,
              LoopWait waits) {
            this(procs, clock, local, cluster, waits, Keeping.DISK);
        }

        /** Ports that wait in real time and keep their run on disk. */
        Ports(ProcTable procs, LoopClock clock, Optional<RunDriver> local, Optional<ClusterDriver> cluster) {
            this(procs, clock, local, cluster, LoopWait.REAL, Keeping.DISK);
        }

        /** Ports of a local run, waiting in real time. */
        Ports(ProcTable procs, LoopClock clock, Optional<RunDriver> local) {
            this(procs, clock, local, Optional.empty());
        }

        /** @return the real machine's: {@code /proc}, processes, the wall clock and {@link System#nanoTime()} */
        static Ports system(InstantSource wall) {
            return new Ports(ProcFs.system(), new LoopClock(wall, System::nanoTime), Optional.empty());
        }
    }

    /** What a run keeps outside its loop. */
    enum Keeping {
        /**
         * A real run: the log directory locked and checked, the journal a file forced at each group, run
         * files, and a status board published after every round.
         */
        DISK,
        /**
         * A simulation, which nothing watches while it runs and whose state is thrown away: the journal
         * only in memory ({@link io.gpusched.journal.MemoryJournal}), no run file
         * ({@link RunFiles#none}), nothing written to or locked in the log directory (it need not exist),
         * no memory timelines ({@link Timelines#none}), and the status board published once, when the run ends (its listener sees that last board, as
         * after a real run's last round).
         */
        NOTHING
    }

    /**
     * An engine on a virtual clock over a simulated machine: its runs start no process and end when their
     * work is done in virtual time, and its loop never sleeps (the replay, {@code gpusched simulate}). It
     * starts with no job: each comes as a submission.
     *
     * @param machine the GPUs, runs and sessions
     * @param time the virtual clock, which the machine's runs are scheduled on
     * @param waits how the loop waits: {@code time} itself, or a wait around it
     * @param options tunables
     * @param logDir named as the journal's and the logs' directory, never written nor read: a simulated
     *     run keeps its journal in memory and writes no file (it need not exist)
     * @param listener receives every event on the loop's thread; the status board once, at the end
     *     (it publishes no {@link #snapshot()}: a simulation has no client to read one)
     * @return the engine, not yet run
     */
    public static Engine simulated(io.gpusched.engine.sim.SimulatedMachine machine, io.gpusched.engine.loop.VirtualTime time,
                                   LoopWait waits, SchedulerOptions options, Path logDir, Consumer<SchedulerEvent> listener) {
        io.gpusched.gpu.GpuBackend backend = machine.backend();
        return new Engine(backend, BoundedBackend.inline(backend), options, logDir, true,
                new JobsSource(Optional.empty(), List.of()), listener, new Ports(machine.procs(), time.clock(), Optional.of(machine.driver()), Optional.empty(), waits,
                        Keeping.NOTHING));
    }

    /** As the public constructor, with the jobs source and the ports given (tests). */
    Engine(GpuBackend backend, SchedulerOptions options, Path logDir, boolean fresh, JobsSource source,
           Consumer<SchedulerEvent> listener, Ports ports) {
        this(backend, new BoundedBackend(backend, options.backendTimeout()), options, logDir, fresh, source, listener, ports);
    }

    /** As above, with the backend's bound given ({@link BoundedBackend#inline} for a simulated machine). */
    private Engine(GpuBackend backend, BoundedBackend gpus, SchedulerOptions options, Path logDir, boolean fresh,
                   JobsSource source, Consumer<SchedulerEvent> listener, Ports ports) {
        this.ports = ports;
        this.procFs = ports.procs();
        this.clock = ports.clock();
        this.timers = new LoopTimers(clock::nanos);
        this.signals = new SessionSignals(procFs);
        this.backend = backend;
        this.gpus = gpus;
        this.options = options;
        this.logDir = logDir;
        this.fresh = fresh;
        this.source = source;
        // Read once the run is open and durability assembled; built now, for the parts built here.
        this.table = new JobTable(() -> durability.state(), source, procFs, options.retryFailed());
        this.reporter = new Reporter(listener, clock);
        // A simulation's memory timelines would go to a journal it throws away, and nobody asks for one.
        this.timelines = ports.keeping() == Keeping.DISK ? new Timelines() : Timelines.none();
        this.measurer = new Measurer(options, procFs, table, reporter, clock, timelines);
        this.leftovers = new Leftovers(signals, table, reporter);
        this.reader = new GpuReader(gpus, options, measurer, reporter, clock);
    }

    /** @return the journal's fsyncs so far (tests: how many a run costs); read on the loop's thread, or after {@link #run()} */
    long journalForces() {
        return durability.forces();
    }

    /** Posts a message from any thread (tests post exits and stops directly). */
    void post(Inbox.Message m) {
        inbox.post(m);
    }

    /**
     * Submits a job from any thread.
     *
     * @param spec the job
     * @param context who submitted it, where and with which environment it runs
     * @param result completed with the job's result when it ends
     * @param lease for a lease ({@code gpusched srun}): completed with the grant when it is placed
     * @return completed with the job's display number once its submission is journaled; exceptionally
     *     if the scheduler ended first
     */
    public CompletableFuture<Integer> submit(JobSpec spec, SubmitContext context, CompletableFuture<JobResult> result,
                                             Optional<CompletableFuture<io.gpusched.model.Grant>> lease) {
        CompletableFuture<Integer> accepted = new CompletableFuture<>();
        if (ports.cluster().isPresent()) {
            // A cluster's run takes its jobs from its jobs file: a submission (or an srun lease, which would
            // run here) has nowhere to go.
            accepted.completeExceptionally(new GpuschedException("this run hands its jobs file to a cluster"
                    + " (--executor slurm) and takes no submissions; add a line to its jobs file instead"));
            return accepted;
        }
        inbox.post(new Inbox.Submitted(spec, context, result, accepted, lease));
        return accepted;
    }

    /**
     * Takes back a submission the loop has not taken yet, from any thread ({@link Inbox#withdraw}).
     *
     * @param accepted the future {@link #submit} returned
     * @return whether it will never be queued; false when the loop has it
     */
    public boolean withdraw(CompletableFuture<Integer> accepted) {
        return inbox.withdraw(accepted);
    }

    /**
     * A lease holder's report, from any thread: see {@code Scheduler.leaseEnded}.
     *
     * @return what was made of it
     */
    public CompletableFuture<io.gpusched.model.LeaseEnd> leaseEnded(int no, String token, java.util.OptionalInt status) {
        return inbox.call(() -> controls.leaseEnded(no, token, status));
    }

    /**
     * Whether a lease is held under this token, from any thread: see {@code Scheduler.leaseHeld}.
     *
     * @return true while it is
     */
    public CompletableFuture<Boolean> leaseHeld(int no, String token) {
        return inbox.call(() -> controls.leaseHeld(no, token));
    }

    /**
     * A lease holder back after a restart, from any thread: see {@code Scheduler.leaseAttach}.
     *
     * @return its job's result to come, where the lease is held under this token
     */
    public CompletableFuture<java.util.Optional<CompletableFuture<io.gpusched.model.JobResult>>> leaseAttach(int no,
            String token) {
        return inbox.call(() -> controls.leaseAttach(no, token));
    }

    /**
     * Cancels a job by display number, from any thread.
     *
     * @return what happened
     */
    public CompletableFuture<io.gpusched.model.CancelOutcome> cancel(int no) {
        return inbox.call(() -> controls.cancel(no));
    }

    /**
     * Cancels a job by display number once its owner passes a check, both in one step, from any thread.
     *
     * @param no the job's display number
     * @param ownerCheck told the job's owner on the loop's thread; what it throws fails the call and
     *     leaves the job alone
     * @return what happened
     */
    public CompletableFuture<io.gpusched.model.CancelOutcome> cancel(int no, java.util.function.Consumer<String> ownerCheck) {
        return inbox.call(() -> controls.cancel(no, ownerCheck));
    }

    /**
     * A job's owner, output file and state, read in one step, from any thread.
     *
     * @param no the job's display number
     * @return them; empty when the journal knows no job of that number
     */
    public CompletableFuture<Optional<io.gpusched.model.JobLogs>> logs(int no) {
        return inbox.call(() -> controls.logs(no));
    }

    /**
     * Cancels every job of an owner that has not ended, from any thread.
     *
     * @return each job's number and what happened, by number
     */
    public CompletableFuture<java.util.SortedMap<Integer, io.gpusched.model.CancelOutcome>> cancelAll(String owner) {
        return inbox.call(() -> controls.cancelAll(owner, source.jobs()));
    }

    /**
     * Where a job is, from any thread, as the loop knows it now.
     *
     * @param no the job's display number
     * @return where it stands; empty when no job has that number
     */
    public CompletableFuture<Optional<io.gpusched.model.JobStage>> state(int no) {
        return inbox.call(() -> controls.state(no));
    }

    /**
     * Who a job runs for, from any thread.
     *
     * @param no the job's display number
     * @return its owner; empty when the journal knows no job of that number
     */
    public CompletableFuture<Optional<String>> owner(int no) {
        return inbox.call(() -> controls.owner(no));
    }

    /**
     * Where a job's output goes when not to the log directory, from any thread.
     *
     * @param no the job's display number
     * @return its own output file; empty for log-directory logs or an unknown number
     */
    public CompletableFuture<Optional<Path>> outputFile(int no) {
        return inbox.call(() -> controls.outputFile(no));
    }

    /**
     * Pauses or resumes a GPU, from any thread.
     *
     * @return done once journaled; fails for a GPU the backend does not report
     */
    public CompletableFuture<Void> pause(int gpu, boolean paused) {
        return inbox.call(() -> {
            controls.pauses().pause(gpu, paused, reader.lastGpus());
            return null;
        });
    }

    /**
     * Why a job could never run here, from any thread without waiting for the loop: the requirement rules
     * in force applied, judged against the GPUs the loop last read ({@link Admission#never}).
     *
     * @param spec the job as submitted
     * @return the reason it would end infeasible; empty when it could run, or before the first round
     */
    public Optional<String> neverRuns(JobSpec spec) {
        io.gpusched.event.QueueSnapshot s = snapshot;
        if (s == null) {
            return Optional.empty();
        }
        return Admission.never(source.asQueued(spec), s.gpus(), new Allocator(options.placement()));
    }

    /**
     * What the scheduler would do with a job submitted now, from any thread, acting on nothing: never
     * (infeasible, an unknown or failed {@code after}), wait (and why), or start (and where).
     *
     * @param spec the job as submitted
     * @param context who would submit it
     * @return the preview, once the loop has looked
     */
    public CompletableFuture<io.gpusched.model.SubmitPreview> preview(JobSpec spec, SubmitContext context) {
        return inbox.call(() -> {
            JobSpec queued = source.asQueued(spec);
            Optional<String> never = Admission.never(queued, reader.lastGpus(), new Allocator(options.placement()))
                    .or(() -> submissions.unknownAfter(spec, context.owner()));
            if (never.isPresent()) {
                return new io.gpusched.model.SubmitPreview.Never(never.get());
            }
            io.gpusched.policy.Dependencies.Verdict after = queue.dependencies(queued, context.owner());
            if (after instanceof io.gpusched.policy.Dependencies.Failed f) {
                return new io.gpusched.model.SubmitPreview.Never(f.reason());
            }
            if (after instanceof io.gpusched.policy.Dependencies.Waiting w) {
                return new io.gpusched.model.SubmitPreview.Waits(w.reason());
            }
            if (draining) {
                return new io.gpusched.model.SubmitPreview.Waits(io.gpusched.engine.plan.Planner.DRAINING);
            }
            return planner.preview(Admission.candidate(queued, context.owner(), clock.steady()), source.version());
        });
    }

    /**
     * @return the queue as the loop last published it; empty before the first round, and always for a
     *     simulation ({@link #simulated}), whose one board goes to its listener
     */
    public Optional<io.gpusched.event.QueueSnapshot> snapshot() {
        return Optional.ofNullable(snapshot);
    }

    /**
     * From any thread, without blocking: a future completed once {@link #snapshot()} shows every change
     * the loop had begun when this was called (a round in progress, whose jobs may already run; a
     * submission whose number its client may already have). Completed at once when it already does,
     * when no round has begun yet, or where boards come only at the end (a simulation). While the loop
     * is stopping no board comes until its end, and a loop stuck on a slow disk none until the disk
     * answers: a caller bounds its wait ({@link CompletableFuture#completeOnTimeout}).
     *
     * @return a future that never completes exceptionally; completed on the loop's thread when it waited
     */
    public CompletableFuture<Void> whenSnapshotCurrent() {
        if (ports.keeping() != Keeping.DISK) {
            return CompletableFuture.completedFuture(null);
        }
        return snapshotShowing(begun);
    }

    private CompletableFuture<Void> snapshotShowing(long wanted) {
        // The future first, then the board: a board published between the two completes this future.
        CompletableFuture<Void> next = nextBoard;
        if (snapshot == null ? wanted == 0 : shown >= wanted) {
            return CompletableFuture.completedFuture(null);
        }
        return next.thenCompose(x -> snapshotShowing(wanted));
    }

    /**
     * A job's memory timeline, from any thread, without waiting for the loop.
     *
     * @param no the job's display number
     * @return its timeline; empty for a job never sampled in this run, or one of the oldest ended
     */
    public Optional<io.gpusched.model.VramTimeline> timeline(int no) {
        return timelines.timeline(no);
    }

    /**
     * Caps each user's submissions that have not ended; one more is refused with
     * {@link io.gpusched.model.QueueFullException}. Called before {@link #run()}.
     *
     * @param max at least 1
     * @throws IllegalArgumentException if {@code max} is below 1
     */
    public void maxQueuedPerUser(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the most jobs queued per user must be at least 1, got " + max);
        }
        this.maxQueuedPerUser = max;
    }

    /**
     * Caps the size ({@link io.gpusched.journal.JournalState#size}) of each user's submissions that have
     * not ended, which the journal holds on disk and the scheduler in memory; one more past it is refused
     * with {@link io.gpusched.model.QueueFullException}. Called before {@link #run()}.
     *
     * @param mib at least 1
     * @throws IllegalArgumentException if {@code mib} is below 1
     */
    public void maxQueuedMibPerUser(long mib) {
        if (mib < 1 || mib > MAX_QUEUED_MIB) {
            throw new IllegalArgumentException("the most MiB queued per user must be 1 to " + MAX_QUEUED_MIB + ", got " + mib);
        }
        this.maxQueuedMibPerUser = mib;
    }

    /** The largest {@link #maxQueuedMibPerUser}: 2^31 − 1 MiB, whose bytes a long still holds. */
    public static final long MAX_QUEUED_MIB = Integer.MAX_VALUE;

    /** The limit on every job's run ({@code serve --max-job-time}); empty for none. */
    private Optional<io.gpusched.engine.stop.Stops.MaxJobTime> maxJobTime = Optional.empty();

    /**
     * Limits every job's run: see {@link io.gpusched.engine.stop.Stops.MaxJobTime}. Called before {@link #run()}.
     *
     * @param max the limit and what reaching it does; empty for none
     */
    public void maxJobTime(Optional<io.gpusched.engine.stop.Stops.MaxJobTime> max) {
        this.maxJobTime = max;
    }

    /** Whether every submission but an srun lease is unique ({@code serve --dedup}). */
    private boolean dedup;

    /**
     * Makes every submission but an {@code srun} lease {@code unique}: see
     * {@link io.gpusched.model.DuplicateJobException}. Called before {@link #run()}.
     *
     * @param on whether to
     */
    public void dedup(boolean on) {
        this.dedup = on;
    }

    /** @return whether the caller is the loop's own thread (a listener), which must never wait for the loop */
    public boolean onLoopThread() {
        return Thread.currentThread() == loopThread;
    }

    /**
     * Drains, from any thread: the loop starts no job from now on and returns, interrupted, once no job
     * runs (leases and jobs taken up from a dead scheduler included). Queued jobs stay in the journal.
     *
     * @return completed with how many jobs were running when the drain began
     */
    public CompletableFuture<Integer> drain() {
        return inbox.call(() -> {
            if (!draining) {
                draining = true;
                reporter.emit(new SchedulerEvent.Draining(clock.now(), table.runningCount(), queued()));
            }
            return table.runningCount();
        });
    }

    /** Asks the loop, from any thread, to terminate running jobs and return. */
    public void stop() {
        stop(false);
    }

    /**
     * Asks the loop, from any thread, to return: it starts nothing more; running jobs are terminated,
     * or with {@code leaveJobs} left running (a job already being stopped, by a cancel or its timeout,
     * is still seen to its end first), journaled as started, so the next scheduler on this log
     * directory takes them up as it takes up a dead scheduler's.
     *
     * @param leaveJobs whether running jobs go on without a scheduler
     */
    public void stop(boolean leaveJobs) {
        inbox.post(new Inbox.Stop(leaveJobs));
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
        // A driver given in the ports starts runs its own way: setsid is the local launcher's need only.
        Path setsid = ports.local().isPresent() ? Path.of("setsid") : JobLauncher.findSetsid().orElseThrow(() -> new GpuschedException(
                "setsid not found: gpusched needs util-linux's setsid to give each job its own session; install util-linux"));
        boolean onDisk = ports.keeping() == Keeping.DISK;
        LogDirLock lock;
        try {
            if (onDisk) {
                StateDirectory.secure(logDir).forEach(reporter::warnOnce);
            }
            // A simulation's log directory is never written: nothing to lock (try skips a null resource).
            lock = onDisk ? LogDirLock.acquire(logDir) : null;
        } catch (RuntimeException e) {
            gpus.close();
            throw e;
        }
        try (lock; JournalStore journal = onDisk ? Journal.open(logDir.resolve("journal.jsonl"), fresh, clock)
                : new MemoryJournal(logDir.resolve("journal.jsonl"))) {
            assemble(journal, setsid);
            journal.loadWarnings().forEach(reporter::warnOnce);
            orphans.recoverLaunches();
            submissions.rebuild();
            board.endedBefore(submissions.endedBefore());
            Optional<String> err = source.refresh();
            if (err.isPresent() && source.jobs().isEmpty()) {
                throw new GpuschedException(err.get().replace(" — keeping the previous queue until the file is fixed", "")
                        .replace("; keeping the previous queue", ""));
            }
            reporter.emit(new SchedulerEvent.RunStarted(clock.now(), source.jobs().size(), source.live(),
                    options.poll(), Optional.of(logDir.resolve("status.txt")), backend.describe(), leftRunning(source.jobs())));
            return loop();
        } finally {
            inbox.close();
            if (durability != null) {
                durability.stopSyncer();
            }
            gpus.close();
            spawnd.ifPresent(SpawnServer::close);
            if (interruptedWhileRunning) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * @return how many of these jobs the journal says a previous scheduler left running (started, no
     *     outcome): those the first round takes up again, or queues again where their run has died
     *     ({@link Settlement#adoptOrphans}'s candidates)
     */
    private int leftRunning(List<JobSpec> jobs) {
        int n = 0;
        for (JobSpec j : jobs) {
            JobTable.Job r = table.job(j.key());
            if (r.session().isPresent() && !r.terminal()) {
                n++;
            }
        }
        return n;
    }

    /** Builds the parts that write the journal, now that it is open. */
    private void assemble(JournalStore journal, Path setsid) {
        boolean onDisk = ports.keeping() == Keeping.DISK;
        RunFiles runFiles = onDisk ? new RunFiles(logDir) : RunFiles.none(logDir);
        if (fresh) {
            try {
                runFiles.removeAll();
            } catch (IOException e) {
                throw new GpuschedException("cannot clear " + runFiles.dir() + " for --fresh: " + e.getMessage(), e);
            }
        }
        RunNames names = new RunNames(logDir, journal.path());
        durability = new Durability(journal, runFiles, reporter, clock, () -> dirty = true);
        reporter.holdFor(durability);
        table.open();
        FairShare fairShare = new FairShare(options.policy().fairShareHalfLife());
        try {
            runFiles.createDirectory();
        } catch (IOException e) {
            reporter.warnOnce("cannot create " + runFiles.dir() + ": " + e.getMessage() + " — jobs cannot start until it can be");
        }
        // Only a root scheduler runs submissions as their owners; it extracts the program that does.
        // A simulation runs no command and reads no output: it needs none.
        Optional<Path> runas = JobOutput.RUNS_AS_OWNERS && onDisk
                ? NativeBinary.extract(OwnerLaunch.RESOURCE, runFiles.dir()) : Optional.empty();
        if (JobOutput.RUNS_AS_OWNERS && onDisk && runas.isEmpty()) {
            reporter.warnOnce("this build has no gpusched-runas (built without a C compiler): other users' submissions"
                    + " cannot start and stay pending; rebuild gpusched with gcc");
        }
        // A failed job's output read as its owner is read off the loop's thread; its settlement comes back as
        // a control. Refused once the loop has ended: the job then stays journaled as started, with its exit
        // file, and the next scheduler settles it as it does a run that ended while none watched.
        outcomes = new Outcomes(options, durability, runFiles, names, leftovers, reporter, clock, measurer,
                table, fairShare, timelines, ports.ownerTails().orElseGet(() -> OwnerTails.runas(runas)),
                action -> inbox.post(new Inbox.Control(action, refused -> { })));
        stops = new Stops(options, table, signals, procFs, names, reporter, clock, durability);
        stops.maxJobTime(maxJobTime);
        spawnd = ports.local().isPresent() ? Optional.empty() : SpawnServer.start(runFiles.dir());
        JobLauncher local = new JobLauncher(setsid, Path.of("").toAbsolutePath(), backend.jobEnvironment(),
                backend::jobEnvironment, options.visibleDevices(), spawnd, runas);
        leases = new Leases(local, runFiles, names, procFs, reporter, clock);
        orphans = new Orphans(runFiles, names, procFs, signals, leases, table, durability, reporter, clock, this::post,
                reader::lastGpus, ports.cluster(), stops);
        controls = new Controls(durability, table, stops, outcomes, reporter, clock, leases, orphans);
        queue = new PendingQueue(durability, source, stops, outcomes, table, options.spikeBuffer(), reporter, clock);
        settlement = new Settlement(durability, source, outcomes, reporter, clock, table, orphans, queue);
        submissions = new Submissions(durability, source, outcomes, reporter, clock, queue, leases, table, maxQueuedPerUser,
                maxQueuedMibPerUser, dedup);
        Launcher launcher = new Launcher(durability, runFiles, ports.local().orElse(local), leases, names, table, procFs,
                reporter, clock, this::post, source::ruleOf,
                ports.cluster());
        Dispatcher dispatcher = new Dispatcher(new QueuePolicy(new Allocator(options.placement()), options.policy()),
                fairShare, stops, durability, table, reporter, clock, outcomes, launcher);
        planner = new Planner(settlement, queue, dispatcher, durability, reader, clock);
    }

    /** The native spawn server the launcher uses, while the run lasts; empty where it cannot run. */
    private Optional<SpawnServer> spawnd = Optional.empty();

    private RunSummary loop() {
        long sampleNanos = options.effectiveSampleInterval().toNanos();
        long pollNanos = options.poll().toNanos();
        while (true) {
            // While stopping no round, sample or sweep runs: their times stay in the past and would make
            // every wait zero. Exits and kill deadlines alone wake a stopping loop.
            boolean stopping = stops.stopping();
            // While stopping no round runs, so a waiting submission must not cut the wait short.
            long deadlineWait = stops.deadlineWait();
            long deadline = timers.now() + deadlineWait;
            long cap = stopping ? deadlineWait : Math.min(deadlineWait, burst.dueIn(timers.now(), queued()));
            drainInbox(timers.waitNanos(timers.now(), cap, !stopping, !stopping && !table.noneRunning(),
                    !stopping && !leftovers.isEmpty()));
            if (!stops.stopping() && !table.noneRunning() && timers.now() - deadline >= 0) {
                // The wait ended at a job's limit: stop it now, not at the next sample.
                stops.enforceDeadlines();
            }
            if (stops.stopping()) {
                endCarriedGroup();
                if (stops.stopDone()) {
                    outcomes.interruptedByStop(stops.finishStop());
                    return finish(true);
                }
                stops.escalateKills();
                continue;
            }
            long now = timers.now();
            if (!table.noneRunning() && timers.due(Timer.SAMPLE, now)) {
                reader.sample();
                stops.enforceDeadlines();
                timers.schedule(Timer.SAMPLE, sampleNanos);
            }
            // Submissions alone are planned alone when that decides the same (each waits behind the
            // queue): no round over the whole queue. Their board follows when the burst pauses.
            boolean submitted = joined > 0;
            boolean planned = submitted && !dirty && admit(joined);
            joined = 0;
            if (dirty || timers.due(Timer.ROUND, now) || (submitted && !planned)) {
                dirty = false;
                burst.planned();
                // Every line a round writes shares one fsync: the outcomes it settles too (a job that 20,000
                // waiting jobs ran after failed them at one fsync each, the loop held 20 s, one user's doing,
                // against every other user's submissions).
                // A spawn server that died is replaced before the round's launches, and said: its runs go on.
                spawnd.ifPresent(server -> {
                    server.ready();
                    server.restarts().forEach(reporter::warnOnce);
                });
                boolean carried = durability.grouping();
                if (!carried) {
                    durability.beginGroup();
                }
                round();
                if (carried) {
                    // The exits' outcomes and this round's launching and started lines share one fsync, taken
                    // after the spawns; then their reports, in that order, and the board. The fsync runs on
                    // the journal's thread (issue #27): an exit that comes meanwhile is taken, and the next
                    // job started, without waiting for the disk; the reports still wait for it.
                    endCarriedGroupLater();
                } else {
                    // Here, as each start's fsync was before: the compaction below waits for no force in flight.
                    durability.endGroup();
                }
                durability.compactIfLarger(options.compactAfterBytes(), Outcomes.HISTORY);
                // A jobs-file change waiting to settle is looked at again as soon as it can be decided.
                timers.schedule(Timer.ROUND, Math.min(pollNanos, source.settleNanos().orElse(pollNanos)));
                timers.schedule(Timer.SAMPLE, sampleNanos);
            } else if (burst.dueIn(now, queued()) == 0) {
                long t0 = timers.now();
                if (ports.keeping() == Keeping.DISK) {
                    emitBoard(); // a simulation's comes once, at the end (finish)
                }
                long t1 = timers.now();
                burst.published(t1, t1 - t0);
            }
            endCarriedGroup();
            // After the round: a freed GPU goes to the next job before the sweep's pass over /proc.
            if (!leftovers.isEmpty() && timers.due(Timer.SWEEP, now)) {
                leftovers.sweep();
                timers.schedule(Timer.SWEEP, sampleNanos);
            }
            if (draining && table.noneRunning() && table.settlingRuns().isEmpty() && settlement.liveOrphans().isEmpty()) {
                return finish(true);
            }
            if (queue.pending().isEmpty() && table.noneRunning() && table.settlingRuns().isEmpty() && settlement.liveOrphans().isEmpty()
                    && inbox.isEmpty() && !dirty
                    && !burst.pending()
                    && source.settleNanos().isEmpty()) {
                if (!options.watch()) {
                    reporter.emit(new SchedulerEvent.Drained(clock.now(), false));
                    return finish(false);
                }
                if (!drainedAnnounced) {
                    drainedAnnounced = true;
                    reporter.emit(new SchedulerEvent.Drained(clock.now(), true));
                }
            } else if (!table.noneRunning() || !table.settlingRuns().isEmpty() || !queue.pending().isEmpty()) {
                drainedAnnounced = false;
            }
        }
    }

    /**
     * Waits up to {@code waitNanos} (not at all while a round is due) for messages, then handles every
     * one queued. The outcomes of every exit one drain finds share one fsync; their reports follow it.
     * When the drain found only exits, its group stays open for the round that follows at once
     * ({@link #endCarriedGroup}): the outcomes are in the file before that round acts on them, and are
     * forced with its launching and started lines, once, after its spawns. A drain with a submission
     * (its number is owed once its line is durable, not after a round), a control or a stop ends its
     * group here, as before.
     */
    private void drainInbox(long waitNanos) {
        Inbox.Message m;
        try {
            m = dirty && !stops.stopping() ? inbox.poll() : ports.waits().next(inbox, waitNanos);
        } catch (InterruptedException e) {
            // Stop as asked, but keep the flag off while stopping: set, every wait of the loop would
            // return at once and the stop would spin a core until its jobs die. run() restores it.
            interruptedWhileRunning = true;
            m = new Inbox.Stop(false);
        }
        if (m instanceof Inbox.Exited && !stops.stopping()) {
            // The round this exit brings reads the GPUs: asked now, they answer while its outcome is written.
            gpus.ask();
        }
        durability.beginGroup();
        boolean onlyExits = m != null;
        boolean handled = false;
        try {
            while (m != null) {
                // A force done is news for what waited on it, not for the plan: it keeps the group carried.
                onlyExits &= m instanceof Inbox.Exited || m instanceof Inbox.Forced;
                handle(m);
                m = inbox.poll();
            }
            handled = true;
        } finally {
            if (!handled || !onlyExits || !dirty || stops.stopping() || durability.owesAcknowledgements()) {
                durability.endGroup();
            }
        }
    }

    /**
     * Ends the group a drain of exits left open for its round, handing its fsync to the journal's thread
     * ({@link Durability#endGroupLater}); the loop hears it is done through an {@link Inbox.Forced}.
     */
    private void endCarriedGroupLater() {
        if (durability.grouping()) {
            durability.endGroupLater(no -> inbox.post(new Inbox.Forced(no)));
        }
    }

    /** Ends the group a drain of exits left open for its round ({@link #drainInbox}), if one is. */
    private void endCarriedGroup() {
        if (durability.grouping()) {
            durability.endGroup();
        }
    }

    /**
     * Plans the jobs submitted since the last round alone, if the planner can ({@link Planner#admit}).
     *
     * @return whether it did; then their board is due when the burst of submissions pauses
     */
    private boolean admit(int n) {
        if (draining) {
            return false;
        }
        Optional<List<io.gpusched.alloc.GpuView>> views = reader.failures() == 0 && !reader.lastGpus().isEmpty()
                ? Optional.of(measurer.views(reader.last(), controls.pauses().now(reader.lastGpus()))) : Optional.empty();
        if (!planner.admit(source.jobs(), source.version(), n, views)) {
            return false;
        }
        if (seenVersion == source.version() - n) {
            // Submissions come numbered and never ran: nothing for the next round to see or take up.
            seenVersion = source.version();
        }
        burst.submitted(timers.now());
        return true;
    }

    /** Submissions taken since the last plan. */
    private int joined;

    /** @return how many jobs the last round found queued, pending or held */
    private int queued() {
        return queue.pending().size() + queue.held().size();
    }

    private void handle(Inbox.Message m) {
        // Each of these is followed by a board (a round, or a submission's board): begun counts it.
        if (m instanceof Inbox.Exited e) {
            begun++;
            outcomes.reap(e.job(), e.exitCode());
            dirty = true;
        } else if (m instanceof Inbox.Submitted s) {
            // Numbered when the drain's group is forced, after this: no client has the number yet.
            if (submissions.accept(Admission.pinnedToDevices(s.spec(), reader.lastGpus()), s.context(), s.result(),
                    s.accepted(), s.lease())) {
                begun++;
                joined++;
            }
        } else if (m instanceof Inbox.Control c) {
            begun++;
            c.action().run();
            dirty = true;
        } else if (m instanceof Inbox.Stop s) {
            stops.beginStop(s.leaveJobs());
        } else if (m instanceof Inbox.Forced f) {
            durability.forced(f.flight());
        }
    }

    private RunSummary finish(boolean interrupted) {
        List<Integer> settling = table.settlingRuns().stream().map(rj -> rj.no).sorted().toList();
        if (!settling.isEmpty()) {
            // Only a stop ends the loop with these (a drain waits for them): their reads of their owners'
            // output may hang, and nothing is lost by not waiting. Journaled as started, with their exit
            // files kept, they are settled by the next scheduler on this log directory, as runs that ended
            // while none watched.
            boolean one = settling.size() == 1;
            reporter.warn("job" + (one ? " " : "s ") + settling.stream().map(String::valueOf)
                    .collect(java.util.stream.Collectors.joining(", ")) + " ended as the scheduler stopped, before "
                    + (one ? "its" : "their") + " outcome was recorded; the next scheduler records it from the exit file");
        }
        // A force still on the journal's thread ends first: its reports come before the last board.
        durability.close();
        leftovers.sweep();
        emitBoard(); // the last board: nothing running any more, and what the stop interrupted
        RunSummary summary = new RunSummary(outcomes.results(), table.earlierResults(), interrupted);
        outcomes.abandonAwaited();
        durability.abandonUnacknowledged();
        inbox.close();
        reporter.emit(new SchedulerEvent.RunFinished(clock.now(), summary));
        return summary;
    }

    private void round() {
        begun++;
        durability.retry();
        boolean fresh = reader.read();
        if (fresh) {
            controls.pauses().follow(reader.lastGpus());
        }
        List<JobSpec> lines = source.fileJobs();
        source.refresh().ifPresent(msg -> reporter.emit(new SchedulerEvent.JobsFileRejected(clock.now(), msg)));
        if (fresh) {
            source.bindPins(line -> Admission.pinnedToDevices(line, reader.lastGpus()));
        }
        if (source.fileJobs() != lines) {
            queue.sayDropped(source.fileName(), lines, source.fileJobs());
        }
        List<JobSpec> jobs = source.jobs();
        long version = source.version();
        // Ended submissions leaving the queue bring no job to number and no run to take up: only a queue
        // that jobs joined, or whose lines changed, is walked for them.
        if (version != seenVersion && source.joinedVersion() > seenVersion) {
            queue.ensureSeen(jobs);
            // Runs a dead scheduler left can only come with the jobs the journal or the file names.
            settlement.adoptOrphans(jobs);
        }
        seenVersion = version;
        queue.applyCancellations(source.cancelMarked());
        leases.reapAbandoned(List.copyOf(table.runs()));
        stops.enforceDeadlines();
        planner.plan(jobs, version, fresh
                ? Optional.of(measurer.views(reader.last(), controls.pauses().now(reader.lastGpus())))
                : Optional.empty(), draining);
        if (ports.keeping() == Keeping.DISK) {
            emitBoard(); // a simulation's comes once, at the end (finish)
        }
    }

    private void emitBoard() {
        io.gpusched.event.StatusBoard b = board.board(clock, table, queue, outcomes);
        if (ports.keeping() != Keeping.DISK) {
            // A simulation's one board, at its end, goes to its listener alone: no client asks a
            // simulation for its queue ({@link #snapshot()} stays empty), so none is made for one.
            reporter.emit(new SchedulerEvent.StatusUpdated(clock.now(), b));
            return;
        }
        java.util.Set<Integer> paused = controls.pauses().now(reader.lastGpus());
        io.gpusched.event.QueueSnapshot next = new io.gpusched.event.QueueSnapshot(clock.now(), b, paused,
                settlement.liveOrphans(), reader.lastGpus(),
                reader.lastGpus().isEmpty() ? List.of() : measurer.memory(reader.last(), paused));
        // Inside a group (a round that follows exits) what the board shows is forced first, as its report is.
        long showing = begun;
        durability.afterDurable(() -> {
            snapshot = next;
            shown = showing;
            CompletableFuture<Void> published = nextBoard;
            nextBoard = new CompletableFuture<>();
            published.complete(null);
        });
        reporter.emit(new SchedulerEvent.StatusUpdated(clock.now(), b));
    }
}

package io.gpusched;

import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.GpuschedException;
import io.gpusched.model.Grant;
import io.gpusched.model.JobResult;
import io.gpusched.model.JournalUnwritableException;
import io.gpusched.model.LeaseEnd;
import io.gpusched.model.QueueFullException;
import io.gpusched.model.RunSummary;
import io.gpusched.model.SubmitContext;
import io.gpusched.model.VramTimeline;
import io.gpusched.options.SchedulerOptions;

import io.gpusched.engine.Engine;
import io.gpusched.engine.loop.PacedBoardWriter;
import io.gpusched.engine.loop.StatusBoardWriter;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The gpusched scheduler: give it a GPU backend and jobs, call {@link #run()}.
 *
 * <pre>{@code
 * try (Scheduler s = Scheduler.builder()
 *         .backend(GpuBackends.detect(BackendOptions.none()))
 *         .jobsFile(Path.of("jobs.txt"))
 *         .options(SchedulerOptions.defaults().withMarginMib(512))
 *         .logDir(Path.of("gpusched_logs"))
 *         .listener(event -> System.out.println(event))
 *         .build()) {
 *     RunSummary summary = s.run();
 * }
 * }</pre>
 *
 * <p>{@link #run()} runs the scheduler's event loop on the calling thread; {@link #submit} and
 * {@link #close()} may be called from any thread. A scheduler runs once. It holds no static state, so
 * several can run in one JVM on different log directories. The backend is not closed by the
 * scheduler; its creator closes it.
 *
 * <p>Why one long file: it is the public API's front door; the work is the engine's, and what is here is
 * each call's contract (threads, durability, errors) in its documentation.
 */
public final class Scheduler implements AutoCloseable {
    private final java.nio.file.Path logDir;
    private final Engine engine;
    private final Duration closeWait;
    private final boolean leaveJobsOnClose;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean started;
    private boolean closed;

    private Scheduler(Builder b) {
        List<Consumer<SchedulerEvent>> all = new ArrayList<>(b.listeners);
        // Off the loop's thread and at most ten times a second (PacedBoardWriter); the end of the run at once.
        all.add(new PacedBoardWriter(new StatusBoardWriter(b.logDir.resolve("status.txt"))));
        List<Consumer<SchedulerEvent>> listeners = List.copyOf(all);
        Consumer<SchedulerEvent> fanOut = e -> {
            RuntimeException first = null;
            for (Consumer<SchedulerEvent> l : listeners) {
                try {
                    l.accept(e);
                } catch (RuntimeException ex) {
                    first = first == null ? ex : first;
                }
            }
            if (first != null) {
                throw first;
            }
        };
        this.logDir = b.logDir;
        this.engine = new Engine(b.backend, b.options, b.clock, b.logDir, b.fresh, b.jobsFile, b.jobs,
                b.requirementsFile, b.requirements, fanOut, b.cluster);
        engine.maxQueuedPerUser(b.maxQueuedPerUser);
        engine.maxQueuedMibPerUser(b.maxQueuedMibPerUser);
        engine.dedup(b.dedup);
        engine.maxJobTime(b.maxJobTime.map(m -> new io.gpusched.engine.stop.Stops.MaxJobTime(m.getKey(), m.getValue())));
        this.closeWait = b.options.killGrace().plusSeconds(5);
        this.leaveJobsOnClose = b.leaveJobsOnClose;
    }

    /**
     * How many submissions not yet ended one owner may have unless {@link Builder#maxQueuedPerUser} says
     * otherwise: 200,000.
     */
    public static final int DEFAULT_MAX_QUEUED_PER_USER = Engine.DEFAULT_MAX_QUEUED_PER_USER;

    /**
     * How many MiB of commands and environments one owner's submissions not yet ended may hold unless
     * {@link Builder#maxQueuedSizePerUser} says otherwise: 1024 (1 GiB).
     */
    public static final long DEFAULT_MAX_QUEUED_MIB_PER_USER = Engine.DEFAULT_MAX_QUEUED_MIB_PER_USER;

    /** @return the log directory: the journal, the status board and each job's log are there */
    public java.nio.file.Path logDir() {
        return logDir;
    }

    /** @return a new builder */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs jobs until the queue drains (or, with {@link SchedulerOptions#watch()}, until
     * {@link #close()}). Blocks the calling thread, which becomes the scheduler's event loop.
     *
     * @return what happened; {@link RunSummary#exitCode()} follows the original tool's rule
     *     (after a {@link #close()} that came first, it returns at once, interrupted, running nothing)
     * @throws IllegalStateException if called twice
     * @throws GpuschedException if the journal or log directory cannot be used, or the jobs file is
     *     unreadable or malformed at start
     */
    public RunSummary run() {
        synchronized (this) {
            if (started) {
                throw new IllegalStateException("a Scheduler runs once; build a new one");
            }
            started = true;
            if (closed) {
                // close() won the race with run(): honour it rather than run unstoppably
                finished.countDown();
                return new RunSummary(List.of(), true);
            }
        }
        try {
            return engine.run();
        } finally {
            finished.countDown();
        }
    }

    /**
     * Queues a job after the jobs file's lines and earlier submissions. It is a job of its own, with its
     * own display number and a key ({@code s<no>}) no file line can have: the same command submitted
     * twice, or also in the jobs file, runs each time, unless it is {@code unique} (then a second
     * submission of the same job by the same owner is refused while the first is queued, running or
     * ended ok: {@link #submit(JobSpec, SubmitContext)}). Safe from any thread.
     *
     * <p>While {@link #run()} runs, this returns once the submission is in the journal (forced to disk),
     * so a scheduler killed right after runs it on restart; before {@code run()} it returns at once and
     * the submission is journaled as the run starts. After the run ended, the handle's futures fail.
     * While the journal cannot be written (disk full, file made read-only), the submission is refused:
     * the handle's futures fail with a {@link JournalUnwritableException}, nothing is queued and no
     * number is used up; once the disk takes writes again, submissions are taken again.
     *
     * <p>The job is owned by this JVM's user and runs in its working directory with the scheduler's
     * environment ({@link SubmitContext#current()}); see {@link #submit(JobSpec, SubmitContext)}.
     *
     * @param spec the job, e.g. {@code JobSpec.parse("[vram=8G] python eval.py")}; not marked {@code cancel}
     * @return a handle with the job's number and result
     * @throws IllegalArgumentException if the spec is marked {@code cancel}
     */
    public JobHandle submit(JobSpec spec) {
        return submit(spec, SubmitContext.current());
    }

    /**
     * As {@link #submit(JobSpec)}, for a job with an owner, working directory and environment of its
     * own (as a service captures them from its client). All three are journaled with the submission.
     *
     * @param spec the job; not marked {@code cancel}
     * @param context its owner, where it starts and the environment it gets
     * @return a handle with the job's number and result
     * @throws IllegalArgumentException if the spec is marked {@code cancel}, the context's working
     *     directory is not a directory now, its output file is a directory or in no directory that exists
     *     now, or (while the run runs) its {@code after} names no job of the queue (before the run, the
     *     handle's futures fail with that instead)
     * @throws QueueFullException (while the run runs) if the owner already has as many jobs not yet ended
     *     as {@link Builder#maxQueuedPerUser} allows, or they would hold more than
     *     {@link Builder#maxQueuedSizePerUser} allows; nothing is journaled and no number is used (before
     *     the run, the handle's futures fail with that instead)
     * @throws io.gpusched.model.DuplicateJobException (while the run runs) if the spec is {@code unique}
     *     (or {@link Builder#dedup} is on) and the owner has the same job (command and attributes, from the
     *     same working directory) queued, running or ended ok: nothing is journaled, and the exception
     *     names that job (before the run, the handle's futures fail with that instead)
     */
    public JobHandle submit(JobSpec spec, SubmitContext context) {
        return submit(spec, context, java.util.Optional.empty(), true);
    }

    /**
     * As {@link #submit(JobSpec, SubmitContext)}, but returns at once, without waiting for the line to be
     * durable: what {@code submit} would throw once the scheduler's loop has taken the job (an
     * {@code after} naming no job, {@link QueueFullException}, {@link io.gpusched.model.DuplicateJobException},
     * {@link JournalUnwritableException}) fails the handle's {@link JobHandle#number()} instead, and the number
     * comes once the line is forced. For a service that answers many clients: no thread of its own waits
     * for the disk (the future completes on the scheduler's loop thread, so what is chained to it must
     * be quick or hand over to another thread).
     *
     * @param spec the job; not marked {@code cancel}
     * @param context its owner, where it starts and the environment it gets
     * @return a handle with the job's number (once durable) and result
     * @throws IllegalArgumentException if the spec is marked {@code cancel}, or the context's working
     *     directory or output file is wrong now (as {@link #submit(JobSpec, SubmitContext)} says)
     */
    public JobHandle submitWithoutWaiting(JobSpec spec, SubmitContext context) {
        return submit(spec, context, java.util.Optional.empty(), false);
    }

    private JobHandle submit(JobSpec spec, SubmitContext context, java.util.Optional<CompletableFuture<Grant>> lease,
                             boolean waitForIt) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(context, "context");
        if (spec.cancel()) {
            throw new IllegalArgumentException("a submission cannot be marked cancel: '" + spec.command() + "'");
        }
        // A root scheduler does not look at another user's paths: whether one exists is for that user's
        // rights to tell (a root probe would answer for directories they cannot see). Its job finds out
        // as its owner, and fails with gpusched-runas's one line if the directory or output is wrong.
        boolean othersPaths = "root".equals(System.getProperty("user.name")) && !context.owner().equals("root");
        if (!othersPaths && !java.nio.file.Files.isDirectory(context.workDir())) {
            throw new IllegalArgumentException("cannot submit '" + spec.command() + "': working directory "
                    + context.workDir() + " is not a directory");
        }
        // Checked now, while the submitter can fix it: at launch the job would only fail, or stay pending.
        context.output().filter(out -> !othersPaths).ifPresent(out -> {
            String wrong = java.nio.file.Files.isDirectory(out) ? out + " is a directory; name a file in it"
                    : !java.nio.file.Files.isDirectory(out.getParent())
                    ? out + " is in " + out.getParent() + ", which is not a directory" : "";
            if (!wrong.isEmpty()) {
                throw new IllegalArgumentException("cannot submit '" + spec.command() + "': output " + wrong);
            }
        });
        CompletableFuture<JobResult> result = new CompletableFuture<>();
        CompletableFuture<Integer> accepted = engine.submit(spec, context, result, lease);
        boolean running;
        synchronized (this) {
            running = waitForIt && started && !closed && !engine.onLoopThread();
        }
        if (running) {
            try {
                accepted.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof IllegalArgumentException refused) {
                    throw new IllegalArgumentException(refused.getMessage(), refused);
                }
                if (e.getCause() instanceof QueueFullException full) {
                    throw new QueueFullException(full);
                }
                if (e.getCause() instanceof io.gpusched.model.DuplicateJobException same) {
                    throw new io.gpusched.model.DuplicateJobException(same.no(), same.state());
                }
                // otherwise the run ended first, or the journal refused it: the handle's futures say so
            }
        }
        return new JobHandle(spec.command(), accepted, result, this::cancel, () -> engine.withdraw(accepted));
    }

    /**
     * Why a job could never run on this machine, asked before it is submitted, from any thread and
     * without waiting for the scheduler's loop: more memory per GPU than any allowed GPU has (with the
     * margin), more GPUs than are present or allowed, a pinned GPU the machine lacks. The reason is the
     * one the scheduler gives a queued job it ends infeasible; the requirement rules in force are applied
     * first. A service refuses such a submission instead of queuing it ({@code PROTOCOL.md}:
     * {@code infeasible}); {@link #submit} itself still takes it, and the job ends infeasible.
     *
     * @param spec the job as it would be submitted
     * @return the reason; empty when it could run, or before the first round has read the GPUs
     */
    public java.util.Optional<String> neverRuns(JobSpec spec) {
        Objects.requireNonNull(spec, "spec");
        return engine.neverRuns(spec);
    }

    /**
     * What the scheduler would do with a job if it were submitted now, from any thread while
     * {@link #run()} runs: start it (on which GPUs), keep it waiting (with the reason the queue would
     * show), or never run it (infeasible, or an {@code after} that names no job or one that failed).
     * Nothing is queued or journaled, and no number is used.
     *
     * @param spec the job as it would be submitted
     * @param context who would submit it (fair share is per owner)
     * @return the preview
     * @throws GpuschedException if the scheduler is not running
     */
    public io.gpusched.model.SubmitPreview preview(JobSpec spec, SubmitContext context) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(context, "context");
        return await(() -> engine.preview(spec, context));
    }

    /**
     * Queues a request for GPUs whose command the caller runs itself, as {@code gpusched srun} does: it is
     * ordered and placed like a submission ({@link #submit(JobSpec, SubmitContext)}; the spec's command is
     * what the holder says it runs), and when placed {@link Lease#granted()} completes with the GPUs and
     * the environment to run with. From then on, every process carrying the grant's token is the job's:
     * its VRAM is measured and judged, a cancel or timeout signals it. The holder reports the command's
     * end with {@link #leaseEnded}; the scheduler never runs a lease's command itself, nor again after a
     * restart. If the scheduler stops while the lease is granted, the command is left running (it is the
     * holder's) and a restarted scheduler keeps its GPUs for it; a lease still waiting when the scheduler
     * stops is cancelled when it starts again, as nobody waits for it any more.
     *
     * @param spec the request: {@code vram}, {@code gpus}, {@code timeout}, priority and the rest as for a
     *     submission; not marked {@code cancel}
     * @param context its owner, working directory and environment (journaled, for the record)
     * @return the lease; its job's number once journaled
     * @throws IllegalArgumentException as for {@link #submit(JobSpec, SubmitContext)}
     */
    public Lease lease(JobSpec spec, SubmitContext context) {
        CompletableFuture<Grant> granted = new CompletableFuture<>();
        return new Lease(submit(spec, context, java.util.Optional.of(granted), true), granted);
    }

    /**
     * A lease holder says how its command ended, or that it is gone without knowing, from any thread
     * while {@link #run()} runs.
     *
     * @param no the lease's display number
     * @param token the grant's token ({@link Grant#token()}), which proves the holder
     * @param status the command's exit status, 0 to 255 (128 + N for signal N); empty when the holder
     *     lost track of it (then the job ends once no process carries its token, recorded as failed with
     *     status 255)
     * @return what the scheduler made of it
     * @throws GpuschedException if the scheduler is not running
     */
    public LeaseEnd leaseEnded(int no, String token, java.util.OptionalInt status) {
        if (status.isPresent() && (status.getAsInt() < 0 || status.getAsInt() > 255)) {
            throw new IllegalArgumentException("an exit status is 0 to 255, got " + status.getAsInt());
        }
        return await(() -> engine.leaseEnded(no, token, status));
    }

    /**
     * Whether a lease is still held with this token: a holder that lost its connection (the scheduler
     * restarted) asks before it goes on, from any thread while {@link #run()} runs.
     *
     * @param no the lease's display number
     * @param token the grant's token
     * @return true while the job is granted under that token and has not ended
     * @throws GpuschedException if the scheduler is not running
     */
    public boolean leaseHeld(int no, String token) {
        return await(() -> engine.leaseHeld(no, token));
    }

    /**
     * {@link #leaseHeld} for a holder that goes on with the lease (its {@code srun} client, back after the
     * scheduler restarted), from any thread while {@link #run()} runs: where it is held under this token,
     * the job's result, which completes once the job ends and is journaled, as the result of the
     * {@link #lease} call that queued it would have.
     *
     * @param no the lease's display number
     * @param token the grant's token
     * @return the result to come; empty when the lease is not held under that token
     * @throws GpuschedException if the scheduler is not running
     */
    public java.util.Optional<CompletableFuture<JobResult>> leaseAttach(int no, String token) {
        return await(() -> engine.leaseAttach(no, token));
    }

    /**
     * Cancels a job of the queue by its display number, from any thread while {@link #run()} runs: a
     * running job gets SIGTERM (SIGKILL after the kill grace) and ends cancelled; a pending one is
     * journaled cancelled and never runs. A jobs-file line cancelled this way stays cancelled.
     *
     * @param no the job's display number
     * @return what happened
     * @throws GpuschedException if the scheduler is not running
     */
    public CancelOutcome cancel(int no) {
        return await(() -> engine.cancel(no));
    }

    /**
     * {@link #cancel(int)} for a caller who may cancel only some owners' jobs: {@code ownerCheck} is told
     * the job's owner and throws to refuse, in the same step of the scheduler's loop as the cancel, so no
     * job can take the number between the check and the cancel (asked apart, a number no job had yet
     * could be another user's by the time it was cancelled). A number no job has is
     * {@link CancelOutcome#NOT_FOUND}, checked against no one.
     *
     * @param no the job's display number
     * @param ownerCheck told the job's owner on the scheduler's loop thread (so quick, and waiting on
     *     nothing); what it throws is thrown here, and the job is left alone
     * @return what happened
     * @throws GpuschedException if the scheduler is not running
     */
    public CancelOutcome cancel(int no, java.util.function.Consumer<String> ownerCheck) {
        Objects.requireNonNull(ownerCheck, "ownerCheck");
        return await(() -> engine.cancel(no, ownerCheck));
    }

    /**
     * A job's owner, the file its output goes to ({@link #outputFile(int)}) and where it stands
     * ({@link #state(int)}), from any thread while {@link #run()} runs, read in one step of the
     * scheduler's loop: what a caller is checked against is the owner of the output named.
     *
     * @param no the job's display number
     * @return them; empty when no job has that number
     * @throws GpuschedException if the scheduler is not running
     */
    public java.util.Optional<io.gpusched.model.JobLogs> logs(int no) {
        return await(() -> engine.logs(no));
    }

    /**
     * Cancels every job of one owner that has not ended, from any thread while {@link #run()} runs, each
     * as {@link #cancel(int)} would: running ones are stopped, pending ones (and those waiting to run
     * again) never run. Jobs-file lines belong to the scheduler's own user. All in one step of the
     * scheduler's loop, so no job of theirs starts halfway through.
     *
     * @param owner the user, as {@link SubmitContext#owner()} names them
     * @return each job's display number and what happened, in number order; empty when they had none
     * @throws GpuschedException if the scheduler is not running
     */
    public java.util.SortedMap<Integer, CancelOutcome> cancelAll(String owner) {
        Objects.requireNonNull(owner, "owner");
        return await(() -> engine.cancelAll(owner));
    }

    /**
     * Where a job is now, from any thread while {@link #run()} runs, as the scheduler's loop knows it
     * (unlike a {@link #snapshot()}, which may be a round old).
     *
     * @param no the job's display number
     * @return running, pending (also waiting to run again) or ended; empty when no job has that number
     * @throws GpuschedException if the scheduler is not running
     */
    public java.util.Optional<io.gpusched.model.JobStage> state(int no) {
        return await(() -> engine.state(no));
    }

    /**
     * Who a job runs for, from any thread while {@link #run()} runs: the user that submitted it, or this
     * process's user for a jobs-file line.
     *
     * @param no the job's display number
     * @return its owner; empty when no job has that number
     * @throws GpuschedException if the scheduler is not running
     */
    public java.util.Optional<String> owner(int no) {
        return await(() -> engine.owner(no));
    }

    /**
     * The file a job's output goes to when it is not in the log directory, from any thread while
     * {@link #run()} runs: the path it was submitted with ({@link SubmitContext#output()}), or
     * {@code <workDir>/gpusched-<no>.log} for a job a scheduler running as root runs as its owner. The
     * file may not exist yet (the job has not started).
     *
     * @param no the job's display number
     * @return that file; empty when the job's output is in the log directory
     *     ({@code job<NNN>_gpu<i>.log}, one per attempt's GPUs) or no job has that number
     * @throws GpuschedException if the scheduler is not running
     */
    public java.util.Optional<Path> outputFile(int no) {
        return await(() -> engine.outputFile(no));
    }

    /**
     * Pauses a GPU, from any thread while {@link #run()} runs: running jobs continue; no new job is placed
     * there until {@link #resume(int)}; a job that needs it waits (it never becomes infeasible). Journaled,
     * so it holds across restarts.
     *
     * @param gpu the GPU index
     * @throws GpuschedException if the scheduler is not running or has no such GPU
     */
    public void pause(int gpu) {
        await(() -> engine.pause(gpu, true));
    }

    /**
     * Resumes a paused GPU (see {@link #pause(int)}).
     *
     * @param gpu the GPU index
     * @throws GpuschedException if the scheduler is not running or has no such GPU
     */
    public void resume(int gpu) {
        await(() -> engine.pause(gpu, false));
    }

    /**
     * The queue as the scheduler's loop last published it (every round, and whenever a job starts or
     * ends), readable from any thread without waiting for the loop.
     *
     * @return the snapshot; empty before the first round
     */
    public java.util.Optional<QueueSnapshot> snapshot() {
        return engine.snapshot();
    }

    /**
     * When {@link #snapshot()} shows every change the scheduler's loop had begun when this was called:
     * a round in progress (whose jobs may already be running, their output already written), a
     * submission whose number its client may already hold, a job's end or a cancel the loop took in.
     * Read the snapshot once it completes, and a job its asker saw start, or was told the number of, is
     * in it. Never blocks; call from any thread.
     *
     * @return a future that never completes exceptionally: at once when the snapshot already shows them,
     *     before the first round begins, and for a {@link Simulation} (its board comes at the end), else
     *     on the loop's thread when the board that shows them is published. While the scheduler stops,
     *     or while its disk does not answer, no board comes: bound the wait
     *     ({@link java.util.concurrent.CompletableFuture#completeOnTimeout}), and do little on the thread
     *     that completes it
     */
    public java.util.concurrent.CompletableFuture<Void> whenSnapshotCurrent() {
        return engine.whenSnapshotCurrent();
    }

    /**
     * A job's GPU memory over time, readable from any thread without waiting for the loop: sampled where
     * the scheduler measures peaks (every {@link SchedulerOptions#sampleInterval()} while it runs), kept
     * for running jobs and the last 256 that ended in this run.
     *
     * @param no the job's display number
     * @return its timeline; empty for a job not sampled in this run (pending, ended in an earlier run,
     *     or long ago)
     */
    public java.util.Optional<VramTimeline> timeline(int no) {
        return engine.timeline(no);
    }

    private <T> T await(java.util.function.Supplier<CompletableFuture<T>> call) {
        synchronized (this) {
            if (!started) {
                throw new GpuschedException("the scheduler is not running yet: call run() first");
            }
        }
        if (engine.onLoopThread()) {
            throw new IllegalStateException("cancel, pause and resume cannot be called from a scheduler listener");
        }
        try {
            return call.get().join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /**
     * Drains the scheduler, from any thread while {@link #run()} runs: it starts no job from now on
     * (queued ones, and submissions still taken, stay in the journal for the next scheduler on this log
     * directory), lets the running ones end as they would (their outcomes recorded, cancel and timeouts
     * still apply; srun commands too), and then {@code run()} returns an interrupted summary. Unlike
     * {@link #close()} it does not wait. Asking again changes nothing.
     *
     * @return how many jobs were running when the drain began
     * @throws GpuschedException if the scheduler is not running
     */
    public int drain() {
        return await(engine::drain);
    }

    /**
     * Stops dispatching and waits for {@link #run()} to return (at most the kill grace plus a few
     * seconds). By default it sends SIGTERM to every running job's session, SIGKILL after the kill
     * grace, and records them as interrupted in the journal (a restart runs them again). Built with
     * {@link Builder#leaveJobsRunningOnClose(boolean) leaveJobsRunningOnClose(true)}, it leaves them
     * running instead: see {@link #closeLeavingJobsRunning()}. Safe from any thread, including a
     * shutdown hook; idempotent (the first close decides). If {@code run()} has not been called yet this
     * returns at once, and a later {@code run()} returns an interrupted, empty summary without running
     * anything.
     */
    @Override
    public void close() {
        close(leaveJobsOnClose);
    }

    /**
     * Stops the scheduler and leaves its running jobs running, whatever it was built with: it starts
     * nothing more, signals no job, and waits for {@link #run()} to return. Each running job stays
     * journaled as started; its wrapper writes its exit status to its run's exit file when it ends. The
     * next scheduler on the same log directory takes each one up (its GPUs stay held, its memory is
     * measured from then on, a cancel stops it) or, if it ended meanwhile, records the status it left,
     * as after a scheduler that was killed. A job already being stopped (a cancel, a timeout) is seen
     * to its end first, so that is recorded as asked; leases are left to their holders, as by
     * {@link #close()}. Safe from any thread; idempotent with {@link #close()} (the first decides).
     */
    public void closeLeavingJobsRunning() {
        close(true);
    }

    private void close(boolean leaveJobs) {
        synchronized (this) {
            closed = true;
            if (!started) {
                return;
            }
        }
        engine.stop(leaveJobs);
        try {
            finished.await(closeWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Configures a {@link Scheduler}. Checks each value as it is set; {@link #build()} has no side effects. */
    public static final class Builder {
        private GpuBackend backend;
        private Optional<Path> jobsFile = Optional.empty();
        private Optional<Path> requirementsFile = Optional.empty();
        private io.gpusched.jobs.Requirements requirements = io.gpusched.jobs.Requirements.NONE;
        private List<JobSpec> jobs = List.of();
        private SchedulerOptions options = SchedulerOptions.defaults();
        private Path logDir = Path.of("gpusched_logs");
        private final List<Consumer<SchedulerEvent>> listeners = new ArrayList<>();
        private InstantSource clock = monotonic();
        private boolean fresh;
        private int maxQueuedPerUser = Engine.DEFAULT_MAX_QUEUED_PER_USER;
        private long maxQueuedMibPerUser = Engine.DEFAULT_MAX_QUEUED_MIB_PER_USER;
        private boolean dedup;
        private java.util.Optional<java.util.Map.Entry<java.time.Duration, io.gpusched.jobs.Scheduling.OnTimeout>> maxJobTime =
                java.util.Optional.empty();
        private boolean leaveJobsOnClose;
        private Optional<io.gpusched.cluster.ClusterDriver> cluster = Optional.empty();

        private Builder() {
        }

        /**
         * Caps how many submissions not yet ended (pending, held, running, waiting to run again) one owner
         * ({@link SubmitContext#owner()}) may have: one more is refused with {@link QueueFullException},
         * before it is journaled or numbered. Jobs-file lines are not counted.
         *
         * @param max at least 1 (default 200,000: room for one user's 100,000-job sweep)
         * @return this
         * @throws IllegalArgumentException if {@code max} is below 1
         */
        public Builder maxQueuedPerUser(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("--max-queued-per-user must be at least 1, got " + max);
            }
            this.maxQueuedPerUser = max;
            return this;
        }

        /**
         * Caps how much one owner's submissions not yet ended may hold of what they chose: the UTF-8 bytes
         * of their commands and lines, directories, outputs, request ids and environments
         * (counted as the journal folds), which the journal keeps on disk and the
         * scheduler in memory until each ends. A submission that would take them past it is refused with
         * {@link QueueFullException}, before it is journaled or numbered. Without it one user could send
         * 200,000 submissions ({@link #maxQueuedPerUser}) of a 1 MiB environment each.
         *
         * @param mib 1 to 2^31 − 1 (default 1024: a 100,000-job sweep with a 10 KB environment each)
         * @return this
         * @throws IllegalArgumentException if {@code mib} is out of that range
         */
        public Builder maxQueuedSizePerUser(long mib) {
            if (mib < 1 || mib > Engine.MAX_QUEUED_MIB) {
                throw new IllegalArgumentException("--max-queued-size-per-user must be 1 to " + Engine.MAX_QUEUED_MIB
                        + " MiB, got " + mib);
            }
            this.maxQueuedMibPerUser = mib;
            return this;
        }

        /**
         * Treats every submission as {@code unique} ({@code gpusched serve --dedup}): one whose owner has the
         * same job (command and attributes, same working directory) queued, running or ended ok is not
         * queued, and {@link #submit} throws a {@link io.gpusched.model.DuplicateJobException} naming that job.
         * An {@code srun} lease ({@link Scheduler#lease}) is exempt (running the same command again in a
         * terminal is the usual thing to do); its own {@code unique} still counts.
         *
         * @param on whether to (default off: only jobs marked {@code unique} are)
         * @return this
         */
        public Builder dedup(boolean on) {
            this.dedup = on;
            return this;
        }

        /**
         * Limits how long any job's attempt runs ({@code gpusched serve --max-job-time}): past it the job is
         * stopped (SIGTERM, SIGKILL after the kill grace) and, with {@code REQUEUE}, queued again at the back
         * of the queue, waiting from its stop, its attempt not counted (mgpu's context switch; journaled
         * {@code requeued} with reason {@code max_job_time}); with {@code FAIL}, it ends {@code timeout}. A
         * job's own {@code timeout=} no longer than the limit wins, with its own {@code on-timeout=}. An
         * {@code srun} lease over it is failed either way (its client cannot take it up later); a job
         * placed by a cluster is left to the cluster's own limit.
         *
         * @param limit the longest an attempt runs; positive
         * @param onLimit what reaching it does: {@code REQUEUE} or {@code FAIL}
         * @return this
         * @throws IllegalArgumentException if {@code limit} is not positive
         */
        public Builder maxJobTime(java.time.Duration limit, io.gpusched.jobs.Scheduling.OnTimeout onLimit) {
            Objects.requireNonNull(limit, "limit");
            Objects.requireNonNull(onLimit, "onLimit");
            if (limit.isNegative() || limit.isZero()) {
                throw new IllegalArgumentException("--max-job-time must be positive, got " + io.gpusched.jobs.Units.formatDuration(limit));
            }
            this.maxJobTime = java.util.Optional.of(java.util.Map.entry(limit, onLimit));
            return this;
        }

        /**
         * @param backend where GPU state comes from (required)
         * @return this
         */
        public Builder backend(GpuBackend backend) {
            this.backend = Objects.requireNonNull(backend, "backend");
            return this;
        }

        /**
         * @param file a jobs file, re-read every round (lines may be appended, deleted, reordered)
         * @return this
         */
        public Builder jobsFile(Path file) {
            this.jobsFile = Optional.of(file);
            return this;
        }

        /**
         * Requirement rules ({@code gpusched --requirements FILE}): each job's undeclared attributes come
         * from the first rule matching its command, or the file's default; the file is read now and
         * re-read live, as the jobs file is. Submissions get the same rules.
         *
         * @param file a requirements file (see {@link io.gpusched.jobs.RequirementsParser})
         * @return this
         * @throws io.gpusched.jobs.RequirementsParser.RequirementsException if it is missing or malformed,
         *     with a one-line message naming the file, the line and the fix
         */
        public Builder requirementsFile(Path file) {
            this.requirements = io.gpusched.jobs.RequirementsParser.read(file);
            this.requirementsFile = Optional.of(file);
            return this;
        }

        /**
         * @param jobs a fixed job list, used when there is no jobs file
         * @return this
         */
        public Builder jobs(List<JobSpec> jobs) {
            this.jobs = List.copyOf(jobs);
            return this;
        }

        /**
         * @param options tunables
         * @return this
         */
        public Builder options(SchedulerOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * @param dir per-job logs, the journal and the status board (default {@code gpusched_logs})
         * @return this
         */
        public Builder logDir(Path dir) {
            this.logDir = Objects.requireNonNull(dir, "logDir");
            return this;
        }

        /**
         * @param listener receives every event, on the scheduler's thread
         * @return this
         */
        public Builder listener(Consumer<SchedulerEvent> listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * @param clock time source for durations and deadlines (default: monotonic)
         * @return this
         */
        public Builder clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param fresh delete the journal before running, so every job runs again
         * @return this
         */
        public Builder fresh(boolean fresh) {
            this.fresh = fresh;
            return this;
        }

        /**
         * What {@link Scheduler#close()} does with running jobs: with {@code true}, it leaves them
         * running for the next scheduler on the same log directory to take up
         * ({@link Scheduler#closeLeavingJobsRunning()}), as a daemon that is restarted or upgraded must;
         * with {@code false} (the default), it terminates them and they run again on restart.
         *
         * @param leave whether close leaves running jobs running
         * @return this
         */
        public Builder leaveJobsRunningOnClose(boolean leave) {
            this.leaveJobsOnClose = leave;
            return this;
        }

        /**
         * Runs the jobs on a cluster that places them itself (gpusched-slurm's executor gives Slurm's):
         * each attempt is handed to it in queue order instead of started here, and judged on what it
         * measured there. The backend then stands for no GPU of this machine (give one with none).
         *
         * @param driver the cluster's driver
         * @return this builder
         */
        public Builder cluster(io.gpusched.cluster.ClusterDriver driver) {
            this.cluster = Optional.of(java.util.Objects.requireNonNull(driver, "driver"));
            return this;
        }

        /**
         * The requirement rules, as given (not read from a file, so not re-read while it runs).
         *
         * @param rules the rules; {@link io.gpusched.jobs.Requirements#NONE} for none
         * @return this builder
         */
        public Builder requirements(io.gpusched.jobs.Requirements rules) {
            this.requirements = java.util.Objects.requireNonNull(rules, "rules");
            return this;
        }

        /**
         * @return a new scheduler
         * @throws IllegalStateException if no backend was set, or both a jobs file and a job list were
         */
        public Scheduler build() {
            if (backend == null) {
                throw new IllegalStateException("a backend is required: .backend(GpuBackends.detect(BackendOptions.none()))");
            }
            if (jobsFile.isPresent() && !jobs.isEmpty()) {
                throw new IllegalStateException("give either a jobs file or a job list, not both");
            }
            return new Scheduler(this);
        }

        /** Wall time at start, advanced by {@code System.nanoTime}: immune to clock steps. */
        private static InstantSource monotonic() {
            Instant origin = Instant.now();
            long base = System.nanoTime();
            return () -> origin.plusNanos(System.nanoTime() - base);
        }
    }
}

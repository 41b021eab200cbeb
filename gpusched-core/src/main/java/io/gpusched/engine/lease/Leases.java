package io.gpusched.engine.lease;

import io.gpusched.engine.ending.Orphans;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.spawn.JobLauncher;
import io.gpusched.engine.spawn.RunDriver;
import io.gpusched.engine.spawn.RunFiles;
import io.gpusched.engine.spawn.RunNames;
import io.gpusched.engine.spawn.RunningJob;

import io.gpusched.model.Grant;
import io.gpusched.model.LeaseEnd;
import io.gpusched.engine.table.JobTable;
import io.gpusched.journal.RunHandle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Runs that a client executes ({@code gpusched srun}): the scheduler grants GPUs and the client runs the
 * command in its own terminal, so the run has no session of its own. Everything else the scheduler does
 * to a run goes by the run's token instead, which every process of the command inherits from the
 * grant's environment (and which survives {@code setsid}): attribution, signals, and whether anything
 * of the run is left.
 *
 * <p>A lease run is journaled like any other, with a stand-in session id from a range no Linux pid
 * reaches ({@link RunHandle.Lease}). Its exit status is what the client reports; the scheduler writes
 * it to the run's exit file, so a restarted scheduler settles a lease that ended while it was down
 * exactly like an orphan job, and takes up one still running ({@link Orphans}). A client that goes away without a status ends the run once no process
 * carries its token, as failed with status {@link #UNKNOWN_EXIT}: a lease is never run again by the
 * scheduler, since its command is the client's. Loop thread only, except where a method says otherwise.
 */
public final class Leases implements RunDriver {
    /** The exit status recorded for a lease whose client went away before saying how its command ended. */
    public static final int UNKNOWN_EXIT = 255;
    /** The exit status recorded for a lease a stop SIGKILLed before its client said how its command ended. */
    public static final int KILLED_EXIT = 128 + 9;
    /**
     * How long a restarted scheduler keeps a lease whose command it cannot see, for its client to come
     * back and report: between the grant and the command's start no process carries the token yet.
     */
    static final Duration RECONNECT_GRACE = Duration.ofSeconds(30);

    private final JobLauncher launcher;
    private final RunFiles runFiles;
    private final RunNames names;
    private final ProcTable procFs;
    private final Reporter reporter;
    private final LoopClock clock;
    /** Clients waiting for or holding a grant, by job key; each leaves when its job ends (on any thread). */
    private final Map<String, Waiter> waiters = new java.util.concurrent.ConcurrentHashMap<>();

    /** A client's side of one lease: its grant, and the exit status it reports. */
    public static final class Waiter {
        final CompletableFuture<Grant> granted;
        final CompletableFuture<Integer> exit = new CompletableFuture<>();
        /** The client went away while holding the grant, without a status. */
        boolean gone;
        /**
         * Until when, on the loop's ticker, a gone client may still come back before an empty run is ended
         * (a restart's grace); empty for none. On the ticker because a scheduler starting at boot may see
         * NTP set the wall clock back a day in its first seconds: a wall-clock grace then held the GPUs a day.
         */
        java.util.OptionalLong graceUntilNanos = java.util.OptionalLong.empty();
        int no;
        /** Whose lease it is: only their processes carrying its token are its run's. */
        final String owner;

        /**
         * @param granted completed with the grant when the lease is placed
         * @param owner who the lease is for
         */
        public Waiter(CompletableFuture<Grant> granted, String owner) {
            this.granted = granted;
            this.owner = owner;
        }
    }

    public Leases(JobLauncher launcher, RunFiles runFiles, RunNames names, ProcTable procFs, Reporter reporter, LoopClock clock) {
        this.launcher = launcher;
        this.runFiles = runFiles;
        this.names = names;
        this.procFs = procFs;
        this.reporter = reporter;
        this.clock = clock;
    }

    /** A client waits for this job's grant, until {@code result} completes. */
    public void register(String key, int no, Waiter w, CompletableFuture<?> result) {
        w.no = no;
        waiters.put(key, w);
        result.whenComplete((r, e) -> waiters.remove(key, w));
    }

    /**
     * Takes up a lease a dead scheduler granted: its client is away (its connection died with that
     * scheduler) and has {@link #RECONNECT_GRACE} to come back and report, after which the run ends
     * once no process carries its token.
     *
     * @return completes with the exit status the client reports (or {@link #UNKNOWN_EXIT})
     */
    public CompletableFuture<Integer> adopt(String key, int no, String owner) {
        Waiter w = new Waiter(new CompletableFuture<>(), owner);
        w.no = no;
        w.gone = true;
        w.graceUntilNanos = java.util.OptionalLong.of(clock.nanos() + RECONNECT_GRACE.toNanos());
        waiters.put(key, w);
        w.exit.whenComplete((c, e) -> waiters.remove(key, w));
        return w.exit;
    }

    @Override
    public Started start(Launch l) throws IOException {
        String key = l.jobVars().get("GPUSCHED_JOB_KEY");
        Waiter w = waiters.get(key);
        if (w == null || w.gone) {
            throw new IOException("its srun client is gone");
        }
        long run = Long.parseLong(l.runToken().substring(l.runToken().lastIndexOf('#') + 1));
        long sid = new RunHandle.Lease(run).pgid();
        // The stand-in session id, where a launched process's wrapper writes its pid: a restart then knows
        // the grant was made.
        Files.write(l.files().pid(), (sid + "\n").getBytes(StandardCharsets.US_ASCII));
        Map<String, String> env = launcher.runEnvironment(l.gpus(), l.snapshot(), l.jobVars(), l.runToken(),
                l.runAs().map(RunDriver.RunAs::user));
        env.putIfAbsent("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        w.granted.complete(new Grant(w.no, l.gpus(), env));
        return new Started(sid, w.exit);
    }

    /**
     * A client says how its command ended ({@code status}) or that it is gone without knowing
     * (empty). Checked against the run's token, which only the grant's holder has.
     *
     * @param job the lease's job, as the table has it now
     */
    public LeaseEnd ended(JobTable.Job job, String token, OptionalInt status) {
        Optional<RunningJob> running = job.run();
        String key = job.key();
        if (job.terminal()) {
            return LeaseEnd.ALREADY_ENDED;
        }
        if (!tokenMatches(running, job, token)) {
            return LeaseEnd.NOT_HELD;
        }
        long run = running.map(rj -> rj.run).orElse(job.runNo().orElse(0));
        Waiter w = waiters.get(key);
        if (status.isEmpty()) {
            if (w != null) {
                w.gone = true; // the next round ends it once nothing carries its token
            }
            return LeaseEnd.RECORDED;
        }
        int no = job.no();
        try {
            Files.createDirectories(runFiles.dir());
            Files.write(runFiles.exitFile(no, run), (status.getAsInt() + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            reporter.warnOnce("cannot write " + runFiles.exitFile(no, run) + ": " + e.getMessage()
                    + " — job " + no + "'s status is journaled when it is reaped, but a crash before then loses it");
        }
        if (w != null && running.isPresent()) {
            w.exit.complete(status.getAsInt());
        }
        return LeaseEnd.RECORDED;
    }

    /** @return whether the lease is held under this token; a holder that came back is no longer gone */
    public boolean held(JobTable.Job job, String token) {
        if (job.terminal() || !tokenMatches(job.run(), job, token)) {
            return false;
        }
        Waiter w = waiters.get(job.key());
        if (w != null) {
            w.gone = false;
        }
        return true;
    }

    private boolean tokenMatches(Optional<RunningJob> running, JobTable.Job job, String token) {
        OptionalLong run = running.map(rj -> OptionalLong.of(rj.run)).orElse(job.runNo());
        OptionalLong sid = running.map(rj -> OptionalLong.of(rj.pid)).orElse(job.session());
        return run.isPresent() && sid.isPresent() && RunHandle.ofPgid(sid.getAsLong()) instanceof RunHandle.Lease
                && names.token(run.getAsLong()).equals(token);
    }

    /** @return the entry a lease run's processes carry, for a job whose started lease has no outcome yet; else empty */
    public Optional<String> entryOf(JobTable.Job r) {
        return r.startedAs().filter(h -> h instanceof RunHandle.Lease).isPresent() && r.runNo().isPresent()
                ? Optional.of(names.entry(r.runNo().getAsLong())) : Optional.empty();
    }

    /**
     * Ends the leases whose clients went away once no process of theirs is left, and the leases a stop
     * (cancel, timeout, {@code --max-job-time}) has SIGKILLed, whoever holds their connection.
     */
    public void reapAbandoned(List<RunningJob> running) {
        for (RunningJob rj : running) {
            Waiter w = waiters.get(rj.key());
            if (w != null && rj.killEscalated && !w.exit.isDone()) {
                // The grace is over and every carrier of the token got SIGKILL: the run ends as a submitted
                // job's does when its leader is killed, and the sweep kills what still carries the token. Its
                // client's word is not waited for: a client that holds its connection and never says
                // `exited` (or starts a new carrier after the kill) would keep the GPUs past any limit.
                reporter.warnOnce("job " + rj.no + ": stopped and SIGKILLed; its srun client has not said how its command"
                        + " ended, so it ends now (recorded as " + KILLED_EXIT + ")");
                w.exit.complete(KILLED_EXIT);
                continue;
            }
            if (w != null && w.gone && !w.exit.isDone() && (w.graceUntilNanos.isEmpty() || clock.nanos() - w.graceUntilNanos.getAsLong() >= 0)
                    && procFs.carriers(names.entry(rj.run), w.owner).isEmpty()) {
                reporter.warnOnce("job " + rj.no + ": its srun client went away before its command ended; nothing of"
                        + " the run is left, so it ends now with exit status unknown (recorded as " + UNKNOWN_EXIT + ")");
                w.exit.complete(UNKNOWN_EXIT);
            }
        }
    }

    /** Every process of a lease run, for signals: those carrying its token. */
    List<Long> members(RunningJob rj) {
        return procFs.carriers(names.entry(rj.run));
    }
}

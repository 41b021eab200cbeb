package io.gpusched.engine.ending;

import io.gpusched.engine.lease.Leases;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.Inbox;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.proc.SessionSignals;
import io.gpusched.engine.queue.Settlement;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.spawn.RunFiles;
import io.gpusched.engine.spawn.RunNames;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.table.JobTable;

import io.gpusched.cluster.ClusterAttempt;
import io.gpusched.cluster.ClusterDriver;
import io.gpusched.cluster.ClusterRun;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.RunHandle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Takes up the runs a dead scheduler left going: each becomes a running job again, so its GPUs stay held
 * by its declaration (not just by what it happens to use now), its memory is attributed and its peak
 * and verdict are measured from here on, a timeout still counts from its real start, and {@code cancel}
 * stops it. It is never started again. Its end is read as for any orphan: the exit status its wrapper
 * wrote (a lease's: what its client reports), or none, when it was killed before its command ended —
 * then it is pending again, as the original tool requeues an interrupted job.
 *
 * <p>A run is taken up when the journal names its run (a journal of the original tool does not) and its
 * session's leader still lives; otherwise the scheduler only waits for its session to go
 * ({@link Settlement}). It also settles the {@code launching} intents a dead scheduler left
 * ({@link #recoverLaunches}). Loop thread only.
 */
public final class Orphans {
    private final RunFiles runFiles;
    private final RunNames names;
    private final ProcTable procFs;
    private final SessionSignals signals;
    private final Leases leases;
    private final JobTable table;
    private final Durability durability;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Consumer<Inbox.Message> inbox;
    /** The cluster a dead scheduler's runs were handed to, for a run on one (Slurm); empty for a local run. */
    private final Optional<ClusterDriver> cluster;
    /** The GPUs of the last read, for what a share of one GPU came to on the GPU its run holds. */
    private final java.util.function.Supplier<java.util.List<io.gpusched.gpu.GpuStat>> gpus;
    /** Goes on with a stop a dead scheduler journaled for a run taken up ({@link io.gpusched.engine.stop.Stops#resume}). */
    private final io.gpusched.engine.stop.Stops stops;

    public Orphans(RunFiles runFiles, RunNames names, ProcTable procFs, SessionSignals signals, Leases leases, JobTable table,
            Durability durability, Reporter reporter, LoopClock clock, Consumer<Inbox.Message> inbox, java.util.function.Supplier<java.util.List<io.gpusched.gpu.GpuStat>> gpus,
            Optional<ClusterDriver> cluster, io.gpusched.engine.stop.Stops stops) {
        this.stops = stops;
        this.cluster = cluster;
        this.gpus = gpus;
        this.runFiles = runFiles;
        this.names = names;
        this.procFs = procFs;
        this.signals = signals;
        this.leases = leases;
        this.table = table;
        this.durability = durability;
        this.reporter = reporter;
        this.clock = clock;
        this.inbox = inbox;
    }

    /**
     * @param spec the job
     * @param r its row: started, no outcome
     * @param no its display number
     * @return whether it is a running job now
     */
    public boolean adopt(JobSpec spec, JobTable.Job r, int no) {
        if (cluster.isPresent()) {
            return adoptFromCluster(cluster.get(), spec, r, no);
        }
        if (r.runNo().isEmpty() || r.session().isEmpty()) {
            return false;
        }
        long run = r.runNo().getAsLong();
        long sid = r.session().getAsLong();
        boolean lease = r.startedAs().get() instanceof RunHandle.Lease;
        if (!lease && !leaderIsTheRuns(no, run, sid, runUser(r))) {
            return false;
        }
        Optional<CompletableFuture<?>> leader = lease ? Optional.empty() : procFs.onExit(sid);
        if (!lease && leader.isEmpty()) {
            return false;
        }
        if (lease && runFiles.exitCode(no, run).isPresent()) {
            return false; // its client said how it ended while no scheduler ran: settled as an orphan
        }
        OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : spec.vramMib();
        if (r.nextVramMib().isEmpty() && spec.share().isPresent() && r.gpus().size() == 1) {
            // A share's declaration is what it came to on its GPU, as when it started: the GPU stays held by it.
            int gpu = r.gpus().get(0);
            declared = gpus.get().stream().filter(g -> g.index() == gpu).findFirst()
                    .map(g -> OptionalLong.of(spec.share().get().mibOf(g.totalMib()))).orElse(declared);
        }
        // How long it ran before this scheduler: its time limit counts from its real start, by the ticker from here.
        Duration before = ranBefore(r.key(), no, run, lease ? oldestCarrier(run, r.owner()) : OptionalLong.of(sid));
        RunningJob rj = new RunningJob(spec, no, declared, r.gpus(), sid, log(spec.key(), no, r.gpus()),
                clock.now().minus(before), clock.nanos() - before.toNanos(), run,
                lease ? 0 : procFs.startTicks(sid).orElse(0), lease ? Optional.of(names.entry(run)) : Optional.empty());
        if (spec.environment().tty()) {
            rj.ttyEntry = Optional.of(names.entry(run));
        }
        // Where it runs is the devices its started line names: the GPUs may have been renumbered since (MIG
        // instances made or destroyed on an earlier GPU, a GPU gone). A line without them (an older version,
        // simulated GPUs): the devices at its indices now are the best guess.
        java.util.List<String> journaled = durability.state().devices(r.key());
        rj.knowDevices(journaled.size() == r.gpus().size() && !journaled.isEmpty() ? journaled
                : RunningJob.uuidsOf(r.gpus(), gpus.get()));
        table.started(rj);
        // A leader that ended without writing a status was killed before its command ended: no status.
        CompletableFuture<java.util.OptionalInt> exit = lease
                ? leases.adopt(spec.key(), no, r.owner()).thenApply(java.util.OptionalInt::of)
                : leader.get().thenApply(h -> runFiles.exitCode(no, run));
        exit.thenAccept(code -> inbox.accept(new Inbox.Exited(rj, code)));
        reporter.emit(new SchedulerEvent.OrphanAdopted(clock.now(), no, lease ? OptionalLong.empty() : OptionalLong.of(sid)));
        if (rj.uuids().isEmpty()) {
            warnIfGpusGone(no, r.gpus()); // with its devices known the measurer says where they are now, once
        }
        durability.state().stopping(r.key()).ifPresent(line -> stops.resume(rj, line));
        return true;
    }

    /**
     * A run taken up on a GPU index this machine no longer lists (a GPU that left the bus, MIG instances
     * destroyed, a machine with fewer GPUs under the same state): it is still followed, cancelled and
     * timed out, but nothing can be measured on that index, and if the GPUs were renumbered its memory
     * counts as another process's on the GPU it really uses. Said once, so that a peak of 0 MiB and a
     * {@code gpu[N]} that {@code info} does not show are not a mystery.
     */
    private void warnIfGpusGone(int no, List<Integer> held) {
        List<io.gpusched.gpu.GpuStat> now = gpus.get();
        if (now.isEmpty() || held.isEmpty()) {
            return; // nothing read yet, or a run on no GPU of this machine: nothing to compare
        }
        java.util.Set<Integer> listed = new java.util.TreeSet<>();
        now.forEach(g -> listed.add(g.index()));
        List<Integer> gone = held.stream().filter(g -> !listed.contains(g)).toList();
        if (gone.isEmpty()) {
            return;
        }
        reporter.warnOnce("job " + no + " was running on " + (gone.size() == 1 ? "gpu " : "gpus ")
                + gone.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
                + ", which this machine does not list now (GPUs: "
                + listed.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))
                + "): taken up again, but its memory there cannot be measured (if the GPUs were renumbered, it"
                + " counts as another process's where it really runs); gpusched cancel " + no + " stops it");
    }

    /**
     * A run a dead scheduler handed to the cluster: followed again by the cluster's id the journal keeps
     * (no local session is probed for it), and not reported as started again. Without that id it was
     * never handed over as far as the journal knows: pending again (the cluster's driver still finds it
     * by name if it got that far).
     */
    private boolean adoptFromCluster(ClusterDriver to, JobSpec spec, JobTable.Job r, int no) {
        java.util.OptionalLong id = r.slurmJob();
        if (id.isEmpty()) {
            return false;
        }
        OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : spec.vramMib();
        ClusterRun run;
        try {
            run = to.submit(new ClusterAttempt(no, r.attempts() + 1, spec, declared));
        } catch (IOException e) {
            reporter.warnOnce("cannot follow job " + no + " again: " + e.getMessage());
            return false;
        }
        RunningJob rj = new RunningJob(spec, no, declared, List.of(), RunHandle.NO_SESSION, run.log(), clock.now(),
                clock.nanos(), r.runNo().orElse(0), 0, Optional.empty());
        rj.elsewhere = Optional.of(run);
        table.started(rj);
        followEnd(rj, run, inbox);
        durability.state().stopping(r.key()).ifPresent(line -> stops.resume(rj, line));
        return true;
    }

    /**
     * Follows a cluster's run to its end: its report is put on the job (on the loop's thread, in the
     * inbox's order) before its exit is reaped, so the outcome rules judge what was measured there.
     *
     * @param rj the running job
     * @param run the cluster's run of it
     * @param inbox the loop's inbox
     */
    public static void followEnd(RunningJob rj, ClusterRun run, Consumer<Inbox.Message> inbox) {
        run.ended().thenAccept(report -> {
            inbox.accept(new Inbox.Control(() -> rj.report = Optional.of(report), refused -> { }));
            inbox.accept(new Inbox.Exited(rj, java.util.OptionalInt.of(report.exitCode())));
        });
    }

    /**
     * Settles every {@code launching} intent a dead scheduler left: the spawn happened if the run's pid
     * file exists or a live process of the run's user ({@link #runUser}, or root's, before the drop to
     * them) carries its token (the wrapper may not have written the file yet);
     * it then becomes an ordinary orphan. Otherwise it never ran, or was killed before its command
     * ended, and is pending again.
     */
    public void recoverLaunches() {
        List<JournalEvent> settled = new ArrayList<>();
        for (JobTable.Job r : table.launchingAtStart()) {
            int no = r.no();
            long run = r.runNo().getAsLong();
            OptionalLong pid = runFiles.pid(no, run);
            if (pid.isEmpty()) {
                for (long c : procFs.carriers(names.entry(run))) {
                    if (!procFs.runsAs(c, runUser(r))) {
                        // The token is derivable (the journal's path and the run's number): any user can
                        // start a process carrying it, and hers taken for the run would be waited for
                        // as the run, the job held up for as long as she keeps it.
                        continue;
                    }
                    pid = procFs.sessionOf(c);
                    if (pid.isPresent()) {
                        break;
                    }
                }
            }
            if (pid.isEmpty() && runFiles.exitCode(no, run).isPresent()) {
                // Ran to its end, pid file lost: its session is unknown, and matches no process.
                pid = OptionalLong.of(new RunHandle.Unknown().pgid());
            }
            settled.add(pid.isPresent() ? new JournalEvent.Started(r.key(), pid.getAsLong(), r.gpus())
                    : new JournalEvent.Interrupted(r.key()));
        }
        if (!settled.isEmpty()) {
            durability.record(settled);
        }
    }

    /**
     * @param r the row of a job whose run a dead scheduler left (started, no outcome)
     * @return whether its session still lives here, so it is waited for; a lease's or an unknown
     *     session has nothing here to wait for
     */
    public boolean sessionAlive(JobTable.Job r) {
        if (r.startedAs().isEmpty() || !(r.startedAs().get() instanceof RunHandle.Session session)) {
            return false;
        }
        long sid = session.pgid();
        boolean numberInUse = procFs.onExit(sid).isPresent();
        if (numberInUse && r.runNo().isPresent() && leaderEnded(r.no(), r.runNo().getAsLong())) {
            // The run's leader ended (its monitor wrote so), yet a process has its number: the kernel gives a
            // pid out again only once no process has it as its session either, so that is someone else's
            // process and nothing of the run is left.
            return false;
        }
        return numberInUse || procFs.sessionAlive(sid);
    }

    /**
     * SIGTERM to what is provably left of a run no scheduler took up again ({@link #sessionAlive}): the
     * members of its session that carry its run's environment entry (a lease: every carrier). A
     * session id may be another user's by now, a pid given out again once the run's session emptied
     * while no scheduler watched; the entry is what only the run's own processes inherit. A process of
     * the run that dropped the entry is not signalled.
     *
     * @param r the row of a job started by a dead scheduler, not running here
     * @return how many processes were signalled
     */
    public int stopUnadopted(JobTable.Job r) {
        if (r.runNo().isEmpty() || r.session().isEmpty()) {
            return 0;
        }
        return signals.terminateOwn(r.session().getAsLong(), leases.entryOf(r), names.entry(r.runNo().getAsLong()),
                runUser(r));
    }

    /**
     * Who a run's processes run as: its owner where this scheduler runs submissions as their owners (a
     * root daemon), else this scheduler's own user (a user's daemon runs everything as that user, even a
     * job root submitted to it). Root's processes count as well wherever this is asked ({@code runsAs}).
     */
    private static String runUser(JobTable.Job r) {
        return r.submission().filter(JobOutput::runsAsOwner).map(JournalEvent.Submitted::owner)
                .orElseGet(() -> System.getProperty("user.name", "?"));
    }

    /**
     * Whether the process with the run's session id is the run's leader: one that leads that session,
     * carries the run's environment entry and runs as the run's user ({@link #runUser}; or root, before it
     * drops to them), while the run's exit file does not say it ended. After a restart the number alone
     * proves nothing: the run may have ended while no scheduler ran and its pid been given to another
     * user's process since, which a scheduler taking it up would signal.
     */
    private boolean leaderIsTheRuns(int no, long run, long sid, String user) {
        if (leaderEnded(no, run)) {
            return false;
        }
        return procFs.sessionOf(sid).equals(OptionalLong.of(sid)) && procFs.carries(sid, names.entry(run))
                && procFs.runsAs(sid, user);
    }

    /** Whether the run's monitor wrote that its leader ended (whole or not: it was writing it). */
    private boolean leaderEnded(int no, long run) {
        return Files.exists(runFiles.exitFile(no, run), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /** The longest a run taken up may have run before: more than any {@code timeout=} (3650 days), and nanos never overflow. */
    private static final Duration LONGEST_BEFORE = Duration.ofDays(36_500);

    /**
     * How long a run taken up had run before this scheduler: by the kernel's clock since boot when a
     * process of it lives here ({@link ProcTable#ranNanos}: its leader, or a lease's oldest process
     * carrying its token), which no wall-clock step moves; otherwise since its pid file was written, as it
     * started or was granted, by the wall clock. That date may be from a clock set differently (ahead,
     * then set back): one in the future counts as just started, never as a negative run that would wait
     * out the difference on top of the job's limit.
     *
     * @param process the run's leader, or its lease's oldest carrier; empty when there is none
     */
    private Duration ranBefore(String key, int no, long run, OptionalLong process) {
        if (process.isPresent()) {
            OptionalLong ran = procFs.ranNanos(process.getAsLong());
            if (ran.isPresent()) {
                return Duration.ofNanos(onTheTicker(key, ran.getAsLong()));
            }
        }
        try {
            Duration since = Duration.between(Files.getLastModifiedTime(runFiles.pidFile(no, run)).toInstant(), clock.now());
            return since.isNegative() ? Duration.ZERO : since.compareTo(LONGEST_BEFORE) > 0 ? LONGEST_BEFORE : since;
        } catch (IOException | ArithmeticException e) {
            return Duration.ZERO;
        }
    }

    /**
     * Most that a run's time on the ticker may exceed the kernel's figure for its process: both kernel counts
     * are in 10 ms ticks, and the launch's ticker is read before its process starts (a fork and an exec later).
     */
    static final long TICKER_SLACK_NANOS = 1_000_000_000L;

    /**
     * A run's time before this scheduler on the ticker, as a run this scheduler started is timed, where its
     * {@code started} line gave the ticker at its launch ({@code ticker_ns}). The kernel's figure
     * ({@link ProcTable#ranNanos}) counts from boot with the time the machine was suspended
     * ({@code /proc/uptime} and a process's start are {@code CLOCK_BOOTTIME}); the ticker, {@code System.nanoTime},
     * is {@code CLOCK_MONOTONIC} on Linux, one clock for every process of the boot, which stops while suspended.
     * A run taken up after a suspend had that time counted against its limit, which its scheduler would not
     * have counted. The two figures differ by time suspended only, which only makes the ticker's smaller: a
     * ticker's figure below 0 or above the kernel's (less {@link #TICKER_SLACK_NANOS}) is from a ticker of
     * another origin (a JVM whose {@code nanoTime} is not that clock), and the kernel's figure stands.
     *
     * @param ranNanos the kernel's figure for its process, suspend included
     * @return its time on the ticker, or {@code ranNanos} where the started line gave none (older lines)
     */
    private long onTheTicker(String key, long ranNanos) {
        OptionalLong launched = durability.state().startedTicker(key);
        if (launched.isEmpty()) {
            return ranNanos;
        }
        long byTicker = clock.nanos() - launched.getAsLong();
        return byTicker >= 0 && byTicker <= ranNanos + TICKER_SLACK_NANOS ? byTicker : ranNanos;
    }

    /**
     * A lease's oldest process carrying its token, of its owner: its command runs in its client's terminal,
     * in no session of the run's, and started as it was granted.
     */
    private OptionalLong oldestCarrier(long run, String owner) {
        OptionalLong oldest = OptionalLong.empty();
        long longest = -1;
        for (long pid : procFs.carriers(names.entry(run), owner)) {
            OptionalLong ran = procFs.ranNanos(pid);
            if (ran.isPresent() && ran.getAsLong() > longest) {
                longest = ran.getAsLong();
                oldest = OptionalLong.of(pid);
            }
        }
        return oldest;
    }

    /** Where the run writes: as the dispatcher chose when it started it. */
    private Path log(String key, int no, List<Integer> gpus) {
        return table.job(key).submission().flatMap(JobOutput::file).orElse(names.log(no, gpus));
    }
}

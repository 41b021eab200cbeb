package io.gpusched.engine.plan;

import io.gpusched.engine.ending.Orphans;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.Inbox;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.engine.queue.Submissions;
import io.gpusched.engine.spawn.EnvironmentScript;
import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.spawn.OwnerLaunch;
import io.gpusched.engine.spawn.RunDriver;
import io.gpusched.engine.spawn.RunFiles;
import io.gpusched.engine.spawn.RunNames;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.spawn.TtySockets;
import io.gpusched.engine.table.JobTable;

import io.gpusched.cluster.AttemptDeferredException;
import io.gpusched.cluster.AttemptRefusedException;
import io.gpusched.cluster.ClusterAttempt;
import io.gpusched.cluster.ClusterDriver;
import io.gpusched.cluster.ClusterRun;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.journal.RunHandle;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.journal.JournalEvent;
import io.gpusched.outcome.NothingLearned;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Carries out one start a plan decided: intent, spawn, record. The {@code launching} line is in the
 * journal file before the spawn, so no job can run that a restarted scheduler would not know to look
 * for; the run then goes through its {@link RunDriver} (a local process, or a client's lease).
 */
public final class Launcher {
    private final Durability durability;
    private final RunFiles runFiles;
    private final RunDriver executor;
    private final RunDriver leases;
    private final RunNames names;
    private final JobTable table;
    private final ProcTable procFs;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Consumer<Inbox.Message> inbox;
    /** The requirement rule each job's declaration came from, by key, for its start event. */
    private final java.util.function.Function<String, Optional<String>> ruleOf;
    /** The cluster jobs are handed to instead of started here (Slurm); empty for local runs. */
    private final Optional<ClusterDriver> cluster;

    /**
     * @param executor how a job's command runs: a local process
     * @param leases how a lease's runs: in its client's terminal
     * @param inbox where each launched job's exit is posted
     * @param ruleOf the requirement rule a job's declaration came from, by key
     * @param cluster where jobs are handed over instead of started here; empty for local runs
     */
    public Launcher(Durability durability, RunFiles runFiles, RunDriver executor, RunDriver leases, RunNames names,
             JobTable table, ProcTable procFs, Reporter reporter, LoopClock clock,
             Consumer<Inbox.Message> inbox,
             java.util.function.Function<String, Optional<String>> ruleOf, Optional<ClusterDriver> cluster) {
        this.cluster = cluster;
        this.durability = durability;
        this.runFiles = runFiles;
        this.executor = executor;
        this.leases = leases;
        this.names = names;
        this.table = table;
        this.procFs = procFs;
        this.reporter = reporter;
        this.clock = clock;
        this.inbox = inbox;
        this.ruleOf = ruleOf;
    }

    /** Queued to started; a submission's time is the wall clock's, so a clock step could make it negative. */
    private static java.time.Duration waited(Instant since, Instant started) {
        java.time.Duration d = java.time.Duration.between(since, started);
        return d.isNegative() ? java.time.Duration.ZERO : d;
    }

    /**
     * Intent, spawn, record; empty when the job could not start (said once; it stays pending).
     *
     * @throws AttemptRefusedException when the cluster refused the attempt itself: its intent is withdrawn,
     *     and the caller ends the job with the message
     * @throws AttemptDeferredException when the cluster refused it for now (a submit-count limit): its intent
     *     is withdrawn, and the caller keeps it pending
     */
    Optional<RunningJob> launch(PendingQueue.PendingJob p, List<Integer> gpus, OptionalLong declared, GpuSnapshot snap,
                                        int dispatched, int total, List<SchedulerEvent> reports)
            throws AttemptRefusedException, AttemptDeferredException {
        if (durability.failing().isPresent()) {
            return Optional.empty();
        }
        if (cluster.isPresent() && table.job(p.spec().key()).submission().filter(Submissions::isLease).isEmpty()) {
            return handOver(cluster.get(), p, declared, dispatched, total);
        }
        Path log = names.log(p.no(), gpus);
        long run = durability.state().nextRun();
        try {
            runFiles.prepare(p.no(), run);
        } catch (IOException e) {
            reporter.warnOnce("cannot start job " + p.no() + ": cannot write " + runFiles.dir() + ": " + e.getMessage()
                    + " — it stays pending; running jobs are unaffected");
            return Optional.empty();
        }
        if (!durability.appendUnforced(new JournalEvent.Launching(p.spec().key(), run, gpus))) {
            // Folded and queued, but not in the file: withdraw the intent and start nothing.
            durability.appendUnforced(new JournalEvent.Interrupted(p.spec().key()));
            return Optional.empty();
        }
        RunDriver.Started started;
        Optional<JournalEvent.Submitted> submitted = table.job(p.spec().key()).submission();
        Path jobLog = submitted.flatMap(JobOutput::file).orElse(log);
        // A lease's command is its client's, run in the client's terminal: the grant goes to the client.
        boolean lease = submitted.filter(Submissions::isLease).isPresent();
        RunDriver driver = lease ? leases : executor;
        Map<String, String> jobVars = Map.of("GPUSCHED_JOB_NO", String.valueOf(p.no()), "GPUSCHED_JOB_KEY", p.spec().key());
        Optional<Path> workDir = Optional.empty();
        try {
            if (driver.startsProcess()) {
                workDir = submitted.map(s -> Path.of(s.cwd()));
                started = driver.start(launch(p, gpus, snap, log, jobLog, jobVars, run, workDir, submitted));
            } else {
                // A stand-in runs no command (a simulation's): none of what a process reads (script,
                // token, run files, working directory, environment) is made for it, launch after launch.
                started = driver.start(new RunDriver.Launch("", gpus, snap, jobLog, jobVars, "", runFiles.paths(p.no(), run),
                        Optional.empty(), Optional.empty(), Optional.empty(), java.util.OptionalInt.empty()));
            }
        } catch (IOException e) {
            durability.appendUnforced(new JournalEvent.Interrupted(p.spec().key()));
            String where = workDir.filter(d -> !java.nio.file.Files.isDirectory(d))
                    .map(d -> " in " + d + ", which is no longer a directory").orElse(" (log " + jobLog + ")");
            reporter.warnOnce("cannot start job " + p.no() + where + ": " + e.getMessage()
                    + " — it stays pending; running jobs are unaffected");
            return Optional.empty();
        }
        long startTicks = procFs.startTicks(started.sessionId()).orElse(0);
        RunningJob rj = new RunningJob(p.spec(), p.no(), declared, gpus, started.sessionId(), jobLog, clock.now(),
                clock.nanos(), run, startTicks, lease ? Optional.of(names.entry(run)) : Optional.empty());
        if (p.spec().environment().tty()) {
            rj.ttyEntry = Optional.of(names.entry(run));
        }
        rj.knowDevices(RunningJob.uuidsOf(gpus, snap.gpus()));
        // The job runs from here on whatever the journal says next: its intent is in the file, and a
        // restart finds it by its pid file or its run token.
        // The rule it matched goes in the journal whatever decided this declaration: its peak teaches the rule's next job.
        durability.appendUnforced(new JournalEvent.Started(rj.key(), rj.pid, gpus, declared, ruleOf.apply(rj.key()), rj.uuids(),
                rj.startedNanos >= 0 ? OptionalLong.of(rj.startedNanos) : OptionalLong.empty()));
        Optional<String> share = Dispatcher.request(p).share().map(io.gpusched.alloc.GpuShare::toString);
        // After an OOM the declaration is the bump's, not the rule's; a learned one is learned. A share may be a
        // rule's ("gpus": 0.5, an llm_config.json model), so the rule is named beside it.
        rj.rule = p.learned().isEmpty() && p.spec().vramMib().equals(p.declaredMib())
                ? ruleOf.apply(rj.key()) : Optional.empty();
        rj.learned = p.learned().map(io.gpusched.journal.LearnedVram::describe)
                .or(() -> p.spec().learnVram() && declared.isEmpty() ? Optional.of(NothingLearned.LOCAL) : Optional.empty());
        table.started(rj);
        reports.add(new SchedulerEvent.JobStarted(clock.now(), p.no(), rj.key(), p.spec().command(), gpus,
                declared, dispatched, total, rj.pid, jobLog,
                p.attempts() + 1, waited(p.since(), clock.steady()), share, rj.rule, rj.learned));
        started.exit().thenAccept(code -> inbox.accept(new Inbox.Exited(rj, java.util.OptionalInt.of(code))));
        return Optional.of(rj);
    }

    /** What a process of this run starts with: its script, token, run files, directory and environment. */
    private RunDriver.Launch launch(PendingQueue.PendingJob p, List<Integer> gpus, GpuSnapshot snap, Path log, Path jobLog,
                                    Map<String, String> jobVars, long run, Optional<Path> workDir,
                                    Optional<JournalEvent.Submitted> submitted) {
        // A root scheduler runs another user's submission as that user, who opens the job's output file;
        // the log directory's file then gets only what the root wrapper says (why it could not start).
        Optional<RunDriver.RunAs> runAs = submitted.filter(JobOutput::runsAsOwner)
                .map(s -> new RunDriver.RunAs(s.owner(), jobLog, s.umask().orElse(OwnerLaunch.DEFAULT_UMASK)));
        if (p.spec().environment().tty() && runAs.isPresent()) {
            // Its tmux directory must be the owner's: another user may have made it first.
            TtySockets.claimDirectory(runAs.get().user()).ifPresent(what -> reporter.warnOnce("job " + p.no()
                    + "'s terminal: " + what));
        }
        // A terminal's name is worked out (the log directory's real path, hashed) only for a job that has one.
        String script = p.spec().environment().tty() ? EnvironmentScript.of(p.spec(), names.tty(p.no()))
                : EnvironmentScript.of(p.spec());
        // A submission run as the scheduler's own user still gets its client's umask.
        java.util.OptionalInt umask = runAs.isPresent() ? java.util.OptionalInt.empty()
                : submitted.map(JournalEvent.Submitted::umask).orElse(java.util.OptionalInt.empty());
        if (umask.isPresent()) {
            script = "umask " + String.format("%03o", umask.getAsInt()) + "\n" + script;
        }
        Path wrapperLog = runAs.isPresent() ? log : jobLog;
        return new RunDriver.Launch(script, gpus, snap, wrapperLog, jobVars, names.token(run), runFiles.paths(p.no(), run),
                workDir, submitted.flatMap(JournalEvent.Submitted::env), runAs, umask);
    }

    /** @return whether job commands go to a cluster that places them itself (Slurm): no GPU is picked here */
    boolean placesItself() {
        return cluster.isPresent();
    }

    /** @return why the cluster takes no attempt for now; empty when it may, or for local runs */
    Optional<io.gpusched.cluster.ClusterBusy> clusterBusy() {
        return cluster.flatMap(ClusterDriver::busy);
    }

    /** @return why the cluster can never run this job as written; empty when it may, or for local runs */
    Optional<String> clusterRefusal(io.gpusched.jobs.JobSpec spec) {
        return cluster.flatMap(c -> c.refusal(spec));
    }

    /**
     * Hands one attempt to the cluster: intent, hand-over, record, as a local start; the cluster's job id
     * is journaled ({@code slurm_submitted}) with the start, so a restart follows it instead of handing it
     * over twice. Its start is reported when its command starts there, on the GPUs the cluster gave it.
     */
    private Optional<RunningJob> handOver(ClusterDriver to, PendingQueue.PendingJob p, OptionalLong declared, int dispatched,
                                          int total) throws AttemptRefusedException, AttemptDeferredException {
        String key = p.spec().key();
        long run = durability.state().nextRun();
        if (!durability.appendUnforced(new JournalEvent.Launching(key, run, List.of()))) {
            durability.appendUnforced(new JournalEvent.Interrupted(key));
            return Optional.empty();
        }
        int attempt = p.attempts() + 1;
        ClusterRun handed;
        try {
            handed = to.submit(new ClusterAttempt(p.no(), attempt, p.spec(), declared));
        } catch (AttemptRefusedException | AttemptDeferredException e) {
            // Nothing runs: the intent is withdrawn; the caller ends a refused job with the cluster's reason and
            // keeps a deferred one pending.
            durability.appendUnforced(new JournalEvent.Interrupted(key));
            throw e;
        } catch (IOException e) {
            durability.appendUnforced(new JournalEvent.Interrupted(key));
            reporter.warnOnce("cannot hand job " + p.no() + " over: " + e.getMessage()
                    + " — it stays pending; running jobs are unaffected");
            return Optional.empty();
        }
        if (!table.job(key).slurmJob().equals(java.util.OptionalLong.of(handed.id()))) {
            // Followed again (an older run's submission): its line is in the journal already.
            durability.appendUnforced(new JournalEvent.SlurmSubmitted(key, handed.id(), handed.request()));
        }
        RunningJob rj = new RunningJob(p.spec(), p.no(), declared, List.of(), RunHandle.NO_SESSION, handed.log(),
                clock.now(), clock.nanos(), run, 0, Optional.empty());
        rj.elsewhere = Optional.of(handed);
        durability.appendUnforced(new JournalEvent.Started(key, rj.pid, List.of(), declared, ruleOf.apply(key)));
        rj.rule = p.learned().isEmpty() && p.spec().vramMib().equals(p.declaredMib()) ? ruleOf.apply(key) : Optional.empty();
        rj.learned = p.learned().map(io.gpusched.journal.LearnedVram::describe)
                .or(() -> p.spec().learnVram() && declared.isEmpty() ? Optional.of(NothingLearned.SLURM) : Optional.empty());
        table.started(rj);
        Instant since = p.since();
        handed.running().thenAccept(gpus -> inbox.accept(new Inbox.Control(() -> {
            if (table.run(key).filter(r -> r == rj).isPresent()) {
                Instant now = clock.now();
                reporter.emit(new SchedulerEvent.JobStarted(now, rj.no, key, rj.spec.command(), gpus, declared,
                        dispatched, total, 0, rj.log, attempt, waited(since, clock.steady()),
                        Optional.empty(), rj.rule, rj.learned));
            }
        }, refused -> { })));
        Orphans.followEnd(rj, handed, inbox);
        return Optional.of(rj);
    }
}

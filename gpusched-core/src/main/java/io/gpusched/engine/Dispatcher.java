package io.gpusched.engine;

import io.gpusched.model.JobStatus;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.journal.JournalEvent;
import io.gpusched.outcome.NothingLearned;
import io.gpusched.policy.Candidate;
import io.gpusched.policy.Decision;
import io.gpusched.policy.FairShare;
import io.gpusched.policy.Occupant;
import io.gpusched.policy.Plan;
import io.gpusched.policy.QueuePolicy;
import io.gpusched.policy.Reservation;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Places the pending jobs as the pure queue policy says (order, reservation, preemption; the allocator
 * under it), and launches those that fit: intent, spawn, record — the {@code launching} line is in the journal file before the spawn, so no
 * job can run that a restarted scheduler would not know to look for.
 */
final class Dispatcher {
    private final QueuePolicy policy;
    private final FairShare fairShare;
    private final Stops stops;
    private Optional<String> reservation = Optional.empty();
    private Optional<Instant> replanAt = Optional.empty();
    private final Durability durability;
    private final RunFiles runFiles;
    private final RunExecutor executor;
    private final RunExecutor leases;
    private final RunNames names;
    private final RunningJobs running;
    private final ProcFs procFs;
    private final Reporter reporter;
    private final Outcomes outcomes;
    private final IntSupplier endedEarlier;
    private final Consumer<Inbox.Message> inbox;

    /** The requirement rule each job's declaration came from, by key, for its start event. */
    private final java.util.function.Function<String, Optional<String>> ruleOf;

    /** What a dispatch leaves: the jobs still waiting, and the GPU views after its launches. */
    record Result(List<PendingQueue.PendingJob> stillPending, List<GpuView> views) {
    }

    /**
     * @param endedEarlier how many jobs of the queue ended in an earlier run (for "N/M dispatched")
     * @param executor how a job's command runs: a local process
     * @param leases how a lease's runs: in its client's terminal
     * @param inbox where each launched job's exit is posted
     * @param ruleOf the requirement rule a job's declaration came from, by key
     */
    Dispatcher(QueuePolicy policy, FairShare fairShare, Stops stops, Durability durability, RunFiles runFiles,
               RunExecutor executor, RunExecutor leases, RunNames names, RunningJobs running, ProcFs procFs, Reporter reporter, Outcomes outcomes,
               IntSupplier endedEarlier, Consumer<Inbox.Message> inbox,
               java.util.function.Function<String, Optional<String>> ruleOf) {
        this.ruleOf = ruleOf;
        this.policy = policy;
        this.fairShare = fairShare;
        this.stops = stops;
        this.durability = durability;
        this.runFiles = runFiles;
        this.executor = executor;
        this.leases = leases;
        this.names = names;
        this.running = running;
        this.procFs = procFs;
        this.reporter = reporter;
        this.outcomes = outcomes;
        this.endedEarlier = endedEarlier;
        this.inbox = inbox;
    }

    /**
     * @param pending the jobs that may be placed, in queue order
     * @param views this round's GPUs and running jobs
     * @param snap the snapshot the views came from (for the devices' UUIDs)
     * @param total jobs known to the queue
     * @param reasons filled with why each job that stays pending waits
     */
    Result dispatch(List<PendingQueue.PendingJob> pending, List<GpuView> views, GpuSnapshot snap, int total,
                    Map<String, String> reasons) {
        Instant now = reporter.now();
        Map<String, PendingQueue.PendingJob> byKey = new HashMap<>();
        List<Candidate> candidates = new ArrayList<>(pending.size());
        for (PendingQueue.PendingJob p : pending) {
            Request request = request(p);
            if (p.spec().scheduling().pinned()) {
                Pins.Resolved pins = Pins.resolve(p.spec().scheduling().gpuIds(), snap);
                if (pins.unknown().isPresent()) {
                    outcomes.fail(p, JobStatus.INFEASIBLE, pins.unknown().get());
                    continue;
                }
                request = request.pinnedTo(pins.indices());
            }
            byKey.put(p.spec().key(), p);
            candidates.add(new Candidate(p.spec().key(), p.no(), request, p.spec().scheduling().priority(), p.position(),
                    p.since(), p.owner(), p.spec().timeout()));
        }
        List<Occupant> occupants = new ArrayList<>();
        for (RunningJob rj : running.all()) {
            occupants.add(new Occupant(rj.key(), rj.no, rj.gpus, rj.startedAt, rj.spec.timeout(),
                    rj.spec.scheduling().priority(), rj.spec.scheduling().preemptible(), rj.stopping.isPresent()));
        }
        Plan plan = policy.plan(now, candidates, occupants, views, fairShare.recent(now));
        List<PendingQueue.PendingJob> still = new ArrayList<>();
        List<SchedulerEvent> started = new ArrayList<>();
        for (Decision d : plan.decisions()) {
            PendingQueue.PendingJob p = byKey.get(d.key());
            if (d instanceof Decision.Fail f) {
                outcomes.fail(p, JobStatus.INFEASIBLE, f.reason());
            } else if (d instanceof Decision.Wait w) {
                reasons.put(d.key(), w.reason());
                still.add(p);
            } else {
                List<Integer> gpus = ((Decision.Start) d).gpus();
                Optional<RunningJob> launched = launch(p, gpus, declaredOn(p, gpus, views), snap, total, started);
                if (launched.isPresent()) {
                    RunningJob rj = launched.get();
                    views = GpuView.withTenant(views, rj.gpus, new Tenant(rj.key(), rj.declaredMib, 0, 0));
                } else {
                    reasons.put(d.key(), durability.failing().isPresent()
                            ? "dispatch paused: cannot write the journal" : "could not start: see the warning above");
                    still.add(p);
                }
            }
        }
        for (String key : plan.preempt()) {
            running.get(key).filter(rj -> rj.stopping.isEmpty()).ifPresent(rj -> stops.stop(rj, StopReason.PREEMPTED));
        }
        if (changed(plan.reservation())) {
            plan.reservation().ifPresent(r -> reporter.emit(new SchedulerEvent.Reserved(now, r)));
        }
        replanAt = plan.replanAt();
        if (!started.isEmpty()) {
            // One fsync for every launching and started line of the round, then the reports. Each
            // intent was in the file before its spawn; the fsync guards against the machine itself going
            // down, which takes the jobs with it. If it fails the jobs keep running (stopping them would
            // not make the journal truer) and nothing new starts until the journal can be written.
            durability.force();
            started.forEach(reporter::emit);
        }
        return new Result(still, views);
    }

    /**
     * What a pending job asks the allocator for: its declaration (after any OOM bump), or, for a share
     * of one GPU not yet bumped, that share.
     */
    static Request request(PendingQueue.PendingJob p) {
        if (p.declaredMib().isEmpty() && p.spec().share().isPresent()) {
            return Request.share(p.spec().share().get());
        }
        return new Request(p.declaredMib(), p.spec().gpus());
    }

    /**
     * The declaration a job starts with: a share becomes the MiB it reserved on the GPU it got, which
     * its verdict, the board and the journal's started line then use like any {@code vram=}.
     */
    static OptionalLong declaredOn(PendingQueue.PendingJob p, List<Integer> gpus, List<GpuView> views) {
        Request r = request(p);
        if (r.share().isEmpty()) {
            return p.declaredMib();
        }
        return views.stream().filter(v -> v.index() == gpus.get(0)).findFirst()
                .map(v -> r.declaredOn(v.totalMib())).orElse(p.declaredMib());
    }

    /** @return when the last plan asked to be made again even if nothing changes */
    Optional<Instant> replanAt() {
        return replanAt;
    }

    /** Whether a reservation is new or holds other GPUs than the last one said (its clock alone is not news). */
    private boolean changed(Optional<Reservation> now) {
        Optional<String> id = now.map(r -> r.key() + r.gpus() + r.preempting());
        boolean news = now.isPresent() && !id.equals(reservation);
        reservation = id;
        return news;
    }


    /** Queued to started; a submission's time is the wall clock's, so a clock step could make it negative. */
    private static java.time.Duration waited(Instant since, Instant started) {
        java.time.Duration d = java.time.Duration.between(since, started);
        return d.isNegative() ? java.time.Duration.ZERO : d;
    }

    /** Intent, spawn, record; empty when the job could not start (said once; it stays pending). */
    private Optional<RunningJob> launch(PendingQueue.PendingJob p, List<Integer> gpus, OptionalLong declared, GpuSnapshot snap,
                                        int total, List<SchedulerEvent> reports) {
        if (durability.failing().isPresent()) {
            return Optional.empty();
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
        RunExecutor.Started started;
        Optional<JournalEvent.Submitted> submitted = durability.state().submission(p.spec().key());
        Optional<Path> workDir = submitted.map(s -> Path.of(s.cwd()));
        Path jobLog = submitted.flatMap(JobOutput::file).orElse(log);
        // A root scheduler runs another user's submission as that user, who opens the job's output file;
        // the log directory's file then gets only what the root wrapper says (why it could not start).
        Optional<RunExecutor.RunAs> runAs = submitted.filter(JobOutput::runsAsOwner)
                .map(s -> new RunExecutor.RunAs(s.owner(), jobLog, s.umask().orElse(OwnerLaunch.DEFAULT_UMASK)));
        String script = EnvironmentScript.of(p.spec(), names.tty(p.no()));
        // A submission run as the scheduler's own user still gets its client's umask.
        java.util.OptionalInt umask = runAs.isPresent() ? java.util.OptionalInt.empty()
                : submitted.map(JournalEvent.Submitted::umask).orElse(java.util.OptionalInt.empty());
        if (umask.isPresent()) {
            script = "umask " + String.format("%03o", umask.getAsInt()) + "\n" + script;
        }
        Path wrapperLog = runAs.isPresent() ? log : jobLog;
        // A lease's command is its client's, run in the client's terminal: the grant goes to the client.
        boolean lease = submitted.filter(Submissions::isLease).isPresent();
        try {
            started = (lease ? leases : executor).start(new RunExecutor.Launch(script, gpus,
                    snap, wrapperLog, Map.of("GPUSCHED_JOB_NO", String.valueOf(p.no()), "GPUSCHED_JOB_KEY", p.spec().key()),
                    names.token(run), runFiles.paths(p.no(), run), workDir, submitted.flatMap(JournalEvent.Submitted::env),
                    runAs));
        } catch (IOException e) {
            durability.appendUnforced(new JournalEvent.Interrupted(p.spec().key()));
            String where = workDir.filter(d -> !java.nio.file.Files.isDirectory(d))
                    .map(d -> " in " + d + ", which is no longer a directory").orElse(" (log " + jobLog + ")");
            reporter.warnOnce("cannot start job " + p.no() + where + ": " + e.getMessage()
                    + " — it stays pending; running jobs are unaffected");
            return Optional.empty();
        }
        long startTicks = procFs.startTicks(started.sessionId()).orElse(0);
        RunningJob rj = new RunningJob(p.spec(), p.no(), declared, gpus, started.sessionId(), jobLog, reporter.now(),
                run, startTicks, lease ? Optional.of(names.entry(run)) : Optional.empty());
        if (p.spec().environment().tty()) {
            rj.ttyEntry = Optional.of(names.entry(run));
        }
        // The job runs from here on whatever the journal says next: its intent is in the file, and a
        // restart finds it by its pid file or its run token.
        // The rule it matched goes in the journal whatever decided this declaration: its peak teaches the rule's next job.
        durability.appendUnforced(new JournalEvent.Started(rj.key(), rj.pid, gpus, declared, ruleOf.apply(rj.key())));
        Optional<String> share = request(p).share().map(io.gpusched.alloc.GpuShare::toString);
        // After an OOM the declaration is the bump's, not the rule's; a share's is its share's; a learned one is learned.
        rj.rule = share.isEmpty() && p.learned().isEmpty() && p.spec().vramMib().equals(p.declaredMib())
                ? ruleOf.apply(rj.key()) : Optional.empty();
        rj.learned = p.learned().map(io.gpusched.journal.LearnedVram::describe)
                .or(() -> p.spec().learnVram() && declared.isEmpty() ? Optional.of(NothingLearned.LOCAL) : Optional.empty());
        running.add(rj);
        reports.add(new SchedulerEvent.JobStarted(reporter.now(), p.no(), rj.key(), p.spec().command(), gpus,
                declared, endedEarlier.getAsInt() + outcomes.results().size() + running.size(), total, rj.pid, jobLog,
                p.attempts() + 1, waited(p.since(), rj.startedAt), share, rj.rule, rj.learned));
        started.exit().thenAccept(code -> inbox.accept(new Inbox.Exited(rj, code)));
        return Optional.of(rj);
    }
}

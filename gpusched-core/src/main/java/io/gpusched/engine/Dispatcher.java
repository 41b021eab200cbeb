package io.gpusched.engine;

import io.gpusched.JobStatus;
import io.gpusched.SchedulerEvent;
import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.journal.JournalEvent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Places the pending jobs, in queue order, with the pure allocator, and launches those that fit:
 * intent, spawn, record — the {@code launching} line is in the journal file before the spawn, so no
 * job can run that a restarted scheduler would not know to look for.
 */
final class Dispatcher {
    private final Allocator allocator;
    private final Durability durability;
    private final RunFiles runFiles;
    private final RunExecutor executor;
    private final RunNames names;
    private final RunningJobs running;
    private final ProcFs procFs;
    private final Reporter reporter;
    private final Outcomes outcomes;
    private final IntSupplier endedEarlier;
    private final Consumer<Inbox.Message> inbox;

    /** What a dispatch leaves: the jobs still waiting, and the GPU views after its launches. */
    record Result(List<PendingQueue.PendingJob> stillPending, List<GpuView> views) {
    }

    /**
     * @param endedEarlier how many jobs of the queue ended in an earlier run (for "N/M dispatched")
     * @param inbox where each launched job's exit is posted
     */
    Dispatcher(Allocator allocator, Durability durability, RunFiles runFiles, RunExecutor executor, RunNames names,
               RunningJobs running, ProcFs procFs, Reporter reporter, Outcomes outcomes, IntSupplier endedEarlier,
               Consumer<Inbox.Message> inbox) {
        this.allocator = allocator;
        this.durability = durability;
        this.runFiles = runFiles;
        this.executor = executor;
        this.names = names;
        this.running = running;
        this.procFs = procFs;
        this.reporter = reporter;
        this.outcomes = outcomes;
        this.endedEarlier = endedEarlier;
        this.inbox = inbox;
    }

    /**
     * @param pending the queue, in order
     * @param views this round's GPUs and running jobs
     * @param snap the snapshot the views came from (for the devices' UUIDs)
     * @param total jobs known to the queue
     * @param reasons filled with why each job that stays pending waits
     */
    Result dispatch(List<PendingQueue.PendingJob> pending, List<GpuView> views, GpuSnapshot snap, int total,
                    Map<String, String> reasons) {
        List<PendingQueue.PendingJob> still = new ArrayList<>();
        // The allocator is pure: within one state of the GPUs, an identical request gets an identical
        // answer, so 10,000 blocked lines of a few shapes cost a few allocator calls. Any launch
        // changes the views and clears the memo.
        Map<Request, Placement> memo = new HashMap<>();
        List<SchedulerEvent> started = new ArrayList<>();
        for (PendingQueue.PendingJob p : pending) {
            Request request = new Request(p.declaredMib(), p.spec().gpus());
            List<GpuView> current = views;
            Placement placement = memo.computeIfAbsent(request, r -> allocator.place(r, current));
            if (placement instanceof Placement.Infeasible inf) {
                outcomes.fail(p, JobStatus.INFEASIBLE, inf.reason());
            } else if (placement instanceof Placement.Blocked b) {
                reasons.put(p.spec().key(), b.reason());
                still.add(p);
            } else {
                List<Integer> gpus = ((Placement.Placed) placement).gpus();
                Optional<RunningJob> launched = launch(p, gpus, snap, total, started);
                if (launched.isPresent()) {
                    views = withTenant(views, launched.get());
                    memo.clear();
                } else {
                    reasons.put(p.spec().key(), durability.failing().isPresent()
                            ? "dispatch paused: cannot write the journal" : "could not start: see the warning above");
                    still.add(p);
                }
            }
        }
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

    private static List<GpuView> withTenant(List<GpuView> views, RunningJob rj) {
        List<GpuView> out = new ArrayList<>();
        for (GpuView v : views) {
            if (rj.gpus.contains(v.index())) {
                List<Tenant> tenants = new ArrayList<>(v.tenants());
                tenants.add(new Tenant(rj.key(), rj.declaredMib, 0, 0));
                v = new GpuView(v.index(), v.totalMib(), v.usedMib(), v.externalPeaksMib(), tenants, v.healthy(), v.paused());
            }
            out.add(v);
        }
        return out;
    }

    /** Intent, spawn, record; empty when the job could not start (said once; it stays pending). */
    private Optional<RunningJob> launch(PendingQueue.PendingJob p, List<Integer> gpus, GpuSnapshot snap, int total,
                                        List<SchedulerEvent> reports) {
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
        try {
            started = executor.start(new RunExecutor.Launch(p.spec().command(), gpus, snap, log,
                    Map.of("GPUSCHED_JOB_NO", String.valueOf(p.no()), "GPUSCHED_JOB_KEY", p.spec().key()),
                    names.token(run), runFiles.paths(p.no(), run), workDir, submitted.flatMap(JournalEvent.Submitted::env)));
        } catch (IOException e) {
            durability.appendUnforced(new JournalEvent.Interrupted(p.spec().key()));
            String where = workDir.filter(d -> !java.nio.file.Files.isDirectory(d))
                    .map(d -> " in " + d + ", which is no longer a directory").orElse(" (log " + log + ")");
            reporter.warnOnce("cannot start job " + p.no() + where + ": " + e.getMessage()
                    + " — it stays pending; running jobs are unaffected");
            return Optional.empty();
        }
        long startTicks = procFs.startTicks(started.sessionId()).orElse(0);
        RunningJob rj = new RunningJob(p.spec(), p.no(), p.declaredMib(), gpus, started.sessionId(), log, reporter.now(),
                run, startTicks);
        // The job runs from here on whatever the journal says next: its intent is in the file, and a
        // restart finds it by its pid file or its run token.
        durability.appendUnforced(new JournalEvent.Started(rj.key(), rj.pid, gpus));
        running.add(rj);
        reports.add(new SchedulerEvent.JobStarted(reporter.now(), p.no(), rj.key(), p.spec().command(), gpus,
                p.declaredMib(), endedEarlier.getAsInt() + outcomes.results().size() + running.size(), total, rj.pid, log,
                p.attempts() + 1));
        started.exit().thenAccept(code -> inbox.accept(new Inbox.Exited(rj, code)));
        return Optional.of(rj);
    }
}

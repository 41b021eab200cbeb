package io.gpusched.engine.plan;

import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.observe.GpuReader;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.engine.queue.Settlement;

import io.gpusched.alloc.GpuView;
import io.gpusched.jobs.JobSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One round's plan: the pending list recomputed and dispatched, with a reason for every job left
 * waiting (jobs held by their dependencies are listed after the others). Skipped when nothing placement
 * reads changed since the last plan (same source version, same journal and running set, same GPU views)
 * and the policy asked for no replan by now (a job reaching the reservation threshold): a round over
 * 10,000 blocked lines then costs microseconds. Never places on stale GPU data, nor while the journal cannot record a start.
 */
public final class Planner {
    private final PendingQueue queue;
    private final Settlement settlement;
    private final Dispatcher dispatcher;
    private final Durability durability;
    private final GpuReader reader;
    private final LoopClock clock;
    private long plannedVersion = -1;
    private long plannedChanges = -1;
    private List<GpuView> plannedViews = List.of();
    /** Whether the last plan was a drain's: it listed the queue and started nothing. */
    private boolean plannedDraining;

    /** Why every queued job waits while the daemon drains ({@code gpusched drain}), on the board and in a preview. */
    public static final String DRAINING = "the daemon is draining: it starts no job until the next gpusched serve";

    public Planner(Settlement settlement, PendingQueue queue, Dispatcher dispatcher, Durability durability, GpuReader reader, LoopClock clock) {
        this.clock = clock;
        this.queue = queue;
        this.settlement = settlement;
        this.dispatcher = dispatcher;
        this.durability = durability;
        this.reader = reader;
    }

    /** Whether the time the last plan asked to be planned again at (a reservation's refresh, an aging step) has come. */
    private boolean replanDue() {
        return dispatcher.replanAt().map(t -> !clock.steady().isBefore(t)).orElse(false); // the policy's steady time
    }

    /**
     * What the last plan's GPUs and queue would make of one more job ({@code gpusched submit --dry-run}).
     * Where nothing changed since the last plan and the job would wait without changing any other job's
     * decision, that is found in O(log n) of the queue, as a submission is admitted; otherwise the whole
     * queue is decided again with the job at its end.
     *
     * @param extra the job, not queued ({@link Admission#candidate})
     * @param version the source's version of the queue now
     * @return where it would start, or why it would wait or never run
     */
    public io.gpusched.model.SubmitPreview preview(PendingQueue.PendingJob extra, long version) {
        if (plannedVersion == -1 || reader.lastGpus().isEmpty()) {
            return new io.gpusched.model.SubmitPreview.Waits(reader.lastGpus().isEmpty()
                    ? "the scheduler has not read its GPUs yet" : "dispatch paused (GPU backend or journal failing)");
        }
        boolean due = replanDue();
        if (!due && version == plannedVersion && durability.changes() == plannedChanges && settlement.liveOrphans().isEmpty()
                && durability.failing().isEmpty()) {
            // Each preview decided the whole queue on the loop: with tens of thousands queued, one user's
            // previews back to back held every other user's submission behind them.
            Optional<String> waits = dispatcher.previewAlone(extra, plannedViews, reader.last());
            if (waits.isPresent()) {
                return new io.gpusched.model.SubmitPreview.Waits(waits.get());
            }
        }
        return dispatcher.preview(queue.pending(), extra, plannedViews, reader.last());
    }

    /**
     * Plans jobs that joined the queue since the last plan (submissions, the last {@code joined} of
     * {@code jobs}) alone, each in O(log n) of the queue, when that gives what planning the whole queue
     * would: the last plan placed on these same GPUs and started nothing, nothing else changed since,
     * and each of them waits without changing any other job's decision ({@code QueuePolicy.admit}).
     * Otherwise it does nothing and says so, and the caller plans the whole queue.
     *
     * @param jobs the source's jobs, the new ones last
     * @param version the source's version of them
     * @param joined how many jobs at the end of {@code jobs} joined since the last plan
     * @param views the GPUs as last read
     * @return whether the new jobs were planned
     */
    public boolean admit(List<JobSpec> jobs, long version, int joined, Optional<List<GpuView>> views) {
        boolean due = replanDue();
        if (joined < 1 || views.isEmpty() || due || plannedVersion < 0 || version != plannedVersion + joined
                || durability.changes() != plannedChanges + joined || !settlement.liveOrphans().isEmpty()
                || durability.failing().isPresent() || !views.get().equals(plannedViews) || joined > jobs.size()) {
            return false;
        }
        java.time.Instant now = clock.steady(); // since when a job waits is on the policy's steady time line
        // Lists, not maps: each job comes once, and hashing a job hashes its whole line.
        List<Map.Entry<PendingQueue.PendingJob, String>> waiting = new java.util.ArrayList<>(joined);
        List<Map.Entry<PendingQueue.PendingJob, String>> held = new java.util.ArrayList<>();
        for (int i = jobs.size() - joined; i < jobs.size(); i++) {
            JobSpec j = jobs.get(i);
            Optional<PendingQueue.PendingJob> p = queue.joined(j, i, now);
            if (p.isEmpty()) {
                return false;
            }
            if (!j.scheduling().after().isEmpty()) {
                io.gpusched.policy.Dependencies.Verdict v = queue.dependencies(j);
                if (v instanceof io.gpusched.policy.Dependencies.Waiting w) {
                    held.add(Map.entry(p.get(), w.reason()));
                    continue;
                }
                if (!(v instanceof io.gpusched.policy.Dependencies.Ready)) {
                    return false;
                }
            }
            Optional<String> reason = dispatcher.admit(p.get(), views.get(), reader.last());
            if (reason.isEmpty()) {
                return false;
            }
            waiting.add(Map.entry(p.get(), reason.get()));
        }
        queue.joined(waiting, dispatcher.lastOrder(), held);
        plannedVersion = version;
        plannedChanges = durability.changes();
        return true;
    }

    /**
     * @param jobs the source's jobs
     * @param version the source's version of them
     * @param views this round's GPU views; present only when this round's read answered
     * @param draining the daemon drains: the queue is listed, every job in it said to wait for the next
     *     daemon, and none is started
     */
    public void plan(List<JobSpec> jobs, long version, Optional<List<GpuView>> views, boolean draining) {
        boolean due = replanDue();
        boolean released = settlement.releaseHolds(); // a job's back-off passed: it may be placed now
        if (views.isPresent() && settlement.liveOrphans().isEmpty() && version == plannedVersion
                && durability.changes() == plannedChanges && views.get().equals(plannedViews) && !due && !released
                && draining == plannedDraining) {
            return;
        }
        plannedDraining = draining;
        // Settle first (the journal lines and events of orphans, retries, failed dependencies), then read.
        settlement.settle(jobs, version);
        queue.compute(jobs, settlement.waitingFor(), clock.steady());
        Map<String, String> reasons = new HashMap<>(queue.heldReasons());
        List<PendingQueue.PendingJob> still = queue.pending();
        if (draining) {
            // Listed, with the one reason that holds for each: a drain left the last plan's list and
            // reasons (a free GPU's job 'needs headroom'), and a job submitted meanwhile was in no list.
            still.forEach(p -> reasons.put(p.spec().key(), DRAINING));
            plannedVersion = views.isPresent() ? version : -1;
            plannedChanges = durability.changes();
            plannedViews = views.orElse(plannedViews);
        } else if (views.isEmpty()) {
            still.forEach(p -> reasons.put(p.spec().key(), "dispatch paused: GPU backend failing ("
                    + reader.failures() + " in a row)"));
            plannedVersion = -1;
        } else if (durability.failing().isPresent()) {
            // A start that cannot be journaled could be started twice after a crash.
            still.forEach(p -> reasons.put(p.spec().key(), "dispatch paused: cannot write the journal"));
            plannedVersion = -1;
        } else {
            // The queue's jobs now: a submission that ended since the last plan (a taken-up job, after a
            // restart, that ended in this round) left it at this settlement, though it is still in jobs.
            Dispatcher.Result r = dispatcher.dispatch(still, views.get(), reader.last(), jobs.size() - settlement.retired(),
                    queue.held().size(), reasons);
            still = r.stillPending();
            plannedViews = r.views();
            // A start that failed (its output refused, its directory gone) is tried again at the next
            // round, though nothing else changes: its cause may be mended meanwhile, and no event says so.
            plannedVersion = r.startFailed() ? -1 : version;
            plannedChanges = durability.changes();
        }
        if (!queue.held().isEmpty()) {
            still = new java.util.ArrayList<>(still);
            still.addAll(queue.held());
        }
        queue.set(still, reasons);
    }
}

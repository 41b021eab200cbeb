package io.gpusched.engine.plan;

import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.table.JobTable;
import io.gpusched.engine.stop.Stops;

import io.gpusched.model.JobStatus;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.policy.Candidate;
import io.gpusched.policy.Decision;
import io.gpusched.policy.FairShare;
import io.gpusched.policy.Occupant;
import io.gpusched.policy.QueuePolicy;
import io.gpusched.policy.Reservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Places the pending jobs as the pure queue policy says (order, reservation, preemption; the allocator
 * under it): first it decides, as a {@link Plan} value ({@link #decide}); then it carries the plan out
 * ({@link #apply}), each start through the {@link Launcher}. Collect, then execute: nothing is launched
 * while the decisions are being made.
 */
public final class Dispatcher {
    private final QueuePolicy policy;
    private final FairShare fairShare;
    private final Stops stops;
    private Optional<String> reservation = Optional.empty();
    private Optional<Instant> replanAt = Optional.empty();
    private final Durability durability;
    private final JobTable table;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Outcomes outcomes;
    private final Launcher launcher;

    /** What a dispatch leaves: the jobs still waiting, the GPU views after its launches, and whether a start failed. */
    record Result(List<PendingQueue.PendingJob> stillPending, List<GpuView> views, boolean startFailed) {
    }

    /** @param launcher carries out each start the plan decides */
    public Dispatcher(QueuePolicy policy, FairShare fairShare, Stops stops, Durability durability, JobTable table,
               Reporter reporter, LoopClock clock, Outcomes outcomes, Launcher launcher) {
        this.policy = policy;
        this.fairShare = fairShare;
        this.stops = stops;
        this.durability = durability;
        this.table = table;
        this.reporter = reporter;
        this.clock = clock;
        this.outcomes = outcomes;
        this.launcher = launcher;
    }

    /**
     * @param pending the jobs that may be placed, in queue order
     * @param views this round's GPUs and running jobs
     * @param snap the snapshot the views came from (for the devices' UUIDs)
     * @param total jobs known to the queue
     * @param held jobs of the queue held back by their dependencies: not in {@code pending}, not started
     * @param reasons filled with why each job that stays pending waits
     */
    Result dispatch(List<PendingQueue.PendingJob> pending, List<GpuView> views, GpuSnapshot snap, int total, int held,
                    Map<String, String> reasons) {
        Instant now = clock.now();
        Instant steady = clock.steady(); // the policy's time: waits and GPU use, unmoved by a wall-clock step
        if (launcher.placesItself()) {
            // A cluster places each job itself: nothing here to admit a newcomer against, so every
            // dispatch hands the whole queue over (a standing that "started" forces the whole plan).
            Plan plan = handOver(pending, launcher::clusterRefusal, launcher.clusterBusy(), steady);
            standing = new QueuePolicy.Standing(Optional.empty(), Optional.empty(), java.util.Set.of(), true);
            return apply(plan, views, snap, total, held, reasons, now);
        }
        Map<String, Double> recent = fairShare.recent(steady);
        Plan plan = decide(policy, pending, occupants(), views, snap, steady, recent);
        standing = standing(plan, pending, snap);
        Map<String, Double> usage = standing.owners().size() > 1 ? recent : Map.of();
        java.util.Comparator<Candidate> order = policy.orderAt(steady, usage);
        lastOrder = java.util.Comparator.comparing((PendingQueue.PendingJob p) -> new Candidate(p.spec().key(), p.no(),
                request(p), p.spec().scheduling().priority(), p.position(), p.since(), p.owner(), p.spec().timeout()), order);
        return apply(plan, views, snap, total, held, reasons, now);
    }

    /** The order the last plan gave the jobs it was given (the policy's, at that plan's time). */
    private java.util.Comparator<PendingQueue.PendingJob> lastOrder = java.util.Comparator.comparingInt(PendingQueue.PendingJob::no);

    /** @return the order the last dispatch put the pending jobs in, to place a job that joined since among them */
    java.util.Comparator<PendingQueue.PendingJob> lastOrder() {
        return lastOrder;
    }

    /** What the last plan left that decides a job joining the queue alone ({@link #admit}). */
    private QueuePolicy.Standing standing = new QueuePolicy.Standing(Optional.empty(), Optional.empty(), java.util.Set.of(), true);

    private static QueuePolicy.Standing standing(Plan plan, List<PendingQueue.PendingJob> pending, GpuSnapshot snap) {
        java.util.Set<String> owners = new java.util.HashSet<>();
        Optional<Candidate> holder = Optional.empty();
        Optional<String> held = plan.reservation().map(Reservation::key);
        // The policy saw a job as a candidate unless it pins a GPU the machine does not have; only the
        // holder's candidate is needed whole, so no other is built again after decide built them all.
        for (PendingQueue.PendingJob p : pending) {
            if (held.isPresent() && held.get().equals(p.spec().key())) {
                holder = candidate(p, snap);
                holder.ifPresent(x -> owners.add(x.owner()));
            } else if (!p.spec().scheduling().pinned()
                    || Pins.resolve(p.spec().scheduling().gpuIds(), snap).unknown().isEmpty()) {
                owners.add(p.owner());
            }
        }
        boolean started = false;
        for (Plan.Action a : plan.actions()) { // every round: no stream
            started |= !(a instanceof Plan.Wait);
        }
        if (plan.reservation().isPresent() && holder.isEmpty()) {
            return new QueuePolicy.Standing(Optional.empty(), Optional.empty(), owners, true);
        }
        return new QueuePolicy.Standing(plan.reservation(), holder, owners, started);
    }

    /**
     * Decides a job that joined the queue since the last dispatch, alone, as the policy's
     * {@link QueuePolicy#admit} allows: on the GPUs the last dispatch left, which must be those now.
     *
     * @param p the job
     * @param views the GPUs now; the caller checked they are the last dispatch's
     * @param snap the snapshot they came from (for pinned GPUs)
     * @return why it waits; empty when the whole queue must be planned instead
     */
    Optional<String> admit(PendingQueue.PendingJob p, List<GpuView> views, GpuSnapshot snap) {
        Optional<Candidate> c = candidate(p, snap);
        if (c.isEmpty()) {
            return Optional.empty();
        }
        Instant now = clock.steady();
        List<Occupant> occupants = occupants();
        Optional<String> reason = policy.admit(now, c.get(), standing, occupants, views, fairShare.recent(now));
        if (reason.isPresent() && reason.get().equals(lastAdmitted)) {
            // The same words as the job before (the usual case: a queue of one shape): one string for
            // all of them, not one each.
            reason = Optional.of(lastAdmitted);
        }
        reason.ifPresent(r -> lastAdmitted = r);
        if (reason.isPresent()) {
            if (!standing.owners().contains(c.get().owner())) {
                java.util.Set<String> owners = new java.util.HashSet<>(standing.owners());
                owners.add(c.get().owner());
                standing = new QueuePolicy.Standing(standing.reservation(), standing.holder(), owners, standing.started());
            }
            Instant due = c.get().queuedAt().plus(policy.options().reserveAfter());
            if (due.isAfter(now) && (replanAt.isEmpty() || due.isBefore(replanAt.get()))) {
                replanAt = Optional.of(due);
            }
        }
        return reason;
    }

    /**
     * What {@link #admit} would say of a job not queued, changing nothing: a preview decided alone.
     *
     * @param p the job, not queued
     * @param views the GPUs the last dispatch left
     * @param snap the snapshot they came from
     * @return why it would wait; empty when the whole queue must be decided with it instead
     */
    Optional<String> previewAlone(PendingQueue.PendingJob p, List<GpuView> views, GpuSnapshot snap) {
        Optional<Candidate> c = candidate(p, snap);
        if (c.isEmpty()) {
            return Optional.empty();
        }
        Instant now = clock.steady();
        return policy.admit(now, c.get(), standing, occupants(), views, fairShare.recent(now));
    }

    /** The reason the last job admitted alone waits for. */
    private String lastAdmitted = "";

    /** @return how the policy sees a pending job; empty when it pins a GPU the machine does not have */
    static Optional<Candidate> candidate(PendingQueue.PendingJob p, GpuSnapshot snap) {
        Request request = request(p);
        if (p.spec().scheduling().pinned()) {
            Pins.Resolved pins = Pins.resolve(p.spec().scheduling().gpuIds(), snap);
            if (pins.unknown().isPresent()) {
                return Optional.empty();
            }
            request = request.pinnedTo(pins.indices());
        }
        return Optional.of(new Candidate(p.spec().key(), p.no(), request, p.spec().scheduling().priority(), p.position(),
                p.since(), p.owner(), p.spec().timeout()));
    }

    /** @return the running jobs as the queue policy sees them: who holds which GPUs, since when, how long */
    private List<Occupant> occupants() {
        List<Occupant> occupants = new ArrayList<>();
        Instant now = clock.steady();
        long nanos = clock.nanos();
        for (RunningJob rj : table.runs()) {
            // Started as long ago as the ticker says, on the policy's steady time line: the policy compares
            // its timeout's end with now, which a wall clock set since its start would otherwise shift.
            occupants.add(new Occupant(rj.key(), rj.no, rj.gpusHeld(), now.minus(rj.ran(nanos)), rj.spec.timeout(),
                    rj.spec.scheduling().priority(), rj.spec.scheduling().preemptible(), rj.stopping.isPresent()));
        }
        return occupants;
    }

    /**
     * What {@link #decide} would make of one more job queued after the pending ones, acting on nothing:
     * {@code gpusched submit --dry-run}.
     *
     * @param pending the jobs that may be placed, in queue order
     * @param extra the job not queued ({@link Admission#candidate})
     * @param views the GPUs and running jobs as last planned
     * @param snap the snapshot the views came from
     * @return the preview for {@code extra}
     */
    io.gpusched.model.SubmitPreview preview(List<PendingQueue.PendingJob> pending, PendingQueue.PendingJob extra,
                                            List<GpuView> views, GpuSnapshot snap) {
        Instant now = clock.steady();
        List<Occupant> occupants = occupants();
        List<PendingQueue.PendingJob> all = new ArrayList<>(pending);
        all.add(extra);
        Plan plan = decide(policy, all, occupants, views, snap, now, fairShare.recent(now));
        return Admission.of(plan.actions().stream().filter(a -> a.job() == extra).findFirst()
                .orElseThrow(() -> new IllegalStateException("the plan left out the previewed job")));
    }

    /**
     * Decides, without acting: which pending jobs start where, which wait and why, which can never be
     * placed (a pinned GPU the machine does not have, or the policy's verdict), which running jobs to
     * preempt. Pure: the same inputs give the same plan.
     *
     * @param pending the jobs that may be placed, in queue order
     * @param occupants the running jobs
     * @param views this round's GPUs and running jobs
     * @param snap the snapshot the views came from (for pinned GPUs' ids)
     * @param now the time the plan is for
     * @param recentShare each owner's recent GPU time, for fair share
     */
    static Plan decide(QueuePolicy policy, List<PendingQueue.PendingJob> pending, List<Occupant> occupants,
                       List<GpuView> views, GpuSnapshot snap, Instant now, Map<String, Double> recentShare) {
        List<Plan.Action> actions = new ArrayList<>();
        Map<String, PendingQueue.PendingJob> byKey = new HashMap<>();
        List<Candidate> candidates = new ArrayList<>(pending.size());
        for (PendingQueue.PendingJob p : pending) {
            Request request = request(p);
            if (p.spec().scheduling().pinned()) {
                Pins.Resolved pins = Pins.resolve(p.spec().scheduling().gpuIds(), snap);
                if (pins.unknown().isPresent()) {
                    actions.add(new Plan.Fail(p, pins.unknown().get()));
                    continue;
                }
                request = request.pinnedTo(pins.indices());
            }
            byKey.put(p.spec().key(), p);
            candidates.add(new Candidate(p.spec().key(), p.no(), request, p.spec().scheduling().priority(), p.position(),
                    p.since(), p.owner(), p.spec().timeout()));
        }
        io.gpusched.policy.Plan decided = policy.plan(now, candidates, occupants, views, recentShare);
        for (Decision d : decided.decisions()) {
            PendingQueue.PendingJob p = byKey.get(d.key());
            if (d instanceof Decision.Fail f) {
                actions.add(new Plan.Fail(p, f.reason()));
            } else if (d instanceof Decision.Wait w) {
                actions.add(new Plan.Wait(p, w.reason()));
            } else {
                List<Integer> gpus = ((Decision.Start) d).gpus();
                actions.add(new Plan.Start(p, gpus, declaredOn(p, gpus, views)));
            }
        }
        return new Plan(actions, decided.preempt(), decided.reservation(), decided.replanAt());
    }

    /**
     * Decides for a driver that places runs itself (Slurm): every job that may be placed is handed to it
     * now, in queue order, on no GPU of this machine, with its declaration; the driver's system does
     * the packing, so nothing waits here for memory, nothing is reserved and nothing preempted. Pure.
     *
     * <p>While the driver takes nothing for now ({@code busy}: a submit-count limit reached), every job it
     * could run waits with the driver's reason instead, and the plan asks to be made again once the driver's
     * back-off has passed; one of the run's cluster jobs ending plans it again sooner (its end is journaled).
     *
     * @param pending the jobs that may be placed (their dependencies met), in queue order
     * @param refusal why the driver can never run a job as written; empty when it may
     * @param busy why the driver takes no attempt for now; empty when it may
     * @param steady the policy's steady time now, which the replan time is on
     * @return a start for each, a failure for one the driver refuses, or a wait for each while it is busy
     */
    static Plan handOver(List<PendingQueue.PendingJob> pending,
                         java.util.function.Function<io.gpusched.jobs.JobSpec, Optional<String>> refusal,
                         Optional<io.gpusched.cluster.ClusterBusy> busy, Instant steady) {
        List<Plan.Action> actions = new ArrayList<>(pending.size());
        for (PendingQueue.PendingJob p : pending) {
            // A job the cluster can never run as written (a live line it cannot express) ends infeasible with
            // the cluster's reason: handed over, it would be refused each round and the run would never end.
            Optional<String> refused = refusal.apply(p.spec());
            if (refused.isPresent()) {
                actions.add(new Plan.Fail(p, refused.get()));
            } else if (busy.isPresent()) {
                // Not asked: the cluster would refuse it for the same limit, one sbatch per job and round.
                actions.add(new Plan.Wait(p, busy.get().reason()));
            } else {
                actions.add(new Plan.Start(p, List.of(), p.declaredMib()));
            }
        }
        return new Plan(actions, List.of(), Optional.empty(), busy.map(b -> steady.plus(b.retryIn())));
    }

    /**
     * Carries a plan out, in its order: failures journaled, starts launched (a start that cannot be
     * launched stays pending, with why), preemptions signalled; then one fsync for every start, and
     * their reports.
     *
     * @param views this round's GPUs and running jobs, before the starts
     * @param snap the snapshot the views came from (for the devices' UUIDs)
     * @param total jobs known to the queue
     * @param held jobs of the queue held back by their dependencies
     * @param reasons filled with why each job that stays pending waits
     */
    private Result apply(Plan plan, List<GpuView> views, GpuSnapshot snap, int total, int held, Map<String, String> reasons,
                         Instant now) {
        List<PendingQueue.PendingJob> still = new ArrayList<>();
        List<SchedulerEvent> started = new ArrayList<>();
        boolean startFailed = false;
        // Set when the cluster refused an attempt for now (a submit limit): the rest of the round waits too.
        Optional<io.gpusched.cluster.ClusterBusy> busy = Optional.empty();
        List<Plan.Action> actions = plan.actions();
        for (int i = 0; i < actions.size(); i++) {
            Plan.Action a = actions.get(i);
            PendingQueue.PendingJob p = a.job();
            if (a instanceof Plan.Fail f) {
                outcomes.fail(p.spec(), p.no(), p.declaredMib(), JobStatus.INFEASIBLE, f.reason());
            } else if (a instanceof Plan.Wait w) {
                reasons.put(p.spec().key(), w.reason());
                still.add(p);
            } else if (busy.isPresent()) {
                reasons.put(p.spec().key(), busy.get().reason());
                still.add(p);
            } else {
                Plan.Start s = (Plan.Start) a;
                // "N/M dispatched": of the M jobs of the queue, all but those still waiting (held, left
                // pending so far this round, or yet to be looked at) once this one starts, so never above M.
                int dispatched = Math.max(1, total - held - still.size() - (actions.size() - i - 1));
                Optional<RunningJob> launched;
                try {
                    launched = launcher.launch(p, s.gpus(), s.declared(), snap, dispatched, total, started);
                } catch (io.gpusched.cluster.AttemptRefusedException refused) {
                    // The cluster refused this job alone (what it asks for): it fails as a local job that can
                    // never fit does, and the others go on.
                    outcomes.fail(p.spec(), p.no(), p.declaredMib(), JobStatus.INFEASIBLE, refused.getMessage());
                    // Planned again next round, though nothing else changes: its dependants are settled then.
                    startFailed = true;
                    continue;
                } catch (io.gpusched.cluster.AttemptDeferredException deferred) {
                    // Not the job's fault (the user's submit limit on the cluster): it stays pending, is not
                    // failed, and is handed over again when a cluster job of the run ends or the back-off
                    // passes. Not a failed start: planning again every round would ask sbatch every round.
                    busy = Optional.of(deferred.busy());
                    reasons.put(p.spec().key(), deferred.busy().reason());
                    still.add(p);
                    continue;
                }
                if (launched.isPresent()) {
                    RunningJob rj = launched.get();
                    views = GpuView.withTenant(views, rj.gpus, new Tenant(rj.key(), rj.declaredMib, 0, 0));
                } else {
                    reasons.put(p.spec().key(), durability.failing().isPresent()
                            ? "dispatch paused: cannot write the journal" : "could not start: see the warning above");
                    still.add(p);
                    startFailed = true;
                }
            }
        }
        for (String key : plan.preempt()) {
            table.run(key).filter(rj -> rj.stopping.isEmpty()).ifPresent(rj -> stops.stop(rj, StopReason.PREEMPTED));
        }
        if (changed(plan.reservation())) {
            plan.reservation().ifPresent(r -> reporter.emit(new SchedulerEvent.Reserved(now, r)));
        }
        replanAt = plan.replanAt();
        if (busy.isPresent()) {
            Instant retry = clock.steady().plus(busy.get().retryIn());
            replanAt = Optional.of(replanAt.filter(t -> t.isBefore(retry)).orElse(retry));
        }
        if (!started.isEmpty()) {
            // One fsync for every launching and started line of the round, then the reports. Each
            // intent was in the file before its spawn; the fsync guards against the machine itself going
            // down, which takes the jobs with it. If it fails the jobs keep running (stopping them would
            // not make the journal truer) and nothing new starts until the journal can be written.
            // Inside a group (a round that follows exits) the group's end forces them, with the exits'
            // outcomes, and the reports wait for it (issue #27: that fsync may then run while the loop
            // takes the next exit).
            if (!durability.grouping()) {
                durability.force();
            }
            started.forEach(reporter::emit);
        }
        return new Result(still, views, startFailed);
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


}

package io.gpusched.policy;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.Rejection;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The order in which waiting jobs are offered GPUs, and how the head of the queue is kept from
 * starving. One pure function of the time, the queue, the running jobs and the GPUs:
 *
 * <ol>
 *   <li><b>Order.</b> Effective priority = declared priority + one per full {@code ageStep} waited −
 *       (when jobs of several owners wait) the owner's recent GPU-hours, rounded down. Higher first;
 *       ties keep queue order (file order, then submissions, then requeued time slices).</li>
 *   <li><b>Walk.</b> Each job in that order is placed by the allocator if it fits now (a later job
 *       that fits may start while an earlier one waits: backfill); one that can never fit fails.</li>
 *   <li><b>Reservation.</b> The first job in that order that cannot be placed and has waited at least
 *       {@code reserveAfter} gets GPUs reserved: those that will be free soonest (every job there has a
 *       timeout ending soonest; then the least memory to drain; then the lowest index). Jobs after it may
 *       take a reserved GPU only when they have a timeout that ends before that of every job already
 *       running there, so they are gone before it could start.</li>
 *   <li><b>Preemption.</b> If it would fit once running preemptible jobs of lower declared priority are
 *       gone, the fewest of them (lowest priority, then latest started) are stopped and requeued, and
 *       their GPUs are its reservation.</li>
 * </ol>
 */
public final class QueuePolicy {
    private static final Duration RESERVATION_REFRESH = Duration.ofMinutes(1);

    private final Allocator allocator;
    private final PolicyOptions options;
    private final Reserver reserver;

    /**
     * @param allocator the placement rules
     * @param options age step, reservation threshold, fair-share half-life
     */
    public QueuePolicy(Allocator allocator, PolicyOptions options) {
        this.allocator = allocator;
        this.options = options;
        this.reserver = new Reserver(allocator);
    }

    /** @return the tunables */
    public PolicyOptions options() {
        return options;
    }

    /**
     * Plans one round.
     *
     * @param now the time
     * @param queue the waiting jobs, in queue order
     * @param running the running jobs (their tenants are on {@code views})
     * @param views every GPU with our jobs on it
     * @param recentGpuHours each owner's recent GPU time in GPU-hours (see {@link FairShare}); owners
     *     absent have none
     * @return what to start, what waits and why, what to reserve and preempt
     */
    public Plan plan(Instant now, List<Candidate> queue, List<Occupant> running, List<GpuView> views,
                     Map<String, Double> recentGpuHours) {
        List<Candidate> order = order(now, queue, recentGpuHours);
        boolean shared = false;
        for (Candidate c : order) {
            if (!c.owner().equals(order.get(0).owner())) {
                shared = true;
                break;
            }
        }
        List<Decision> decisions = new ArrayList<>(order.size());
        List<GpuView> current = views;
        List<Occupant> occupants = new ArrayList<>(running);
        Optional<Reservation> reservation = Optional.empty();
        List<String> preempt = new ArrayList<>();
        Optional<Instant> replanAt = Optional.empty();
        // Within one state of the GPUs an identical question gets an identical answer: 10,000 waiting
        // lines of a few shapes cost a few allocator calls. A start changes the state and clears it.
        Map<Question, Placement> memo = new HashMap<>();
        // And the words of one answer, and one owner's fair-share note, are made once, not once per job
        // (a reservation's "for job N, waiting 2h 5m" and the note's figure cost more than the rest of a
        // blocked job's turn when every job ended re-planned 10,000).
        Map<Placement, String> reasons = new java.util.IdentityHashMap<>();
        Map<String, String> notes = new HashMap<>();
        String lastReason = "";
        for (Candidate c : order) {
            Set<Integer> closed = reservation.isPresent() ? closedTo(c, reservation.get(), occupants, now) : Set.of();
            // Looked up and put, not computeIfAbsent: a lambda capturing the state, made per job, was a native
            // allocation each under the client compiler the launcher runs.
            Question question = new Question(c.request(), closed);
            Placement p = memo.get(question);
            if (p == null) {
                p = allocator.place(c.request(), current, closed);
                memo.put(question, p);
            }
            if (p instanceof Placement.Infeasible inf) {
                decisions.add(new Decision.Fail(c.key(), inf.reason()));
            } else if (p instanceof Placement.Placed placed) {
                decisions.add(new Decision.Start(c.key(), placed.gpus()));
                current = GpuView.withTenant(current, placed.gpus(), new Tenant(c.key(), declaredOn(c.request(), placed, current), 0, 0));
                occupants.add(new Occupant(c.key(), c.no(), placed.gpus(), now, c.timeout(), c.priority(), false, false));
                memo.clear();
                reasons.clear();
            } else {
                Placement.Blocked b = (Placement.Blocked) p;
                Duration waited = Duration.between(c.queuedAt(), now);
                String reason = b.reason();
                if (reservation.isEmpty() && waited.compareTo(options.reserveAfter()) >= 0) {
                    reservation = reserver.reserve(c, waited, current, occupants, now, preempt);
                    if (reservation.isPresent()) {
                        reason += "; " + reservation.get().describe() + preempting(reservation.get());
                        reasons.clear(); // the words said before it have no "for job N" to say
                    }
                } else {
                    String said = reasons.get(b);
                    if (said == null) {
                        said = reservedFor(b.reason(), b, reservation);
                        reasons.put(b, said);
                    }
                    reason = said;
                }
                if (waited.compareTo(options.reserveAfter()) < 0) {
                    replanAt = earliest(replanAt, c.queuedAt().plus(options.reserveAfter()));
                }
                if (shared) {
                    String note = notes.get(c.owner());
                    if (note == null) {
                        note = fairShareNote(c.owner(), recentGpuHours);
                        notes.put(c.owner(), note);
                    }
                    reason += note;
                }
                // Jobs of one shape wait for the same words: one string for all, not one per job.
                if (reason.equals(lastReason)) {
                    reason = lastReason;
                }
                lastReason = reason;
                decisions.add(new Decision.Wait(c.key(), reason));
            }
        }
        if (reservation.isPresent()) {
            replanAt = earliest(replanAt, now.plus(RESERVATION_REFRESH));
        }
        return new Plan(decisions, reservation, preempt, replanAt);
    }

    /** The allocator's reason ends with "gpuN is reserved"; say for whom. */
    private static String reservedFor(String reason, Placement.Blocked b, Optional<Reservation> reservation) {
        if (reservation.isPresent() && b.rejections().stream().anyMatch(r -> r.check() == Rejection.Check.RESERVED)) {
            return reason + " for job " + reservation.get().no() + ", waiting " + Waits.format(reservation.get().waited());
        }
        return reason;
    }

    /**
     * What a plan left that decides a job joining the queue after it, without planning the others again
     * ({@link #admit}).
     *
     * @param reservation the plan's reservation, if any
     * @param holder the waiting job it is for (present exactly when {@code reservation} is)
     * @param owners the owners of the jobs the plan was given (fair share applies once there are two)
     * @param started whether the plan started or failed any job (then the GPUs it saw are not those now)
     */
    public record Standing(Optional<Reservation> reservation, Optional<Candidate> holder, Set<String> owners,
                           boolean started) {
        /**
         * Checks for nulls and that the holder comes with the reservation.
         *
         * @param reservation see {@link #reservation()}
         * @param holder see {@link #holder()}
         * @param owners see {@link #owners()}
         * @param started see {@link #started()}
         */
        public Standing {
            java.util.Objects.requireNonNull(reservation, "reservation");
            java.util.Objects.requireNonNull(holder, "holder");
            java.util.Objects.requireNonNull(owners, "owners");
            if (reservation.isPresent() != holder.isPresent()) {
                throw new IllegalArgumentException("a reservation comes with its holder");
            }
        }
    }

    /**
     * Decides, alone, a job that joined the queue after a plan that started nothing: the decision
     * {@link #plan} would give it with the same queue and GPUs, as long as its arrival changes no other
     * job's. That is so when it waits (the GPUs it could take are taken or reserved), it is not the
     * job a reservation goes to, and it brings no second owner (which would make fair share reorder
     * everyone). Otherwise the caller plans the whole queue.
     *
     * @param now the time
     * @param c the job that joined
     * @param standing what the last plan left
     * @param running the running jobs now
     * @param views the GPUs now, with our jobs on them; the same the last plan placed on
     * @param recentGpuHours each owner's recent GPU time
     * @return why it waits; empty when it would start or fail, or its arrival could change another
     *     job's decision
     */
    public Optional<String> admit(Instant now, Candidate c, Standing standing, List<Occupant> running, List<GpuView> views,
                                  Map<String, Double> recentGpuHours) {
        if (standing.started() || (!standing.owners().isEmpty() && !standing.owners().contains(c.owner())
                && standing.owners().size() == 1)) {
            return Optional.empty();
        }
        boolean shared = standing.owners().size() > 1 || (!standing.owners().isEmpty() && !standing.owners().contains(c.owner()));
        Map<String, Double> usage = shared ? recentGpuHours : Map.of();
        Duration waited = Duration.between(c.queuedAt(), now);
        boolean mayReserve = waited.compareTo(options.reserveAfter()) >= 0;
        Optional<Reservation> reservation = standing.reservation();
        boolean beforeHolder = reservation.isEmpty() || comesBefore(c, standing.holder().get(), now, usage);
        if (mayReserve && beforeHolder) {
            return Optional.empty(); // it would take the reservation (or get the first one)
        }
        Set<Integer> closed = beforeHolder ? Set.of() : closedTo(c, reservation.get(), running, now);
        if (!(allocator.place(c.request(), views, closed) instanceof Placement.Blocked b)) {
            return Optional.empty();
        }
        String reason = beforeHolder ? b.reason() : reservedFor(b.reason(), b, reservation);
        if (shared) {
            reason += fairShareNote(c.owner(), recentGpuHours);
        }
        return Optional.of(reason);
    }

    /**
     * The order {@link #order} puts jobs in at {@code now}, as a comparator: to place a job that joins a
     * queue already in order (a binary search) instead of ordering the whole queue again.
     *
     * @param now the time
     * @param usage each owner's recent GPU time when fair share applies (jobs of several owners wait);
     *     empty when it does not
     * @return earlier first
     */
    public Comparator<Candidate> orderAt(Instant now, Map<String, Double> usage) {
        return (a, b) -> RANK.compare(new Ranked(a, effective(a, now, usage)), new Ranked(b, effective(b, now, usage)));
    }

    /** Whether {@code a} comes before {@code b} in {@link #order} at {@code now}. */
    private boolean comesBefore(Candidate a, Candidate b, Instant now, Map<String, Double> usage) {
        return RANK.compare(new Ranked(a, effective(a, now, usage)), new Ranked(b, effective(b, now, usage))) < 0;
    }

    /** Highest effective priority first, ties in queue order, then by number. */
    private static final Comparator<Ranked> RANK = Comparator.comparingLong((Ranked r) -> -r.effective())
            .thenComparingLong(r -> r.candidate().position()).thenComparingInt(r -> r.candidate().no());

    /**
     * @param now the time
     * @param queue waiting jobs in queue order
     * @param recentGpuHours each owner's recent GPU time
     * @return the same jobs, highest effective priority first, ties in queue order
     */
    public List<Candidate> order(Instant now, List<Candidate> queue, Map<String, Double> recentGpuHours) {
        boolean shared = !queue.isEmpty() && queue.stream().anyMatch(c -> !c.owner().equals(queue.get(0).owner()));
        Map<String, Double> usage = shared ? recentGpuHours : Map.of();
        List<Ranked> ranked = new ArrayList<>(queue.size());
        for (Candidate c : queue) {
            ranked.add(new Ranked(c, effective(c, now, usage)));
        }
        ranked.sort(RANK);
        List<Candidate> out = new ArrayList<>(ranked.size());
        ranked.forEach(r -> out.add(r.candidate()));
        return out;
    }

    /** A candidate with its effective priority, computed once per plan. */
    private record Ranked(Candidate candidate, long effective) {
    }

    /**
     * @param c a waiting job
     * @param now the time
     * @param recentGpuHours owners' recent GPU time (empty when fair share does not apply)
     * @return its effective priority
     */
    public long effective(Candidate c, Instant now, Map<String, Double> recentGpuHours) {
        long waited = Math.max(0, Duration.between(c.queuedAt(), now).getSeconds());
        long aged = waited / options.ageStep().getSeconds();
        long penalty = (long) Math.floor(recentGpuHours.getOrDefault(c.owner(), 0.0));
        return c.priority() + aged - penalty;
    }

    /** The reserved GPUs this job may not take: all but those where it is sure to be gone first. */
    private static Set<Integer> closedTo(Candidate c, Reservation r, List<Occupant> occupants, Instant now) {
        if (c.key().equals(r.key())) {
            return Set.of();
        }
        Set<Integer> closed = new HashSet<>();
        for (int g : r.gpus()) {
            if (!endsBeforeEveryOccupant(c, g, occupants, now)) {
                closed.add(g);
            }
        }
        return closed;
    }

    private static boolean endsBeforeEveryOccupant(Candidate c, int gpu, List<Occupant> occupants, Instant now) {
        if (c.timeout().isEmpty()) {
            return false;
        }
        Instant end = now.plus(c.timeout().get());
        boolean any = false;
        for (Occupant o : occupants) {
            if (!o.gpus().contains(gpu)) {
                continue;
            }
            any = true;
            // A job being stopped is leaving now; one without a timeout may stay forever.
            if (o.stopping() || (o.endsBy().isPresent() && o.endsBy().get().isBefore(end))) {
                return false;
            }
        }
        return any;
    }





    private static String preempting(Reservation r) {
        if (r.preempting().isEmpty()) {
            return "";
        }
        return "; preempting job" + (r.preempting().size() == 1 ? " " : "s ")
                + String.join(", ", r.preempting().stream().map(String::valueOf).toList());
    }

    private static String fairShareNote(String owner, Map<String, Double> recentGpuHours) {
        double used = recentGpuHours.getOrDefault(owner, 0.0);
        long penalty = (long) Math.floor(used);
        return penalty < 1 ? "" : "; fair share: " + owner + " used " + String.format(java.util.Locale.ROOT, "%.1f", used)
                + " GPU-h recently (priority −" + penalty + ")";
    }

    private static Optional<Instant> earliest(Optional<Instant> a, Instant b) {
        return Optional.of(a.isEmpty() || b.isBefore(a.get()) ? b : a.get());
    }



    /**
     * One allocator question: a request, and the reserved GPUs closed to it. Equality is written out, as
     * the record would make it: the made one is linked at its first call through {@code ObjectMethods},
     * several milliseconds of interpreted method-handle work in every run's first plan.
     */
    private record Question(Request request, Set<Integer> closed) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Question q && Objects.equals(request, q.request) && Objects.equals(closed, q.closed);
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(request) * 31 + Objects.hashCode(closed);
        }
    }

    /** What a started job reserves where it went: a share of one GPU is of that GPU's total. */
    private static java.util.OptionalLong declaredOn(Request request, Placement.Placed placed, List<GpuView> views) {
        if (request.share().isEmpty()) {
            return request.vramMib();
        }
        int gpu = placed.gpus().get(0);
        return views.stream().filter(v -> v.index() == gpu).findFirst()
                .map(v -> request.declaredOn(v.totalMib())).orElse(request.vramMib());
    }
}

package io.gpusched.testkit.replay;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.model.JobStatus;
import io.gpusched.outcome.AttemptFacts;
import io.gpusched.outcome.AttemptJudge;
import io.gpusched.policy.Candidate;
import io.gpusched.policy.Decision;
import io.gpusched.policy.Dependencies;
import io.gpusched.policy.Occupant;
import io.gpusched.policy.Plan;
import io.gpusched.policy.PolicyOptions;
import io.gpusched.policy.QueuePolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A zero-overhead replay of gpusched's scheduling: the pure {@link QueuePolicy} (queue order, aging,
 * reservations, preemption) over the pure {@link Allocator}, driven by a discrete-event clock. No
 * processes, no sampling, no poll: every job starts the instant the policy allows and ends exactly
 * {@code duration} later, and the freed GPUs are offered to the queue at that same instant. Its
 * makespan is the bound a real run of the same policy can approach.
 *
 * <p>Jobs join the queue at their {@code arrival}. A running job is a tenant with its declaration as
 * budget; a known peak above the declaration raises the budget the way observed peaks do in the engine.
 * A job whose {@code timeout=} is shorter than its duration is stopped at the limit, as the scheduler
 * stops it, and frees its GPUs then; the replay takes it to exit the instant it is told to (the sim job
 * does), where a real job may take up to the kill grace.
 *
 * <p>How each attempt ends is the engine's own rule, not a copy: the replay gives the
 * {@link AttemptJudge} the attempt's facts (stopped at its limit, with the reason
 * {@link AttemptJudge#stopAtTheLimit} names for its {@code on-timeout=}; preempted; or exited 0, with its
 * declaration and known peak) and does what it decides. An outcome ({@link JobStatus#OK},
 * {@link JobStatus#TIMEOUT}) is the run's {@link ReplayResult.Run#status()} and what the jobs after it
 * see; a preempted job frees its GPUs at once and runs again where it stood, to do the work of that run
 * anew; a used-up time slice ({@code on-timeout=requeue}) runs again at the back of the queue with the
 * rest of its work, so such a job runs in slices of its timeout until its duration is done. A job waits
 * for its {@code after} dependencies (a timed-out one counts as failed) and never runs when one it needs
 * failed. Not modelled: a failing exit or a CUDA OOM (every command succeeds), external processes (the
 * GPUs start empty), fair share (one owner).
 */
public final class Replay {
    /**
     * The engine's outcome rules. The tolerance is the engine's default; the replay reports no verdict,
     * and an undeclared job's retry never happens here (no OOM is modelled).
     */
    private static final AttemptJudge JUDGE = new AttemptJudge(0.1, AttemptJudge.UndeclaredRetry.DECLARES_THE_BUMPED_PEAK);

    private final QueuePolicy policy;
    private final List<Long> gpuTotalsMib;

    /**
     * A replay with the default queue policy.
     *
     * @param policy placement tunables (margin, spike buffer, exclusivity, allowed GPUs)
     * @param gpuTotalsMib memory of each GPU in MiB, indexed from 0
     */
    public Replay(PlacementPolicy policy, List<Long> gpuTotalsMib) {
        this(policy, PolicyOptions.defaults(), gpuTotalsMib);
    }

    /**
     * @param policy placement tunables (margin, spike buffer, exclusivity, allowed GPUs)
     * @param queue the queue policy's tunables (aging, reservation threshold)
     * @param gpuTotalsMib memory of each GPU in MiB, indexed from 0
     */
    public Replay(PlacementPolicy policy, PolicyOptions queue, List<Long> gpuTotalsMib) {
        if (gpuTotalsMib.isEmpty()) {
            throw new IllegalArgumentException("at least one GPU is needed");
        }
        this.policy = new QueuePolicy(new Allocator(policy), queue);
        this.gpuTotalsMib = List.copyOf(gpuTotalsMib);
    }

    /**
     * A run in progress, and how it ends, judged when it starts: the replay knows its end already (its
     * duration, or its limit, whichever comes first).
     */
    private record Active(ReplayResult.Run run, long endNanos, Waiting from, AttemptJudge.Decision ending) {
    }

    /** A waiting job: since when, how much of its work is left, and its place among equal priorities. */
    private record Waiting(ReplayJob job, long queuedNanos, long remainingNanos, long position) {
    }

    /**
     * Replays the jobs: each joins the queue at its arrival, in the given order among equal arrivals.
     *
     * @param jobs the queue
     * @return makespan, runs and per-GPU timeline
     */
    public ReplayResult run(List<ReplayJob> jobs) {
        List<ReplayJob> arrivals = new ArrayList<>(jobs);
        arrivals.sort(Comparator.comparing(ReplayJob::arrival)); // stable: queue order among equal arrivals
        Map<ReplayJob, Long> position = new HashMap<>();
        for (int i = 0; i < jobs.size(); i++) {
            position.put(jobs.get(i), (long) i);
        }
        Map<String, ReplayJob> byKey = new HashMap<>();
        jobs.forEach(j -> byKey.put(key(j), j));
        List<Waiting> pending = new ArrayList<>();
        Dependencies dependencies = new Dependencies();
        jobs.forEach(j -> j.scheduling().name().ifPresent(n -> dependencies.learn(n, key(j))));
        Map<String, JobStatus> endedStatus = new HashMap<>();
        Map<String, Integer> numbers = new HashMap<>();
        jobs.forEach(j -> numbers.put(key(j), j.no()));
        long backs = Long.MAX_VALUE / 2;
        PriorityQueue<Active> active = new PriorityQueue<>(
                Comparator.comparingLong(Active::endNanos).thenComparingInt(a -> a.run().job().no()));
        List<ReplayResult.Run> runs = new ArrayList<>();
        Map<ReplayJob, String> infeasible = new LinkedHashMap<>();
        int next = 0;
        long now = 0;
        long end = 0;
        while (true) {
            while (next < arrivals.size() && arrivals.get(next).arrival().toNanos() <= now) {
                ReplayJob j = arrivals.get(next);
                pending.add(new Waiting(j, j.arrival().toNanos(), j.duration().toNanos(), position.get(j)));
                next++;
            }
            Instant at = Instant.EPOCH.plusNanos(now);
            List<Candidate> candidates = new ArrayList<>();
            Map<String, Waiting> waitingByKey = new HashMap<>();
            List<Waiting> held = new ArrayList<>();
            for (Waiting w : pending) {
                ReplayJob j = w.job();
                Dependencies.Verdict v = dependencies.check(j.scheduling().after(),
                        k -> new Dependencies.Known(numbers.get(k),
                                Optional.ofNullable(endedStatus.get(k)).map(JobStatus::journalName)));
                if (v instanceof Dependencies.Failed f) {
                    infeasible.put(j, "dependency failed: " + f.reason());
                    endedStatus.put(key(j), JobStatus.DEPENDENCY_FAILED);
                    continue;
                }
                if (v instanceof Dependencies.Waiting) {
                    held.add(w);
                    continue;
                }
                Request r = j.share().map(Request::share).orElse(new Request(j.declaredMib(), j.gpus()));
                if (j.scheduling().pinned()) {
                    r = r.pinnedTo(j.scheduling().gpuIds().stream().filter(id -> id.chars().allMatch(Character::isDigit))
                            .map(Integer::parseInt).collect(Collectors.toSet()));
                }
                candidates.add(new Candidate(key(j), j.no(), r, j.scheduling().priority(), w.position(),
                        Instant.EPOCH.plusNanos(w.queuedNanos()), "replay", j.timeout()));
                waitingByKey.put(key(j), w);
            }
            List<Occupant> occupants = new ArrayList<>();
            for (Active a : active) {
                ReplayJob j = a.run().job();
                occupants.add(new Occupant(key(j), j.no(), a.run().gpus(), Instant.EPOCH.plus(a.run().start()), j.timeout(),
                        j.scheduling().priority(), j.scheduling().preemptible(), false));
            }
            Plan plan = policy.plan(at, candidates, occupants, views(active), Map.of());
            List<Waiting> still = new ArrayList<>(held);
            for (Decision d : plan.decisions()) {
                Waiting w = waitingByKey.get(d.key());
                if (d instanceof Decision.Fail f) {
                    infeasible.put(w.job(), f.reason());
                } else if (d instanceof Decision.Wait) {
                    still.add(w);
                } else {
                    List<Integer> gpus = ((Decision.Start) d).gpus();
                    ReplayJob j = w.job();
                    long limit = j.timeout().map(Duration::toNanos).orElse(Long.MAX_VALUE);
                    // Work that outlasts its limit is stopped there, as the engine's deadline stops it.
                    AttemptJudge.Decision ending = judged(j, w.remainingNanos() > limit
                            ? Optional.of(AttemptJudge.stopAtTheLimit(j.scheduling().onTimeout())) : Optional.empty());
                    long stop = now + Math.min(w.remainingNanos(), limit);
                    ReplayResult.Run run = new ReplayResult.Run(j, gpus, Duration.ofNanos(now), Duration.ofNanos(stop),
                            outcome(ending));
                    runs.add(run);
                    active.add(new Active(run, stop, w, ending));
                    end = Math.max(end, stop);
                }
            }
            pending = still;
            if (!plan.preempt().isEmpty()) {
                for (String k : plan.preempt()) {
                    Active victim = active.stream().filter(a -> key(a.run().job()).equals(k)).findFirst().orElseThrow();
                    active.remove(victim);
                    AttemptJudge.Decision ending = judged(victim.run().job(), Optional.of(StopReason.PREEMPTED));
                    runs.set(runs.indexOf(victim.run()), new ReplayResult.Run(victim.run().job(), victim.run().gpus(),
                            victim.run().start(), Duration.ofNanos(now), outcome(ending)));
                    backs = act(ending, victim, now, pending, endedStatus, backs);
                }
                end = Math.max(now, active.stream().mapToLong(Active::endNanos).max().orElse(now));
                continue; // the freed GPUs are offered at this same instant
            }
            long wake = Long.MAX_VALUE;
            if (!active.isEmpty()) {
                wake = active.peek().endNanos();
            }
            if (next < arrivals.size()) {
                wake = Math.min(wake, arrivals.get(next).arrival().toNanos());
            }
            if (!pending.isEmpty() && plan.replanAt().isPresent()) {
                Duration replan = Duration.between(Instant.EPOCH, plan.replanAt().get());
                if (replan.getSeconds() < Long.MAX_VALUE / 1_000_000_000L) {
                    wake = Math.min(wake, replan.toNanos());
                }
            }
            if (wake == Long.MAX_VALUE || (pending.isEmpty() && active.isEmpty() && next >= arrivals.size())) {
                break; // anything still pending can never be placed with nothing running: cannot happen
                       // for feasible jobs on empty GPUs, but guard against a policy that blocks forever
            }
            now = Math.max(now, wake);
            while (!active.isEmpty() && active.peek().endNanos() <= now) {
                Active a = active.poll();
                backs = act(a.ending(), a, now, pending, endedStatus, backs);
            }
        }
        for (Waiting w : pending) {
            infeasible.put(w.job(), "blocked on empty GPUs");
        }
        end = runs.stream().mapToLong(r -> r.end().toNanos()).max().orElse(0);
        Map<Integer, List<ReplayResult.Run>> timeline = new TreeMap<>();
        for (int g = 0; g < gpuTotalsMib.size(); g++) {
            timeline.put(g, new ArrayList<>());
        }
        runs.sort(Comparator.comparing(ReplayResult.Run::start).thenComparingInt(r -> r.job().no()));
        for (ReplayResult.Run r : runs) {
            r.gpus().forEach(g -> timeline.get(g).add(r));
        }
        Map<Integer, Double> busy = new HashMap<>();
        long makespan = end;
        timeline.forEach((g, rs) -> busy.put(g, makespan == 0 ? 0.0 : (double) busyNanos(rs) / makespan));
        return new ReplayResult(Duration.ofNanos(makespan), runs, infeasible, timeline, busy);
    }

    /**
     * The engine's judge on a replayed attempt: its command ran and exits 0 unless the scheduler stops
     * it; the replay models no OOM (no retries, no log), so only the stop and the exit decide.
     */
    private static AttemptJudge.Decision judged(ReplayJob j, Optional<StopReason> stoppedFor) {
        return JUDGE.judge(new AttemptFacts(stoppedFor, 0, true, 1, 0, j.declaredMib(), j.peakMib()), () -> "");
    }

    /** A run's outcome as its result tells it: none for an attempt that runs again. */
    private static Optional<JobStatus> outcome(AttemptJudge.Decision ending) {
        return ending instanceof AttemptJudge.Final f ? Optional.of(f.status()) : Optional.empty();
    }

    /**
     * Does what the judge decided of an ended attempt: its outcome is known to the jobs that run after it,
     * or it waits again, where it stood with its interrupted work to do anew (a preemption), or at the back,
     * waiting from now, with the rest of its work (a used-up time slice: the sim job resumes).
     *
     * @param back the place at the back of the queue
     * @return the next place at the back
     */
    private static long act(AttemptJudge.Decision ending, Active a, long now, List<Waiting> pending,
                            Map<String, JobStatus> endedStatus, long back) {
        ReplayJob j = a.run().job();
        if (ending instanceof AttemptJudge.Final f) {
            endedStatus.put(key(j), f.status());
        } else if (ending instanceof AttemptJudge.RunAgain again && again.place() == AttemptJudge.Place.AT_THE_BACK) {
            long done = a.endNanos() - a.run().start().toNanos();
            pending.add(new Waiting(j, now, a.from().remainingNanos() - done, back));
            return back + 1;
        } else if (ending instanceof AttemptJudge.RunAgain) {
            pending.add(a.from());
        } else {
            throw new IllegalStateException("the replay models no OOM, so no OOM retry: " + ending);
        }
        return back;
    }

    private static String key(ReplayJob j) {
        return "r" + j.no();
    }

    private static long busyNanos(List<ReplayResult.Run> runs) {
        // Union of intervals; runs are in start order.
        long total = 0;
        long curStart = -1;
        long curEnd = -1;
        for (ReplayResult.Run r : runs) {
            long s = r.start().toNanos();
            long e = r.end().toNanos();
            if (s > curEnd) {
                total += Math.max(0, curEnd - curStart);
                curStart = s;
                curEnd = e;
            } else {
                curEnd = Math.max(curEnd, e);
            }
        }
        return total + Math.max(0, curEnd - curStart);
    }

    private List<GpuView> views(PriorityQueue<Active> active) {
        List<GpuView> out = new ArrayList<>(gpuTotalsMib.size());
        for (int g = 0; g < gpuTotalsMib.size(); g++) {
            List<Tenant> tenants = new ArrayList<>();
            long used = 0;
            for (Active a : active) {
                if (a.run().gpus().contains(g)) {
                    ReplayJob j = a.run().job();
                    long peak = j.peakMib().orElse(0);
                    // A share reserves its part of this GPU's own total, as the engine counts it.
                    OptionalLong declared = j.share().isPresent()
                            ? OptionalLong.of(j.share().get().mibOf(gpuTotalsMib.get(g))) : j.declaredMib();
                    // The engine budgets the declaration from the start; a known overrun counts as observed.
                    long current = declared.isPresent() && peak <= declared.getAsLong() ? 0 : peak;
                    tenants.add(new Tenant(key(j), declared, current, current));
                    used += current;
                }
            }
            out.add(new GpuView(g, gpuTotalsMib.get(g), Math.min(used, gpuTotalsMib.get(g)), 0, tenants, true));
        }
        return out;
    }
}

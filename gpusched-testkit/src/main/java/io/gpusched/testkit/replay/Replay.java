package io.gpusched.testkit.replay;

import io.gpusched.Simulation;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.JobStatus;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.policy.PolicyOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A replay of gpusched's scheduling: the scheduler's own engine ({@link Simulation}) on simulated GPUs
 * and a virtual clock. No process runs and the loop never sleeps: every job starts when the engine starts
 * it and ends exactly {@code duration} later, and the freed GPUs are offered to the queue at that same
 * instant. Its makespan is the bound a real run of the same policy can approach.
 *
 * <p>Jobs join the queue at their {@code arrival}, in the given order among equal arrivals. A running
 * job is a tenant with its declaration as budget; the GPUs report its known peak, which raises the budget
 * when it is above the declaration, as observed peaks do. A job whose {@code timeout=} is shorter than its
 * duration is stopped at the limit and frees its GPUs then (the replay takes it to exit the instant it is
 * told to, as the sim job does, where a real job may take up to the kill grace).
 *
 * <p>How each attempt ends is the engine's: an outcome ({@link JobStatus#OK}, {@link JobStatus#TIMEOUT})
 * is the run's {@link ReplayResult.Run#status()} and what the jobs after it see; a preempted job frees its
 * GPUs at once and runs again where it stood, to do the work of that run anew; a used-up time slice
 * ({@code on-timeout=requeue}) runs again at the back of the queue with the rest of its work, so such a
 * job runs in slices of its timeout until its duration is done. A job waits for its {@code after}
 * dependencies (a timed-out one counts as failed) and never runs when one it needs failed. Not modelled:
 * a failing exit or a CUDA OOM (every command succeeds), external processes (the GPUs start empty), fair
 * share (one owner).
 */
public final class Replay {
    private final SchedulerOptions options;
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
        SchedulerOptions o = SchedulerOptions.defaults().withMarginMib(policy.marginMib())
                .withIdleThresholdMib(policy.idleThresholdMib()).withSpikeBuffer(policy.spikeBuffer())
                .withExclusive(policy.exclusive()).withPolicy(queue);
        this.options = policy.allowedGpus().map(o::withAllowedGpus).orElse(o);
        this.gpuTotalsMib = List.copyOf(gpuTotalsMib);
    }

    /** A run as the engine reported it, by the engine's number for its job. */
    private static final class Attempt {
        final int no;
        final List<Integer> gpus;
        final Duration start;
        Duration end;
        Optional<JobStatus> status = Optional.empty();

        Attempt(int no, List<Integer> gpus, Duration start) {
            this.no = no;
            this.gpus = gpus;
            this.start = start;
        }
    }

    /**
     * Replays the jobs: each joins the queue at its arrival, in the given order among equal arrivals.
     *
     * @param jobs the queue
     * @return makespan, runs and per-GPU timeline
     */
    public ReplayResult run(List<ReplayJob> jobs) {
        Map<Simulation.Job, ReplayJob> replayed = new IdentityHashMap<>();
        List<Simulation.Job> simulated = new ArrayList<>();
        for (ReplayJob j : jobs) {
            // Keyed here by its place: the engine keys each job anew as the submission it makes of it
            // (s<number>), so the line's own key, a SHA-1 of its command, would be computed for nothing.
            JobSpec spec = JobSpec.builder(j.command()).vramMib(j.declaredMib()).gpus(j.gpus()).timeout(j.timeout())
                    .scheduling(j.scheduling()).share(j.share()).key("replay#" + simulated.size()).build();
            Simulation.Job s = new Simulation.Job(spec, j.arrival(), j.duration(), j.peakMib());
            replayed.put(s, j);
            simulated.add(s);
        }
        List<Attempt> attempts = new ArrayList<>();
        Map<Integer, Attempt> open = new HashMap<>();
        Map<Integer, String> never = new LinkedHashMap<>();
        StatusBoard[] last = {null};
        Simulation.Result result = Simulation.run(gpuTotalsMib, options, simulated, e -> {
            if (e instanceof SchedulerEvent.JobStarted s) {
                Attempt a = new Attempt(s.no(), s.gpus(), since(s.at()));
                attempts.add(a);
                open.put(s.no(), a);
            } else if (e instanceof SchedulerEvent.JobRequeued r) {
                close(open.remove(r.no()), r.at(), Optional.empty());
            } else if (e instanceof SchedulerEvent.JobFinished f) {
                close(open.remove(f.result().no()), f.at(), Optional.of(f.result().status()));
            } else if (e instanceof SchedulerEvent.JobInfeasible i) {
                never.put(i.no(), i.reason());
            } else if (e instanceof SchedulerEvent.DependencyFailed d) {
                never.put(d.no(), "dependency failed: " + d.reason());
            } else if (e instanceof SchedulerEvent.StatusUpdated u) {
                last[0] = u.board();
            }
        });
        Map<ReplayJob, String> infeasible = new LinkedHashMap<>();
        never.forEach((no, reason) -> infeasible.put(replayed.get(result.jobs().get(no)), reason));
        if (last[0] != null) {
            // Still waiting when nothing ran and nothing more came: it can never start.
            last[0].pending().forEach(p -> infeasible.putIfAbsent(replayed.get(result.jobs().get(p.no())),
                    "blocked on empty GPUs"));
        }
        List<ReplayResult.Run> runs = new ArrayList<>();
        for (Attempt a : attempts) {
            if (a.end != null) {
                runs.add(new ReplayResult.Run(replayed.get(result.jobs().get(a.no)), a.gpus, a.start, a.end, a.status));
            }
        }
        runs.sort(Comparator.comparing(ReplayResult.Run::start).thenComparingInt(r -> r.job().no()));
        long makespan = runs.stream().mapToLong(r -> r.end().toNanos()).max().orElse(0);
        Map<Integer, List<ReplayResult.Run>> timeline = new TreeMap<>();
        for (int g = 0; g < gpuTotalsMib.size(); g++) {
            timeline.put(g, new ArrayList<>());
        }
        for (ReplayResult.Run r : runs) {
            r.gpus().forEach(g -> timeline.get(g).add(r));
        }
        Map<Integer, Double> busy = new HashMap<>();
        timeline.forEach((g, rs) -> busy.put(g, makespan == 0 ? 0.0 : (double) busyNanos(rs) / makespan));
        return new ReplayResult(Duration.ofNanos(makespan), runs, infeasible, timeline, busy);
    }

    private static Duration since(Instant at) {
        return Duration.between(Simulation.START, at);
    }

    private static void close(Attempt a, Instant at, Optional<JobStatus> status) {
        if (a != null) { // a job that never ran ends too (infeasible, a failed dependency): no run to close
            a.end = since(at);
            a.status = status;
        }
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
}

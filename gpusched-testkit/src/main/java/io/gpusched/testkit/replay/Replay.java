package io.gpusched.testkit.replay;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * A zero-overhead replay of gpusched's placement policy: the pure {@link Allocator} driven by a
 * discrete-event clock. No processes, no sampling, no poll: every job starts the instant the policy
 * allows and ends exactly {@code duration} later, and the freed GPUs are offered to the queue at that
 * same instant. Its makespan is the bound a real run of the same policy can approach.
 *
 * <p>Each round walks the queue in order, like the engine: infeasible jobs fail at once, blocked jobs
 * stay pending, smaller jobs behind them backfill. A running job is a tenant with its declaration as
 * budget; a known peak above the declaration raises the budget the way observed peaks do in the engine.
 * A job whose {@code timeout=} is shorter than its duration is stopped at the limit, as the scheduler
 * stops it, and frees its GPUs then; the replay takes it to exit the instant it is told to (the sim job
 * does), where a real job may take up to the kill grace. External processes are not modelled (the
 * GPUs start empty).
 */
public final class Replay {
    private final Allocator allocator;
    private final List<Long> gpuTotalsMib;

    /**
     * @param policy placement tunables (margin, spike buffer, exclusivity, allowed GPUs)
     * @param gpuTotalsMib memory of each GPU in MiB, indexed from 0
     */
    public Replay(PlacementPolicy policy, List<Long> gpuTotalsMib) {
        if (gpuTotalsMib.isEmpty()) {
            throw new IllegalArgumentException("at least one GPU is needed");
        }
        this.allocator = new Allocator(policy);
        this.gpuTotalsMib = List.copyOf(gpuTotalsMib);
    }

    private record Active(ReplayResult.Run run, long endNanos) {
    }

    /**
     * Replays the jobs, all submitted at time zero in the given queue order.
     *
     * @param jobs the queue
     * @return makespan, runs and per-GPU timeline
     */
    public ReplayResult run(List<ReplayJob> jobs) {
        List<ReplayJob> pending = new ArrayList<>(jobs);
        PriorityQueue<Active> active = new PriorityQueue<>(
                Comparator.comparingLong(Active::endNanos).thenComparingInt(a -> a.run().job().no()));
        List<ReplayResult.Run> runs = new ArrayList<>();
        Map<ReplayJob, String> infeasible = new LinkedHashMap<>();
        long now = 0;
        long end = 0;
        while (true) {
            List<GpuView> views = views(active);
            List<ReplayJob> still = new ArrayList<>();
            for (ReplayJob j : pending) {
                Placement p = allocator.place(new Request(j.declaredMib(), j.gpus()), views);
                if (p instanceof Placement.Infeasible inf) {
                    infeasible.put(j, inf.reason());
                } else if (p instanceof Placement.Blocked) {
                    still.add(j);
                } else {
                    List<Integer> gpus = ((Placement.Placed) p).gpus();
                    long stop = now + j.runTime().toNanos();
                    ReplayResult.Run run = new ReplayResult.Run(j, gpus, Duration.ofNanos(now), Duration.ofNanos(stop));
                    runs.add(run);
                    active.add(new Active(run, stop));
                    end = Math.max(end, stop);
                    views = views(active);
                }
            }
            pending = still;
            if (active.isEmpty()) {
                break; // anything still pending can never be placed with nothing running: cannot happen
                       // for feasible jobs on empty GPUs, but guard against a policy that blocks forever
            }
            now = active.peek().endNanos();
            while (!active.isEmpty() && active.peek().endNanos() == now) {
                active.poll();
            }
            if (pending.isEmpty() && active.isEmpty()) {
                break;
            }
        }
        for (ReplayJob j : pending) {
            infeasible.put(j, "blocked on empty GPUs");
        }
        Map<Integer, List<ReplayResult.Run>> timeline = new TreeMap<>();
        for (int g = 0; g < gpuTotalsMib.size(); g++) {
            timeline.put(g, new ArrayList<>());
        }
        for (ReplayResult.Run r : runs) {
            r.gpus().forEach(g -> timeline.get(g).add(r));
        }
        Map<Integer, Double> busy = new HashMap<>();
        long makespan = end;
        timeline.forEach((g, rs) -> busy.put(g, makespan == 0 ? 0.0 : (double) busyNanos(rs) / makespan));
        return new ReplayResult(Duration.ofNanos(makespan), runs, infeasible, timeline, busy);
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
                    OptionalLong declared = j.declaredMib();
                    // The engine budgets the declaration from the start; a known overrun counts as observed.
                    long current = declared.isPresent() && peak <= declared.getAsLong() ? 0 : peak;
                    tenants.add(new Tenant(j.no() + "", declared, current, current));
                    used += current;
                }
            }
            out.add(new GpuView(g, gpuTotalsMib.get(g), Math.min(used, gpuTotalsMib.get(g)), 0, tenants, true));
        }
        return out;
    }
}

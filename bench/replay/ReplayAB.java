package io.gpusched.testkit.replay;

import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.policy.PolicyOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;

/** A/B: the old discrete-event replay ({@code OldReplay}, taken from git by ab.sh) against the engine-backed one. */
public class ReplayAB {
    record Case(String name, List<Long> gpus, List<List<ReplayJob>> workloads) {
    }

    public static void main(String[] a) throws Exception {
        int rounds = Integer.parseInt(a[0]);
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("demo.txt 2x24000", List.of(24000L, 24000L),
                List.of(ReplayWorkload.fromJobsFile(Path.of(a[1], "examples/demo.txt"), Optional.empty()))));
        cases.add(new Case("sweep.txt 2x80G (40 lines)", List.of(81920L, 81920L),
                List.of(ReplayWorkload.fromJobsFile(Path.of(a[1], "bench/requirements/sweep.txt"), Optional.empty()))));
        cases.add(new Case("starvation stream.txt 4x24000 (200 lines)", Collections.nCopies(4, 24000L),
                List.of(ReplayWorkload.fromJobsFile(Path.of(a[1], "bench/starvation/stream.txt"), Optional.empty()))));
        List<List<ReplayJob>> deps = new ArrayList<>();
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < 50; i++) {
            deps.add(ReplayWorkload.fromText(ReplayPolicyTest.dependencyWorkloads().next(r, 1 + i * 2), Optional.empty()));
        }
        cases.add(new Case("50 dependency workloads (ReplayPolicyTest gen) 2x24000", Collections.nCopies(2, 24000L), deps));
        List<List<ReplayJob>> streams = new ArrayList<>();
        List<Integer> streamGpus = new ArrayList<>();
        SplittableRandom r2 = new SplittableRandom(11);
        for (int i = 0; i < 10; i++) {
            StarvationReplayTest.Stream s = StarvationReplayTest.streams().next(r2, 50);
            streams.add(s.jobs());
            streamGpus.add(s.gpus());
        }
        for (int round = 0; round < rounds; round++) {
            for (Case c : cases) {
                for (String which : (round % 2 == 0 ? List.of("old", "new") : List.of("new", "old"))) {
                    Function<List<ReplayJob>, ReplayResult> run = which.equals("old")
                            ? jobs -> new OldReplay(PlacementPolicy.defaults(), PolicyOptions.defaults(), c.gpus()).run(jobs)
                            : jobs -> new Replay(PlacementPolicy.defaults(), PolicyOptions.defaults(), c.gpus()).run(jobs);
                    long t0 = System.nanoTime();
                    long cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                    StringBuilder digest = new StringBuilder();
                    for (List<ReplayJob> w : c.workloads()) {
                        ReplayResult res = run.apply(w);
                        digest.append(res.makespan()).append(';');
                    }
                    long wall = (System.nanoTime() - t0) / 1_000_000;
                    long cpu = (java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0) / 1_000_000;
                    System.out.printf("round %d %-4s %-55s wall %6d ms cpu %6d ms makespans %s%n", round, which, c.name(), wall, cpu,
                            Integer.toHexString(digest.toString().hashCode()));
                }
            }
            for (String which : (round % 2 == 0 ? List.of("old", "new") : List.of("new", "old"))) {
                long t0 = System.nanoTime();
                long cpu0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                StringBuilder digest = new StringBuilder();
                for (int i = 0; i < streams.size(); i++) {
                    List<Long> g = Collections.nCopies(streamGpus.get(i), 24000L);
                    ReplayResult res = which.equals("old") ? new OldReplay(PlacementPolicy.defaults(), PolicyOptions.defaults(), g).run(streams.get(i))
                            : new Replay(PlacementPolicy.defaults(), PolicyOptions.defaults(), g).run(streams.get(i));
                    digest.append(res.makespan()).append(';');
                }
                long wall = (System.nanoTime() - t0) / 1_000_000;
                long cpu = (java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0) / 1_000_000;
                System.out.printf("round %d %-4s %-55s wall %6d ms cpu %6d ms makespans %s%n", round, which,
                        "10 random 6 h streams (StarvationReplayTest gen)", wall, cpu, Integer.toHexString(digest.toString().hashCode()));
            }
        }
    }
}

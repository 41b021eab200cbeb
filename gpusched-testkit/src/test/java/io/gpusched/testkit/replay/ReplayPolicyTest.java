package io.gpusched.testkit.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.jobs.Scheduling;
import io.gpusched.model.JobStatus;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The replay runs the scheduler's policy from jobs-file text: priorities, dependencies, time slices. */
class ReplayPolicyTest {
    private static ReplayResult replay(int gpus, String text) {
        return new Replay(PlacementPolicy.defaults(), Collections.nCopies(gpus, 24000L))
                .run(ReplayWorkload.fromText(text, Optional.empty()));
    }

    private static Map<Integer, List<ReplayResult.Run>> runsByJob(ReplayResult r) {
        return r.runs().stream().collect(Collectors.groupingBy(run -> run.job().no()));
    }

    @Test
    void onOneGpuTheHigherPriorityLineRunsFirst() {
        ReplayResult r = replay(1, """
                [vram=20G] low # duration=10
                [vram=20G priority=3] high # duration=10
                """);
        assertEquals(Duration.ZERO, runsByJob(r).get(2).get(0).start());
        assertEquals(Duration.ofSeconds(10), runsByJob(r).get(1).get(0).start());
    }

    @Test
    void aJobWaitsForItsDependencies_andNeverRunsWhenOneItNeedsTimedOut() {
        ReplayResult r = replay(2, """
                [vram=1G name=prep] prep # duration=30
                [vram=1G after=prep] train # duration=10
                [vram=1G name=slow timeout=5] slow # duration=20
                [vram=1G after=slow] eval # duration=1
                [vram=1G after-any=slow] report # duration=1
                """);
        Map<Integer, List<ReplayResult.Run>> runs = runsByJob(r);
        assertEquals(Duration.ofSeconds(30), runs.get(2).get(0).start(), "train starts when prep ends");
        assertFalse(runs.containsKey(4), "eval never runs");
        assertTrue(r.infeasible().keySet().stream().anyMatch(j -> j.no() == 4 && r.infeasible().get(j)
                .contains("job 3 (slow) ended timeout")), r.infeasible().toString());
        assertEquals(Duration.ofSeconds(5), runs.get(5).get(0).start(), "report runs after slow however it ended");
    }

    @Test
    void aTimeSlicedJobRunsInSlicesBehindTheOthersUntilItsWorkIsDone() {
        ReplayResult r = replay(1, """
                [vram=20G timeout=10 on-timeout=requeue] long # duration=25
                [vram=20G] a # duration=3
                [vram=20G] b # duration=3
                """);
        List<ReplayResult.Run> slices = runsByJob(r).get(1);
        assertEquals(List.of(Duration.ZERO, Duration.ofSeconds(16), Duration.ofSeconds(26)),
                slices.stream().map(ReplayResult.Run::start).toList(), "after each slice the others go first");
        assertEquals(Duration.ofSeconds(31), r.makespan(), "10 + 3 + 3 + 10 + 5: no work lost, none repeated");
        assertFalse(slices.get(2).timedOut(), "its last slice ends on its own");
    }

    @Test
    void eachReplayedRunEndsAsTheEnginesJudgeSaysOkTimeoutOrToRunAgain() {
        ReplayResult r = replay(1, """
                [vram=20G timeout=10 on-timeout=requeue] sliced # duration=15
                [vram=20G timeout=2] capped # duration=5
                [vram=20G] plain # duration=1
                """);
        Map<Integer, List<ReplayResult.Run>> runs = runsByJob(r);
        assertEquals(List.of(Optional.empty(), Optional.of(JobStatus.OK)),
                runs.get(1).stream().map(ReplayResult.Run::status).toList(), "a slice runs again; the last one is ok");
        assertTrue(runs.get(1).get(0).preempted());
        assertEquals(Optional.of(JobStatus.TIMEOUT), runs.get(2).get(0).status());
        assertEquals(Optional.of(JobStatus.OK), runs.get(3).get(0).status());
    }

    /** A random workload of named jobs with dependencies on earlier ones, some of which time out. */
    static Gen<String> dependencyWorkloads() {
        return (r, size) -> {
            int n = 2 + r.nextInt(Math.max(2, Math.min(size, 14)));
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < n; i++) {
                List<String> after = new ArrayList<>();
                for (int d = 0; d < i; d++) {
                    if (r.nextInt(4) == 0) {
                        after.add((r.nextBoolean() ? "after=" : "after-any=") + "j" + d);
                    }
                }
                String deps = after.isEmpty() ? "" : " " + String.join(" ", mergeByKey(after));
                String timeout = r.nextInt(5) == 0 ? " timeout=2" : "";
                text.append("[vram=").append(1 + r.nextInt(20)).append("G gpus=").append(1 + r.nextInt(2))
                        .append(" name=j").append(i).append(deps).append(timeout).append(" priority=").append(r.nextInt(3))
                        .append("] job ").append(i).append(" # duration=").append(1 + r.nextInt(5)).append('\n');
            }
            return text.toString();
        };
    }

    private static List<String> mergeByKey(List<String> deps) {
        Map<String, List<String>> byKey = deps.stream().collect(Collectors.groupingBy(d -> d.substring(0, d.indexOf('=')),
                java.util.TreeMap::new, Collectors.mapping(d -> d.substring(d.indexOf('=') + 1), Collectors.toList())));
        return byKey.entrySet().stream().map(e -> e.getKey() + "=" + String.join(",", e.getValue())).toList();
    }

    @Test
    void noJobStartsBeforeItsDependenciesEnd_andNoneRunsAfterOneItNeededFailed() {
        Property.forAll(dependencyWorkloads()).tries(300).check(text -> {
            List<ReplayJob> jobs = ReplayWorkload.fromText(text, Optional.empty());
            ReplayResult r = new Replay(PlacementPolicy.defaults(), Collections.nCopies(2, 24000L)).run(jobs);
            Map<Integer, List<ReplayResult.Run>> runs = runsByJob(r);
            Map<String, ReplayJob> byName = jobs.stream().collect(Collectors.toMap(j -> j.scheduling().name().orElseThrow(),
                    j -> j));
            for (ReplayJob j : jobs) {
                boolean needFailed = false;
                for (Scheduling.Dependency d : j.scheduling().after()) {
                    ReplayJob dep = byName.get(d.name());
                    List<ReplayResult.Run> depRuns = runs.getOrDefault(dep.no(), List.of());
                    boolean depOk = !depRuns.isEmpty() && !depRuns.get(depRuns.size() - 1).timedOut();
                    needFailed |= d.needsSuccess() && !depOk;
                    for (ReplayResult.Run run : runs.getOrDefault(j.no(), List.of())) {
                        if (depRuns.isEmpty()) {
                            continue; // it never ran (its own dependency failed), and after-any needs only its end
                        }
                        assertTrue(run.start().compareTo(depRuns.get(depRuns.size() - 1).end()) >= 0,
                                "job " + j.no() + " started before " + d.name() + " ended");
                    }
                }
                assertEquals(needFailed, !runs.containsKey(j.no()), "job " + j.no() + ": ran iff its needs succeeded\n" + text);
            }
        });
    }
}

package io.gpusched.engine.plan;

import io.gpusched.engine.queue.PendingQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import io.gpusched.policy.PolicyOptions;
import io.gpusched.policy.QueuePolicy;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The dispatcher's decisions as a value: pure, from pending jobs, running jobs and GPUs alone. */
class PlanTest {
    private static final Instant NOW = Instant.parse("2026-11-25T10:00:00Z");
    private final QueuePolicy policy = new QueuePolicy(new Allocator(PlacementPolicy.defaults()), PolicyOptions.defaults());
    private final List<GpuView> oneGpu = List.of(GpuView.empty(0, 24000));
    private final GpuSnapshot snap = new GpuSnapshot(List.of(GpuStat.of(0, 24000, 0)), List.of());

    private static PendingQueue.PendingJob pending(String line, int no) {
        JobSpec spec = JobSpec.parse(line).withKey("k#" + no);
        return new PendingQueue.PendingJob(spec, no, spec.vramMib(), 0, no, NOW, "alice", Optional.empty());
    }

    @Test
    void startsWhatFitsInQueueOrder_andSaysWhyTheRestWait() {
        Plan plan = Dispatcher.decide(policy, List.of(pending("[vram=16G] a", 1), pending("[vram=16G] b", 2)),
                List.of(), oneGpu, snap, NOW, Map.of());

        assertEquals(2, plan.actions().size());
        Plan.Start start = assertInstanceOf(Plan.Start.class, plan.actions().get(0));
        assertEquals(1, start.job().no());
        assertEquals(List.of(0), start.gpus());
        assertEquals(OptionalLong.of(16384), start.declared());
        Plan.Wait wait = assertInstanceOf(Plan.Wait.class, plan.actions().get(1));
        assertEquals(2, wait.job().no());
        assertTrue(!wait.reason().isEmpty(), "a waiting job is told why");
    }

    @Test
    void aJobPinnedToAGpuUuidTheMachineLacksFailsInThePlan_beforeAnythingIsPlaced() {
        Plan plan = Dispatcher.decide(policy, List.of(pending("[vram=1G] a", 1), pending("[vram=1G gpu-ids=GPU-8f2c1d0e-0000-4000-8000-000000000000] b", 2)),
                List.of(), oneGpu, snap, NOW, Map.of());

        Plan.Fail fail = assertInstanceOf(Plan.Fail.class, plan.actions().get(0));
        assertEquals(2, fail.job().no());
        assertTrue(fail.reason().contains("GPU-8f2c1d0e"), fail.reason());
        assertInstanceOf(Plan.Start.class, plan.actions().get(1));
    }

    @Test
    void theSameInputsGiveTheSamePlan() {
        List<PendingQueue.PendingJob> jobs = List.of(pending("[vram=10G] a", 1), pending("[vram=10G] b", 2),
                pending("[vram=10G] c", 3));
        assertEquals(Dispatcher.decide(policy, jobs, List.of(), oneGpu, snap, NOW, Map.of()),
                Dispatcher.decide(policy, jobs, List.of(), oneGpu, snap, NOW, Map.of()));
    }

    @Test
    void aClusterBusyForItsSubmitLimitIsAskedNothing_everyJobItMayRunWaitsWithItsReason_andThePlanIsRemadeAfterTheBackOff() {
        List<PendingQueue.PendingJob> jobs = List.of(pending("a", 1), pending("b", 2), pending("c", 3));
        java.util.function.Function<JobSpec, Optional<String>> refusal =
                spec -> spec.key().equals("k#2") ? Optional.of("jobs.txt:2: cannot") : Optional.empty();
        io.gpusched.cluster.ClusterBusy busy = new io.gpusched.cluster.ClusterBusy("waits for the cluster's submit limit",
                java.time.Duration.ofSeconds(30));
        Plan plan = Dispatcher.handOver(jobs, refusal, Optional.of(busy), NOW);
        assertEquals(List.of(new Plan.Wait(jobs.get(0), busy.reason()), new Plan.Fail(jobs.get(1), "jobs.txt:2: cannot"),
                new Plan.Wait(jobs.get(2), busy.reason())), plan.actions(), "a line it can never run still fails");
        assertEquals(Optional.of(NOW.plusSeconds(30)), plan.replanAt());

        Plan free = Dispatcher.handOver(jobs, refusal, Optional.empty(), NOW);
        assertInstanceOf(Plan.Start.class, free.actions().get(0));
        assertInstanceOf(Plan.Start.class, free.actions().get(2));
        assertEquals(Optional.empty(), free.replanAt());
    }
}

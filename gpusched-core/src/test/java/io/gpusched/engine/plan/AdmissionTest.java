package io.gpusched.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import io.gpusched.policy.PolicyOptions;
import io.gpusched.policy.QueuePolicy;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A submission refused as never runnable gets exactly the reason the dispatcher fails the same job with
 * once queued, and a job the dispatcher would not fail is never refused: one set of rules, asked twice.
 */
class AdmissionTest {
    private static final Instant NOW = Instant.parse("2026-11-26T01:00:00Z");
    private final Allocator allocator = new Allocator(PlacementPolicy.defaults());
    private final QueuePolicy policy = new QueuePolicy(allocator, PolicyOptions.defaults());
    private final List<GpuStat> twoGpus = List.of(GpuStat.of(0, 24000, 0), GpuStat.of(1, 24000, 0));

    /** What the dispatcher decides for the job queued alone on the two empty GPUs: its failure, if it fails. */
    private Optional<String> dispatcherFails(JobSpec spec) {
        PendingQueue.PendingJob p = new PendingQueue.PendingJob(spec.withKey("k#1"), 1, spec.vramMib(), 0, 1, NOW, "ada",
                Optional.empty());
        List<GpuView> views = twoGpus.stream().map(g -> GpuView.empty(g.index(), g.totalMib())).toList();
        Plan plan = Dispatcher.decide(policy, List.of(p), List.of(), views, new GpuSnapshot(twoGpus, List.of()), NOW, Map.of());
        return plan.actions().get(0) instanceof Plan.Fail f ? Optional.of(f.reason()) : Optional.empty();
    }

    @Test
    void refusesWithTheDispatchersOwnReason_andOnlyWhatTheDispatcherWouldFail() {
        for (String line : List.of("[vram=80G] train", "[gpus=3] train", "[gpu-ids=5] train", "[gpu-ids=0,7 gpus=2] train",
                "[gpu-ids=GPU-0000dead] train", "[vram=23G gpus=2] train", "[vram=24000M] train", "[vram=23000M] train",
                "[gpus=2] train", "[gpus=0.5] train", "[gpu-ids=1] train", "train")) {
            JobSpec spec = JobSpec.parse(line);
            assertEquals(dispatcherFails(spec), Admission.never(spec, twoGpus, allocator), line);
        }
    }

    @Test
    void namesTheNumbers_asTheQueueWouldEndTheJob() {
        assertEquals(Optional.of("needs 1 GPU with ≥ 82432 MiB (vram 81920 + margin 512); the largest allowed GPU has 24000 MiB"),
                Admission.never(JobSpec.parse("[vram=80G] train"), twoGpus, allocator));
        assertEquals(Optional.of("needs 3 GPUs but only 2 are present"),
                Admission.never(JobSpec.parse("[gpus=3] train"), twoGpus, allocator));
    }

    @Test
    void saysNothingBeforeTheGpusWereRead() {
        assertEquals(Optional.empty(), Admission.never(JobSpec.parse("[gpus=3] train"), List.of(), allocator));
    }

    @Test
    void aPreviewIsWhatThePlanDecidedForTheJob() {
        PendingQueue.PendingJob p = Admission.candidate(JobSpec.parse("[vram=1G] train"), "ada", NOW);
        assertEquals(new io.gpusched.model.SubmitPreview.Starts(List.of(1)), Admission.of(new Plan.Start(p, List.of(1),
                p.declaredMib())));
        assertInstanceOf(io.gpusched.model.SubmitPreview.Waits.class, Admission.of(new Plan.Wait(p, "gpu0 is paused")));
        assertEquals(new io.gpusched.model.SubmitPreview.Never("x"), Admission.of(new Plan.Fail(p, "x")));
    }
}

package io.gpusched.engine.plan;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Request;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.SubmitPreview;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Whether a submission could ever run on this machine, asked before it is queued: the same question,
 * and the same reason text, as a queued job gets when the {@link Dispatcher} fails it as infeasible (a
 * pinned UUID the machine lacks, then {@link Allocator#infeasibleReason}). Pure: the job (requirement
 * rules already applied), the GPUs and the placement policy in, a reason out. No rule of its own.
 */
public final class Admission {
    /** The key a previewed job goes by while it is planned; never a queued job's ({@code s<no>} or hex). */
    static final String PREVIEW_KEY = "dry-run";

    private Admission() {
    }

    /**
     * @param spec the job as it would be queued (rules applied)
     * @param gpus the machine's GPUs as last read; only their index, total memory, health and UUID matter
     * @param allocator the placement rules in force (margin, {@code --gpus})
     * @return why it could never run, as the scheduler would end it infeasible; empty when it could, or
     *     when no GPU has been read yet (then nothing can be said)
     */
    public static Optional<String> never(JobSpec spec, List<GpuStat> gpus, Allocator allocator) {
        if (gpus.isEmpty()) {
            return Optional.empty();
        }
        Request request = Dispatcher.request(candidate(spec, "", Instant.EPOCH));
        if (spec.scheduling().pinned()) {
            Pins.Resolved pins = Pins.resolve(spec.scheduling().gpuIds(), new GpuSnapshot(gpus, List.of(), List.of()));
            if (pins.unknown().isPresent()) {
                return pins.unknown();
            }
            request = request.pinnedTo(pins.indices());
        }
        // Health is kept: a lost GPU of unknown size must not make a submission "never" fit.
        return allocator.infeasibleReason(request, gpus.stream()
                .map(g -> new GpuView(g.index(), g.totalMib(), 0, 0, List.of(), g.healthy())).toList());
    }

    /**
     * A job that is not queued, as the planner would see it queued last: no number yet, no attempt, its
     * own declaration.
     *
     * @param spec the job as it would be queued (rules applied)
     * @param owner who submits it
     * @param now when it would be queued
     * @return the pending job to plan
     */
    public static PendingQueue.PendingJob candidate(JobSpec spec, String owner, Instant now) {
        return new PendingQueue.PendingJob(spec.withKey(PREVIEW_KEY), 0, spec.vramMib(), 0, Long.MAX_VALUE, now, owner,
                Optional.empty());
    }

    /**
     * @param action what a plan made of the previewed job
     * @return the preview it means
     */
    static SubmitPreview of(Plan.Action action) {
        if (action instanceof Plan.Start s) {
            return new SubmitPreview.Starts(s.gpus());
        }
        if (action instanceof Plan.Wait w) {
            return new SubmitPreview.Waits(w.reason());
        }
        return new SubmitPreview.Never(((Plan.Fail) action).reason());
    }
}

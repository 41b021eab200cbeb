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
     * A job's pins by index, bound as the daemon accepts a submission (or first takes a jobs-file line,
     * {@link io.gpusched.engine.table.JobsSource#bindPins}): each index the machine lists a device with a
     * UUID at becomes that UUID, so the job stays pinned to the device its submitter saw at that index
     * (in {@code nvidia-smi}) when the GPUs are renumbered before it runs (MIG instances made or destroyed
     * on an earlier GPU, a GPU off the bus), as a pin by UUID does. A submission's journaled line carries
     * the UUID, so a restart keeps it. An index where no device is listed, or one without a UUID (simulated
     * GPUs), or before the GPUs were first read, stays an index; so does one whose device the job also
     * names by UUID.
     *
     * @param spec the job as submitted, or a jobs-file line
     * @param gpus the machine's GPUs as last read
     * @return the job pinned to devices; {@code spec} itself when nothing changed
     */
    public static JobSpec pinnedToDevices(JobSpec spec, List<GpuStat> gpus) {
        List<String> ids = spec.scheduling().gpuIds();
        if (ids.isEmpty() || gpus.isEmpty()) {
            return spec;
        }
        List<String> out = new java.util.ArrayList<>(ids);
        boolean changed = false;
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            if (id.isEmpty() || !Character.isDigit(id.charAt(0))) {
                continue;
            }
            int index = Integer.parseInt(id);
            Optional<String> uuid = gpus.stream().filter(g -> g.index() == index).findFirst().flatMap(GpuStat::uuid)
                    .filter(u -> io.gpusched.jobs.Scheduling.GPU_UUID.matcher(u).matches());
            if (uuid.isPresent() && !out.contains(uuid.get())) {
                out.set(i, uuid.get());
                changed = true;
            }
        }
        if (!changed) {
            return spec;
        }
        io.gpusched.jobs.Scheduling s = spec.scheduling();
        return spec.toBuilder().scheduling(new io.gpusched.jobs.Scheduling(s.priority(), out, s.preemptible(),
                s.onTimeout(), s.name(), s.after())).gpus(spec.gpus()).build();
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

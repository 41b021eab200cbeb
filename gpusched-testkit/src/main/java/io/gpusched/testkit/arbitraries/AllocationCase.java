package io.gpusched.testkit.arbitraries;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One input to the allocator: a policy, the GPUs as the backend reports them (unique indices, in the
 * order given) and a request. Its {@link #toString()} is compact enough to read in a failure report.
 *
 * @param policy the placement policy
 * @param gpus the GPU views, with unique indices
 * @param request the job's request
 */
public record AllocationCase(PlacementPolicy policy, List<GpuView> gpus, Request request) {
    /**
     * Copies the list.
     *
     * @param policy see {@link #policy()}
     * @param gpus see {@link #gpus()}
     * @param request see {@link #request()}
     */
    public AllocationCase {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(request, "request");
        gpus = List.copyOf(gpus);
    }

    /** @return the allocator's answer for this case */
    public Placement place() {
        return new Allocator(policy).place(request, gpus);
    }

    /**
     * @param otherGpus replacement GPU views
     * @return this case with other GPUs
     */
    public AllocationCase withGpus(List<GpuView> otherGpus) {
        return new AllocationCase(policy, otherGpus, request);
    }

    /**
     * @param index a GPU index
     * @return the view of the GPU with this index
     */
    public GpuView gpu(int index) {
        return gpus.stream().filter(g -> g.index() == index).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no gpu" + index + " in " + this));
    }

    @Override
    public String toString() {
        String req = (request.vramMib().isPresent() ? "vram=" + request.vramMib().getAsLong() : "undeclared")
                + " gpus=" + request.gpus();
        String pol = "margin=" + policy.marginMib() + " idle=" + policy.idleThresholdMib()
                + " spike=" + policy.spikeBuffer() + (policy.exclusive() ? " exclusive" : "")
                + policy.allowedGpus().map(s -> " allowed=" + s.stream().sorted().toList()).orElse("");
        String views = gpus.stream().map(AllocationCase::describe).collect(Collectors.joining(", ", "[", "]"));
        return "request{" + req + "} policy{" + pol + "} gpus" + views;
    }

    private static String describe(GpuView g) {
        String tenants = g.tenants().stream().map(AllocationCase::describe).collect(Collectors.joining(" "));
        return "gpu" + g.index() + "{total=" + g.totalMib() + " used=" + g.usedMib() + " extPeaks=" + g.externalPeaksMib()
                + (g.healthy() ? "" : " UNHEALTHY") + (tenants.isEmpty() ? "" : " " + tenants) + "}";
    }

    private static String describe(Tenant t) {
        return "job(" + (t.declaredMib().isPresent() ? "decl=" + t.declaredMib().getAsLong() : "undeclared")
                + " cur=" + t.currentMib() + " peak=" + t.peakMib() + ")";
    }
}

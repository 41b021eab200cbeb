package io.gpusched.alloc;

import java.util.Optional;

/**
 * One placement rule, judging one GPU for one request from the precomputed {@link Load} alone.
 * The standard rules are the constants below; {@link Allocator} wires them in order.
 */
@FunctionalInterface
interface GpuFilter {
    Optional<Rejection> check(Load gpu, Need need);

    /** The per-GPU facts every filter reads, computed once per placement. */
    record Load(GpuView view, long effectiveExternalMib, long headroomMib, boolean hasTenant, boolean hasUndeclaredTenant) {
        int index() {
            return view.index();
        }
    }

    /**
     * The request as the filters need it: per-GPU MiB including the margin, or undeclared; the GPUs it
     * is pinned to, and the GPUs reserved for another job that it may not use.
     */
    record Need(boolean declared, long mib, long idleThresholdMib, Request request, java.util.Set<Integer> reserved) {
        /** The MiB needed on this GPU: a share is of the GPU's own total (no margin), else {@link #mib()}. */
        long mibOn(Load gpu) {
            return request.share().map(s -> s.mibOf(gpu.view().totalMib())).orElse(mib);
        }
    }

    static GpuFilter allowed(PlacementPolicy policy) {
        return (gpu, need) -> policy.allows(gpu.index())
                ? Optional.empty() : reject(gpu, Rejection.Check.ALLOWED, 0, 0);
    }

    /** A GPU busier than {@code --max-util} takes no new job; one without a reading is never blocked. */
    static GpuFilter notBusy(PlacementPolicy policy) {
        return (gpu, need) -> {
            java.util.OptionalInt util = gpu.view().recentUtilPercent();
            int limit = policy.maxUtilPercent().orElse(100);
            return policy.maxUtilPercent().isPresent() && util.isPresent() && util.getAsInt() > limit
                    ? reject(gpu, Rejection.Check.BUSY, limit, util.getAsInt()) : Optional.empty();
        };
    }

    GpuFilter PINNED = (gpu, need) -> need.request().mayUse(gpu.index())
            ? Optional.empty() : reject(gpu, Rejection.Check.PINNED, 0, 0);

    GpuFilter NOT_RESERVED = (gpu, need) -> need.reserved().contains(gpu.index())
            ? reject(gpu, Rejection.Check.RESERVED, 0, 0) : Optional.empty();

    GpuFilter HEALTHY = (gpu, need) -> gpu.view().healthy()
            ? Optional.empty() : reject(gpu, Rejection.Check.HEALTHY, 0, 0);

    GpuFilter NOT_PAUSED = (gpu, need) -> gpu.view().paused()
            ? reject(gpu, Rejection.Check.PAUSED, 0, 0) : Optional.empty();

    GpuFilter NO_UNDECLARED_TENANT = (gpu, need) -> gpu.hasUndeclaredTenant()
            ? reject(gpu, Rejection.Check.NO_UNDECLARED_TENANT, 0, 0) : Optional.empty();

    GpuFilter EXCLUSIVE = (gpu, need) -> gpu.hasTenant()
            ? reject(gpu, Rejection.Check.EXCLUSIVE, 0, 0) : Optional.empty();

    /** Undeclared jobs run alone, and only where nothing else of note is running. */
    GpuFilter FULLY_IDLE = (gpu, need) -> {
        if (need.declared()) {
            return Optional.empty();
        }
        if (gpu.hasTenant()) {
            return reject(gpu, Rejection.Check.NO_TENANT, 0, 0);
        }
        return gpu.effectiveExternalMib() < need.idleThresholdMib()
                ? Optional.empty()
                : reject(gpu, Rejection.Check.IDLE, need.idleThresholdMib(), gpu.effectiveExternalMib());
    };

    GpuFilter ENOUGH_HEADROOM = (gpu, need) -> !need.declared() || gpu.headroomMib() >= need.mibOn(gpu)
            ? Optional.empty()
            : reject(gpu, Rejection.Check.HEADROOM, need.mibOn(gpu), gpu.headroomMib());

    private static Optional<Rejection> reject(Load gpu, Rejection.Check check, long required, long available) {
        return Optional.of(new Rejection(gpu.index(), check, required, available));
    }
}

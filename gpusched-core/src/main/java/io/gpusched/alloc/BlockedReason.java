package io.gpusched.alloc;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Words the one-line reason a blocked job shows on the status board. */
final class BlockedReason {
    private BlockedReason() {
    }

    static String describe(Request request, GpuFilter.Need need, int eligible, List<Rejection> rejections) {
        int n = request.gpus();
        String wants = need.declared()
                ? "needs " + Allocator.plural(n, "GPU") + " with ≥ " + need.mib() + " MiB headroom"
                : "needs " + Allocator.plural(n, "fully idle GPU") + " (no scheduled job, < " + need.idleThresholdMib() + " MiB in use)";
        if (eligible > 0) {
            return wants + "; only " + eligible + (eligible == 1 ? " has" : " have") + " it now";
        }
        // Point at the nearest miss: the GPU that came closest on the rule that mattered.
        Optional<Rejection> nearest = rejections.stream()
                .filter(r -> r.check() == Rejection.Check.HEADROOM)
                .max(Comparator.comparingLong(Rejection::availableMib).thenComparing(r -> -r.gpu()));
        if (nearest.isEmpty()) {
            nearest = rejections.stream()
                    .filter(r -> r.check() == Rejection.Check.IDLE)
                    .min(Comparator.comparingLong(Rejection::availableMib).thenComparingInt(Rejection::gpu));
        }
        if (nearest.isPresent()) {
            Rejection r = nearest.get();
            return wants + "; best is gpu" + r.gpu() + " with " + r.availableMib() + " MiB"
                    + (r.check() == Rejection.Check.IDLE ? " in use" : "");
        }
        return wants + "; " + (rejections.isEmpty() ? "no GPUs" : rejections.get(0).describe());
    }
}

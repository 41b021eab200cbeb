package io.gpusched.alloc;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Words the one-line reason a blocked job shows on the status board. */
final class BlockedReason {
    private BlockedReason() {
    }

    static String describe(Request request, GpuFilter.Need need, int eligible, List<Rejection> rejections) {
        List<Integer> paused = rejections.stream().filter(r -> r.check() == Rejection.Check.PAUSED).map(Rejection::gpu)
                .toList();
        if (paused.isEmpty()) {
            return reason(request, need, eligible, rejections);
        }
        List<Rejection> others = rejections.stream().filter(r -> r.check() != Rejection.Check.PAUSED).toList();
        return reason(request, need, eligible, others) + "; " + paused.stream().map(g -> "gpu" + g)
                .collect(java.util.stream.Collectors.joining(", ")) + (paused.size() == 1 ? " is" : " are") + " paused";
    }

    private static String reason(Request request, GpuFilter.Need need, int eligible, List<Rejection> rejections) {
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
        // With no rejection left to name (every other GPU paused), the need alone is the reason.
        return rejections.isEmpty() ? wants : wants + "; " + rejections.get(0).describe();
    }
}

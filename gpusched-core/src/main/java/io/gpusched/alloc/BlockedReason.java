package io.gpusched.alloc;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Words the one-line reason a blocked job shows on the status board. */
final class BlockedReason {
    private BlockedReason() {
    }

    static String describe(Request request, GpuFilter.Need need, int eligible, List<Rejection> rejections) {
        // GPUs the job may never use are no part of why it waits.
        List<Rejection> relevant = rejections.stream().filter(r -> r.check() != Rejection.Check.PINNED).toList();
        List<Rejection> others = relevant.stream()
                .filter(r -> r.check() != Rejection.Check.PAUSED && r.check() != Rejection.Check.RESERVED
                        && r.check() != Rejection.Check.BUSY).toList();
        return reason(request, need, eligible, others) + suffix(relevant, Rejection.Check.PAUSED, "paused")
                + busy(relevant) + suffix(relevant, Rejection.Check.RESERVED, "reserved");
    }

    /** {@code ; gpu1 is 97% busy (limit --max-util 80)}, or several GPUs before one limit. */
    private static String busy(List<Rejection> rejections) {
        List<Rejection> busy = rejections.stream().filter(r -> r.check() == Rejection.Check.BUSY).toList();
        return busy.isEmpty() ? "" : "; " + busy.stream().map(r -> "gpu" + r.gpu() + " is " + r.availableMib() + "% busy")
                .collect(java.util.stream.Collectors.joining(", ")) + " (limit --max-util " + busy.get(0).requiredMib() + ")";
    }

    private static String suffix(List<Rejection> rejections, Rejection.Check check, String word) {
        List<Integer> gpus = rejections.stream().filter(r -> r.check() == check).map(Rejection::gpu).toList();
        return gpus.isEmpty() ? "" : "; " + gpus.stream().map(g -> "gpu" + g)
                .collect(java.util.stream.Collectors.joining(", ")) + (gpus.size() == 1 ? " is " : " are ") + word;
    }

    private static String reason(Request request, GpuFilter.Need need, int eligible, List<Rejection> rejections) {
        int n = request.gpus();
        String wants = request.share().isPresent()
                ? "needs " + request.share().get() + " of one GPU's memory"
                : need.declared()
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
                    + (r.check() == Rejection.Check.IDLE ? " in use" : "")
                    + (request.share().isPresent() ? " free of the " + r.requiredMib() + " its share is there" : "");
        }
        // With no rejection left to name (every other GPU paused), the need alone is the reason.
        return rejections.isEmpty() ? wants : wants + "; " + rejections.get(0).describe();
    }
}

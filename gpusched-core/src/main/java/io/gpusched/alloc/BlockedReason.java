package io.gpusched.alloc;

import java.util.List;

/**
 * Words the one-line reason a blocked job shows on the status board. Written with plain loops: every
 * blocked placement is worded (a plan words each shape of waiting job once per state of the GPUs, and
 * each job that joins alone again), so this is on the loop's path of every round and every admission.
 */
final class BlockedReason {
    private BlockedReason() {
    }

    static String describe(Request request, GpuFilter.Need need, int eligible, List<Rejection> rejections) {
        StringBuilder s = new StringBuilder(96);
        reason(s, request, need, eligible, rejections);
        list(s, rejections, Rejection.Check.PAUSED);
        busy(s, rejections);
        list(s, rejections, Rejection.Check.RESERVED);
        return s.toString();
    }

    /**
     * Whether a rejection is part of the main reason: GPUs the job may never use are no part of why it
     * waits, and paused, busy and reserved GPUs are named after it, each in a list of their own.
     */
    private static boolean main(Rejection r) {
        return switch (r.check()) {
            case PINNED, PAUSED, RESERVED, BUSY -> false;
            default -> true;
        };
    }

    /** {@code ; gpu1 is 97% busy (limit --max-util 80)}, or several GPUs before one limit. */
    private static void busy(StringBuilder s, List<Rejection> rejections) {
        long limit = -1;
        for (Rejection r : rejections) {
            if (r.check() == Rejection.Check.BUSY) {
                s.append(limit < 0 ? "; " : ", ").append("gpu").append(r.gpu()).append(" is ").append(r.availableMib())
                        .append("% busy");
                limit = limit < 0 ? r.requiredMib() : limit;
            }
        }
        if (limit >= 0) {
            s.append(" (limit --max-util ").append(limit).append(')');
        }
    }

    /** {@code ; gpu0 is paused}, {@code ; gpu0, gpu2 are reserved}. */
    private static void list(StringBuilder s, List<Rejection> rejections, Rejection.Check check) {
        int n = 0;
        for (Rejection r : rejections) {
            if (r.check() == check) {
                s.append(n++ == 0 ? "; " : ", ").append("gpu").append(r.gpu());
            }
        }
        if (n > 0) {
            s.append(n == 1 ? " is " : " are ").append(check == Rejection.Check.PAUSED ? "paused" : "reserved");
        }
    }

    private static void reason(StringBuilder s, Request request, GpuFilter.Need need, int eligible, List<Rejection> rejections) {
        int n = request.gpus();
        if (request.share().isPresent()) {
            s.append("needs ").append(request.share().get()).append(" of one GPU's memory");
        } else if (need.declared()) {
            s.append("needs ").append(Allocator.plural(n, "GPU")).append(" with ≥ ").append(need.mib()).append(" MiB headroom");
        } else {
            s.append("needs ").append(Allocator.plural(n, "fully idle GPU")).append(" (no scheduled job, < ")
                    .append(need.idleThresholdMib()).append(" MiB in use)");
        }
        if (eligible > 0) {
            s.append("; only ").append(eligible).append(eligible == 1 ? " has" : " have").append(" it now");
            return;
        }
        // Point at the nearest miss: the GPU that came closest on the rule that mattered (most headroom,
        // then the lowest index; else the least external use, then the lowest index).
        Rejection nearest = null;
        for (Rejection r : rejections) {
            if (main(r) && r.check() == Rejection.Check.HEADROOM && (nearest == null
                    || r.availableMib() > nearest.availableMib()
                    || r.availableMib() == nearest.availableMib() && r.gpu() < nearest.gpu())) {
                nearest = r;
            }
        }
        if (nearest == null) {
            for (Rejection r : rejections) {
                if (main(r) && r.check() == Rejection.Check.IDLE && (nearest == null
                        || r.availableMib() < nearest.availableMib()
                        || r.availableMib() == nearest.availableMib() && r.gpu() < nearest.gpu())) {
                    nearest = r;
                }
            }
        }
        if (nearest != null) {
            s.append("; best is gpu").append(nearest.gpu()).append(" with ").append(nearest.availableMib()).append(" MiB");
            if (nearest.check() == Rejection.Check.IDLE) {
                s.append(" in use");
            }
            if (request.share().isPresent()) {
                s.append(" free of the ").append(nearest.requiredMib()).append(" its share is there");
            }
            return;
        }
        // With no rejection left to name (every other GPU paused), the need alone is the reason.
        for (Rejection r : rejections) {
            if (main(r)) {
                s.append("; ").append(r.describe());
                return;
            }
        }
    }
}

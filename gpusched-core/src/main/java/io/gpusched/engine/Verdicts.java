package io.gpusched.engine;

import io.gpusched.model.Verdict;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/** Pure judgements made when a job ends: its declaration verdict, whether it hit OOM, the bump. */
final class Verdicts {
    /** Bytes of log tail searched for OOM signatures. */
    static final int OOM_TAIL_BYTES = 16 * 1024;

    private static final List<String> OOM_SIGNATURES = List.of(
            "cuda out of memory",
            "torch.outofmemoryerror",
            "cuda error: out of memory",
            "cuda_error_out_of_memory",
            "cudaerrormemoryallocation",
            "resource_exhausted");

    private Verdicts() {
    }

    static Verdict verdict(OptionalLong declaredMib, boolean attributed, long peakMib, double tolerance) {
        if (!attributed) {
            return Verdict.UNATTRIBUTED;
        }
        if (declaredMib.isEmpty()) {
            return Verdict.NOT_JUDGED;
        }
        return Verdict.judge(declaredMib.getAsLong(), peakMib, tolerance);
    }

    static boolean looksLikeOom(String logTail) {
        String lower = logTail.toLowerCase(Locale.ROOT);
        return OOM_SIGNATURES.stream().anyMatch(lower::contains);
    }

    /**
     * The next attempt's declaration: ⌈1.25 × max(peak, declared)⌉, and strictly above the old
     * declaration. Empty when there is nothing to bump from (undeclared and never attributed).
     */
    static OptionalLong bump(OptionalLong declaredMib, long peakMib) {
        long base = Math.max(peakMib, declaredMib.orElse(0));
        if (base <= 0) {
            return OptionalLong.empty();
        }
        long bumped = ceil125(base);
        if (declaredMib.isPresent() && bumped <= declaredMib.getAsLong()) {
            bumped = ceil125(declaredMib.getAsLong());
        }
        return OptionalLong.of(Math.min(bumped, io.gpusched.jobs.Units.MAX_MIB));
    }

    private static long ceil125(long mib) {
        // exact integer arithmetic: ⌈5·mib / 4⌉
        return Math.addExact(Math.multiplyExact(mib, 5), 3) / 4;
    }
}

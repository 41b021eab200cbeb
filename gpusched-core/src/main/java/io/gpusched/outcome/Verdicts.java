package io.gpusched.outcome;

import io.gpusched.jobs.Units;
import io.gpusched.model.Verdict;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Pure judgements made when a job ends: its declaration verdict, whether it hit a CUDA OOM, and the
 * bump of the declaration its retry asks for. Every driver (local runs, Slurm) judges by these.
 */
public final class Verdicts {
    /** Bytes of a log's end searched for OOM signatures: 16 KiB. */
    public static final int OOM_TAIL_BYTES = 16 * 1024;

    private static final List<String> OOM_SIGNATURES = List.of(
            "cuda out of memory",
            "torch.outofmemoryerror",
            "cuda error: out of memory",
            "cuda_error_out_of_memory",
            "cudaerrormemoryallocation",
            "resource_exhausted");

    private Verdicts() {
    }

    /**
     * @param declaredMib the attempt's declaration in MiB, empty when undeclared
     * @param attributed whether the attempt's GPU processes were attributed to it
     * @param peakMib its highest per-GPU peak in MiB (ignored when not attributed)
     * @param tolerance the verdict band, e.g. 0.1 for ±10 %
     * @return {@link Verdict#UNATTRIBUTED} when nothing was attributed, {@link Verdict#NOT_JUDGED} when
     *     undeclared, else how the peak compares with the declaration
     */
    public static Verdict verdict(OptionalLong declaredMib, boolean attributed, long peakMib, double tolerance) {
        if (!attributed) {
            return Verdict.UNATTRIBUTED;
        }
        if (declaredMib.isEmpty()) {
            return Verdict.NOT_JUDGED;
        }
        return Verdict.judge(declaredMib.getAsLong(), peakMib, tolerance);
    }

    /**
     * @param logTail the end of a job's output (any case)
     * @return whether it holds a CUDA, PyTorch or TensorFlow out-of-memory message; false for an empty tail
     */
    public static boolean looksLikeOom(String logTail) {
        String lower = logTail.toLowerCase(Locale.ROOT);
        return OOM_SIGNATURES.stream().anyMatch(lower::contains);
    }

    /**
     * The next attempt's declaration: ⌈1.25 × max(peak, declared)⌉, and strictly above the old
     * declaration, in exact integer arithmetic, and never above {@link Units#MAX_MIB}.
     *
     * @param declaredMib the attempt's declaration in MiB, empty when undeclared
     * @param peakMib the peak to grow from in MiB; 0 when none counts (nothing was attributed)
     * @return the bumped declaration; empty when there is nothing to bump from (undeclared and no peak)
     * @throws ArithmeticException only for a base near {@code Long.MAX_VALUE / 5}, far beyond any GPU
     */
    public static OptionalLong bump(OptionalLong declaredMib, long peakMib) {
        long base = Math.max(peakMib, declaredMib.orElse(0));
        if (base <= 0) {
            return OptionalLong.empty();
        }
        long bumped = ceil125(base);
        if (declaredMib.isPresent() && bumped <= declaredMib.getAsLong()) {
            bumped = ceil125(declaredMib.getAsLong());
        }
        return OptionalLong.of(Math.min(bumped, Units.MAX_MIB));
    }

    private static long ceil125(long mib) {
        // exact integer arithmetic: ⌈5·mib / 4⌉
        return Math.addExact(Math.multiplyExact(mib, 5), 3) / 4;
    }
}

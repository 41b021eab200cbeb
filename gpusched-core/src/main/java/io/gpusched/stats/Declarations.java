package io.gpusched.stats;

import java.util.OptionalDouble;

/**
 * How good VRAM declarations were: the verdicts the scheduler gives ({@link io.gpusched.model.Verdict#judge}
 * with the query's tolerance), over the jobs that ended {@code ok} with a declaration and a measured peak
 * (the largest of their GPUs', in their {@code done} line).
 *
 * @param judged how many jobs were judged
 * @param within peak within the tolerance of the declaration
 * @param underDeclared peak above it: the declaration was too small (the verdict {@code over})
 * @param overDeclared peak below it: the declaration was too large (the verdict {@code under})
 * @param medianPeakOverDeclared the median of peak ÷ declaration (nearest-rank: the lower middle of an even
 *     count); empty when none was judged
 */
public record Declarations(int judged, int within, int underDeclared, int overDeclared,
                           OptionalDouble medianPeakOverDeclared) {
    /**
     * @param count one of this record's counts
     * @return its share of {@link #judged()}, in [0, 1]; 0 when none was judged
     */
    public double share(int count) {
        return judged == 0 ? 0 : (double) count / judged;
    }
}

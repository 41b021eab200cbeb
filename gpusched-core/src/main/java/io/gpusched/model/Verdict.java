package io.gpusched.model;


/** What the measured peak says about a job's VRAM declaration, judged at completion. */
public enum Verdict {
    /** Peak within ±tolerance of the declaration. */
    WITHIN,
    /** Peak above declaration × (1 + tolerance): under-declared; raise it. */
    OVER,
    /** Peak below declaration × (1 − tolerance): over-declared; lowering it frees packing headroom. */
    UNDER,
    /** No GPU memory was ever attributed to the job; its peak is reported as {@code n/a}. */
    UNATTRIBUTED,
    /** Nothing to judge: the job was undeclared, or did not end {@link JobStatus#OK}. */
    NOT_JUDGED;

    /**
     * Judges a measured peak against a declaration: the rule of every verdict the scheduler gives, and of
     * {@code gpusched stats}.
     *
     * @param declaredMib the declaration, in MiB per GPU
     * @param peakMib the measured peak, in MiB (the largest of the job's GPUs)
     * @param tolerance the band ({@code --tolerance}), a share of the declaration in [0, 1)
     * @return {@link #OVER} above {@code declared × (1 + tolerance)}, {@link #UNDER} below
     *     {@code declared × (1 − tolerance)}, else {@link #WITHIN}
     */
    public static Verdict judge(long declaredMib, long peakMib, double tolerance) {
        double declared = declaredMib;
        if (peakMib > declared * (1 + tolerance)) {
            return OVER;
        }
        if (peakMib < declared * (1 - tolerance)) {
            return UNDER;
        }
        return WITHIN;
    }

    /**
     * The verdict in the log's words, which speak of the declaration rather than of the peak: a peak
     * {@link #OVER} the declaration means the job was {@code under-declared}.
     *
     * @return {@code under-declared}, {@code over-declared} or {@code within}; empty when nothing was judged
     */
    public java.util.Optional<String> declaration() {
        return switch (this) {
            case OVER -> java.util.Optional.of("under-declared");
            case UNDER -> java.util.Optional.of("over-declared");
            case WITHIN -> java.util.Optional.of("within");
            case UNATTRIBUTED, NOT_JUDGED -> java.util.Optional.empty();
        };
    }
}

package io.gpusched;

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
    NOT_JUDGED
}

package io.gpusched.stats;

import java.util.Objects;

/**
 * One run on one GPU, as the GPU-memory chart draws it: from its start to its end within the period, as
 * high as the memory it held.
 *
 * @param no the job's display number
 * @param owner the job's owner
 * @param gpu the GPU index
 * @param startMillis start within the period, in milliseconds since the epoch
 * @param endMillis end within the period (the period's end for a run still open), in milliseconds
 * @param heightMib the run's measured peak on this GPU, else its declaration, else 0, in MiB
 * @param height where {@code heightMib} comes from
 * @param ending how the run ended: a final status, {@code oom}, {@code interrupted} or {@code requeued};
 *     {@code running} while it has no end
 */
public record Bar(int no, String owner, int gpu, long startMillis, long endMillis, long heightMib, Height height,
                  String ending) {
    /** Where a bar's height comes from. */
    public enum Height {
        /** The peak its {@code done} line measured on this GPU. */
        PEAK,
        /** No peak in the journal (a run before an OOM retry, an interrupted run, nothing measured): its declaration. */
        DECLARED,
        /** Neither: an undeclared run with nothing measured. */
        NONE
    }

    /**
     * Checks for nulls.
     *
     * @param no see {@link #no()}
     * @param owner see {@link #owner()}
     * @param gpu see {@link #gpu()}
     * @param startMillis see {@link #startMillis()}
     * @param endMillis see {@link #endMillis()}
     * @param heightMib see {@link #heightMib()}
     * @param height see {@link #height()}
     * @param ending see {@link #ending()}
     */
    public Bar {
        Objects.requireNonNull(owner);
        Objects.requireNonNull(height);
        Objects.requireNonNull(ending);
    }
}

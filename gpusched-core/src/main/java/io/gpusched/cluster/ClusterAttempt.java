package io.gpusched.cluster;

import io.gpusched.jobs.JobSpec;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One attempt of a job, as the engine hands it to a cluster.
 *
 * @param no the job's display number, at least 1
 * @param attempt the attempt's number, from 1 (an OOM retry is the next)
 * @param spec the job as queued: its line with any requirement rule applied
 * @param declaredMib what this attempt declares per GPU in MiB (a retry's bump, a learned {@code vram=auto});
 *     empty for an undeclared job, which asks for whole GPUs
 */
public record ClusterAttempt(int no, int attempt, JobSpec spec, OptionalLong declaredMib) {
    /**
     * Checks the numbers.
     *
     * @param no see {@link #no()}
     * @param attempt see {@link #attempt()}
     * @param spec see {@link #spec()}
     * @param declaredMib see {@link #declaredMib()}
     */
    public ClusterAttempt {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(declaredMib, "declaredMib");
        if (no < 1 || attempt < 1) {
            throw new IllegalArgumentException("a job's number and attempt start at 1, got " + no + " and " + attempt);
        }
    }

    /** @return the job's key */
    public String key() {
        return spec.key();
    }
}

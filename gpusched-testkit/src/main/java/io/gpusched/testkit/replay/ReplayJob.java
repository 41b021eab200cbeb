package io.gpusched.testkit.replay;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One job as the replay sees it: what it asks for and how long it runs.
 *
 * @param no display number (1-based queue position)
 * @param command the command, for the report
 * @param declaredMib per-GPU declaration in MiB; empty for an undeclared job (needs idle GPUs)
 * @param gpus number of distinct GPUs, at least 1
 * @param duration how long it runs once started
 * @param peakMib actual per-GPU peak in MiB, if known; it matters only when it exceeds the
 *     declaration (the scheduler then budgets peak × (1 + spike buffer))
 */
public record ReplayJob(int no, String command, OptionalLong declaredMib, int gpus, Duration duration, OptionalLong peakMib) {
    /** Validates the fields. */
    public ReplayJob {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(declaredMib, "declaredMib");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(peakMib, "peakMib");
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be >= 1, got " + gpus);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must be >= 0, got " + duration);
        }
    }
}

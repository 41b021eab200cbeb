package io.gpusched.testkit.replay;

import io.gpusched.alloc.GpuShare;
import io.gpusched.jobs.Scheduling;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One job as the replay sees it: what it asks for and how long it runs.
 *
 * @param no display number (1-based queue position)
 * @param command the command, for the report
 * @param declaredMib per-GPU declaration in MiB; empty for an undeclared job (needs idle GPUs)
 * @param gpus number of distinct GPUs, at least 1
 * @param duration how long it would run once started if nothing stopped it
 * @param peakMib actual per-GPU peak in MiB, if known; it matters only when it exceeds the
 *     declaration (the scheduler then budgets peak × (1 + spike buffer))
 * @param timeout its {@code timeout=}, if any: a job that would run longer is stopped at this limit
 * @param arrival when it joins the queue, from the replay's start ({@code # at=DUR} on its line)
 * @param scheduling its priority, pinning ({@code gpu-ids} as indices) and preemptibility
 * @param share a share of one GPU's memory ({@code gpus=0.5}) instead of {@code declaredMib}: it reserves
 *     that share of the total of the GPU it gets
 */
public record ReplayJob(int no, String command, OptionalLong declaredMib, int gpus, Duration duration, OptionalLong peakMib,
                        Optional<Duration> timeout, Duration arrival, Scheduling scheduling, Optional<GpuShare> share) {
    /**
     * Validates the fields.
     *
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param declaredMib see {@link #declaredMib()}
     * @param gpus see {@link #gpus()}
     * @param duration see {@link #duration()}
     * @param peakMib see {@link #peakMib()}
     * @param timeout see {@link #timeout()}
     * @param arrival see {@link #arrival()}
     * @param scheduling see {@link #scheduling()}
     * @param share see {@link #share()}
     */
    public ReplayJob {
        Objects.requireNonNull(arrival, "arrival");
        Objects.requireNonNull(share, "share");
        Objects.requireNonNull(scheduling, "scheduling");
        if (arrival.isNegative()) {
            throw new IllegalArgumentException("arrival must be >= 0, got " + arrival);
        }
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(declaredMib, "declaredMib");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(peakMib, "peakMib");
        Objects.requireNonNull(timeout, "timeout");
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be >= 1, got " + gpus);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must be >= 0, got " + duration);
        }
        if (timeout.isPresent() && timeout.get().isNegative()) {
            throw new IllegalArgumentException("timeout must be >= 0, got " + timeout.get());
        }
    }

    /**
     * A job of whole GPUs.
     *
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param declaredMib see {@link #declaredMib()}
     * @param gpus see {@link #gpus()}
     * @param duration see {@link #duration()}
     * @param peakMib see {@link #peakMib()}
     * @param timeout see {@link #timeout()}
     * @param arrival see {@link #arrival()}
     * @param scheduling see {@link #scheduling()}
     */
    public ReplayJob(int no, String command, OptionalLong declaredMib, int gpus, Duration duration, OptionalLong peakMib,
                     Optional<Duration> timeout, Duration arrival, Scheduling scheduling) {
        this(no, command, declaredMib, gpus, duration, peakMib, timeout, arrival, scheduling, Optional.empty());
    }

    /**
     * A job without a timeout.
     *
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param declaredMib see {@link #declaredMib()}
     * @param gpus see {@link #gpus()}
     * @param duration see {@link #duration()}
     * @param peakMib see {@link #peakMib()}
     */
    public ReplayJob(int no, String command, OptionalLong declaredMib, int gpus, Duration duration, OptionalLong peakMib) {
        this(no, command, declaredMib, gpus, duration, peakMib, Optional.empty());
    }

    /**
     * A job queued at the start, with the default scheduling.
     *
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param declaredMib see {@link #declaredMib()}
     * @param gpus see {@link #gpus()}
     * @param duration see {@link #duration()}
     * @param peakMib see {@link #peakMib()}
     * @param timeout see {@link #timeout()}
     */
    public ReplayJob(int no, String command, OptionalLong declaredMib, int gpus, Duration duration, OptionalLong peakMib,
                     Optional<Duration> timeout) {
        this(no, command, declaredMib, gpus, duration, peakMib, timeout, Duration.ZERO, Scheduling.DEFAULT);
    }

    /** @return whether its timeout stops it before it ends on its own */
    public boolean timesOut() {
        return timeout.isPresent() && duration.compareTo(timeout.get()) > 0;
    }

    /** @return how long it holds its GPUs: its duration, or its timeout when that comes first */
    public Duration runTime() {
        return timesOut() ? timeout.get() : duration;
    }
}

package io.gpusched.policy;

import java.time.Duration;
import java.util.Objects;

/**
 * The tunables of the queue policy.
 *
 * @param ageStep a waiting job's effective priority rises by one for each full step it has waited
 *     ({@code --age-step}, default 15 minutes): a job that waited an hour goes before a fresh one four
 *     levels above it. At least one second.
 * @param reserveAfter how long the first job that cannot be placed may wait before GPUs are reserved
 *     for it ({@code --reserve-after}, default 30 minutes); zero reserves at once
 * @param fairShareHalfLife how fast an owner's recent GPU time is forgotten ({@code --fair-share-half-life},
 *     default 4 hours); it only counts while several owners have jobs waiting. At least one second.
 * @param maxUtilPercent a GPU whose recent utilisation (the mean of its readings over the last 30 s) is
 *     above this many percent takes no new job ({@code --max-util}, 0 to 100); empty (the default) means
 *     utilisation never blocks. GPUs without a reading are never blocked by it.
 * @param autoVram whether every job that declares no memory learns it, as {@code vram=auto} on its line
 *     would ({@code --auto-vram}; default off: such a job runs alone on an idle GPU)
 */
public record PolicyOptions(Duration ageStep, Duration reserveAfter, Duration fairShareHalfLife,
                            java.util.OptionalInt maxUtilPercent, boolean autoVram) {
    /**
     * Validates the durations.
     *
     * @param ageStep see {@link #ageStep()}
     * @param reserveAfter see {@link #reserveAfter()}
     * @param fairShareHalfLife see {@link #fairShareHalfLife()}
     * @param maxUtilPercent see {@link #maxUtilPercent()}
     * @param autoVram see {@link #autoVram()}
     */
    public PolicyOptions {
        Objects.requireNonNull(ageStep, "ageStep");
        Objects.requireNonNull(maxUtilPercent, "maxUtilPercent");
        if (maxUtilPercent.isPresent() && (maxUtilPercent.getAsInt() < 0 || maxUtilPercent.getAsInt() > 100)) {
            throw new IllegalArgumentException("--max-util must be 0 to 100 (percent), got " + maxUtilPercent.getAsInt());
        }
        Objects.requireNonNull(reserveAfter, "reserveAfter");
        Objects.requireNonNull(fairShareHalfLife, "fairShareHalfLife");
        if (ageStep.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("age step must be at least 1s, got " + io.gpusched.jobs.Units.formatDuration(ageStep));
        }
        if (reserveAfter.isNegative()) {
            throw new IllegalArgumentException("reserve-after must not be negative, got " + io.gpusched.jobs.Units.formatDuration(reserveAfter));
        }
        if (fairShareHalfLife.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("fair-share half-life must be at least 1s, got "
                    + io.gpusched.jobs.Units.formatDuration(fairShareHalfLife));
        }
    }

    /** @return age step 15 minutes, reserve after 30 minutes, fair-share half-life 4 hours */
    public static PolicyOptions defaults() {
        return new PolicyOptions(Duration.ofMinutes(15), Duration.ofMinutes(30), Duration.ofHours(4), java.util.OptionalInt.empty(), false);
    }

    /**
     * @param v see {@link #ageStep()}
     * @return these options with that age step
     */
    public PolicyOptions withAgeStep(Duration v) {
        return new PolicyOptions(v, reserveAfter, fairShareHalfLife, maxUtilPercent, autoVram);
    }

    /**
     * @param v see {@link #reserveAfter()}
     * @return these options with that reservation threshold
     */
    public PolicyOptions withReserveAfter(Duration v) {
        return new PolicyOptions(ageStep, v, fairShareHalfLife, maxUtilPercent, autoVram);
    }

    /**
     * @param v see {@link #fairShareHalfLife()}
     * @return these options with that half-life
     */
    public PolicyOptions withFairShareHalfLife(Duration v) {
        return new PolicyOptions(ageStep, reserveAfter, v, maxUtilPercent, autoVram);
    }

    /**
     * @param percent see {@link #maxUtilPercent()}
     * @return a copy with this utilisation limit
     */
    public PolicyOptions withMaxUtilPercent(int percent) {
        return new PolicyOptions(ageStep, reserveAfter, fairShareHalfLife, java.util.OptionalInt.of(percent), autoVram);
    }

    /**
     * @param v see {@link #autoVram()}
     * @return these options with it
     */
    public PolicyOptions withAutoVram(boolean v) {
        return new PolicyOptions(ageStep, reserveAfter, fairShareHalfLife, maxUtilPercent, v);
    }
}

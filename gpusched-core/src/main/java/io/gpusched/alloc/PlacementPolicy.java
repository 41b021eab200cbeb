package io.gpusched.alloc;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The tunables of placement.
 *
 * @param marginMib safety margin in MiB added to every declaration ({@code --margin}, default 512)
 * @param idleThresholdMib a GPU whose effective external use is below this many MiB counts as idle for
 *     undeclared jobs ({@code --idle-threshold}, default 200; at least 1)
 * @param spikeBuffer fraction added over observed peaks of external processes and of jobs that broke
 *     their declaration ({@code --spike-buffer}, default 0.10)
 * @param exclusive at most one of our jobs per GPU ({@code --exclusive})
 * @param allowedGpus the only GPU indices that may be used ({@code --gpus}); empty means all
 * @param maxUtilPercent a GPU whose recent utilisation ({@link GpuView#recentUtilPercent()}) is above this
 *     many percent takes no new job ({@code --max-util}, 0 to 100); empty means utilisation never blocks
 */
public record PlacementPolicy(long marginMib, long idleThresholdMib, double spikeBuffer, boolean exclusive,
                              Optional<Set<Integer>> allowedGpus, java.util.OptionalInt maxUtilPercent) {
    /**
     * Validates the fields and copies the set.
     *
     * @param marginMib see {@link #marginMib()}
     * @param idleThresholdMib see {@link #idleThresholdMib()}
     * @param spikeBuffer see {@link #spikeBuffer()}
     * @param exclusive see {@link #exclusive()}
     * @param allowedGpus see {@link #allowedGpus()}
     * @param maxUtilPercent see {@link #maxUtilPercent()}
     */
    public PlacementPolicy {
        Objects.requireNonNull(allowedGpus, "allowedGpus");
        Objects.requireNonNull(maxUtilPercent, "maxUtilPercent");
        if (maxUtilPercent.isPresent() && (maxUtilPercent.getAsInt() < 0 || maxUtilPercent.getAsInt() > 100)) {
            throw new IllegalArgumentException("max util must be 0 to 100 %, got " + maxUtilPercent.getAsInt());
        }
        allowedGpus = allowedGpus.map(Set::copyOf);
        if (marginMib < 0) {
            throw new IllegalArgumentException("margin must be >= 0 MiB, got " + marginMib);
        }
        if (marginMib > Integer.MAX_VALUE) {
            // Added to a declaration (at most Integer.MAX_VALUE MiB): more would wrap the need to a negative that fits.
            throw new IllegalArgumentException("margin must be at most " + Integer.MAX_VALUE + " MiB, got " + marginMib);
        }
        if (idleThresholdMib < 1) {
            throw new IllegalArgumentException("idle threshold must be >= 1 MiB, got " + idleThresholdMib);
        }
        if (!(spikeBuffer >= 0 && spikeBuffer <= 10)) {
            throw new IllegalArgumentException("spike buffer must be in [0, 10], got " + spikeBuffer);
        }
    }

    /**
     * A policy without a utilisation limit.
     *
     * @param marginMib see {@link #marginMib()}
     * @param idleThresholdMib see {@link #idleThresholdMib()}
     * @param spikeBuffer see {@link #spikeBuffer()}
     * @param exclusive see {@link #exclusive()}
     * @param allowedGpus see {@link #allowedGpus()}
     */
    public PlacementPolicy(long marginMib, long idleThresholdMib, double spikeBuffer, boolean exclusive,
                           Optional<Set<Integer>> allowedGpus) {
        this(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, java.util.OptionalInt.empty());
    }

    /** @return the defaults of the original tool: margin 512, idle 200, spike buffer 0.10, shared, all GPUs */
    public static PlacementPolicy defaults() {
        return new PlacementPolicy(512, 200, 0.10, false, Optional.empty());
    }

    /**
     * @param index a GPU index
     * @return whether {@code --gpus} allows it
     */
    public boolean allows(int index) {
        return allowedGpus.map(s -> s.contains(index)).orElse(true);
    }
}

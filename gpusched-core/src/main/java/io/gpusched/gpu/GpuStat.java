package io.gpusched.gpu;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One schedulable GPU (or MIG instance) at the moment of a snapshot.
 *
 * @param index the index the scheduler uses in {@code --gpus}, log lines and placement; unique within a
 *     snapshot
 * @param uuid the device UUID ({@code GPU-...} or {@code MIG-...}) when the backend knows it
 * @param name the product name, e.g. {@code NVIDIA H100 80GB HBM3}; {@code "simulated"} for sim GPUs
 * @param pciBusId the PCI bus id when known, e.g. {@code 00000000:1B:00.0}
 * @param totalMib total memory in MiB; 0 for an unhealthy GPU whose size was never read (lost before the
 *     backend's first read of it), which placement then treats as of unknown size
 * @param usedMib memory in use by all processes (ours and others) in MiB, at most {@code totalMib}
 * @param utilPercent device utilisation 0–100 when the device reports it
 * @param healthy false when the device is lost or unusable; such a GPU is never chosen
 */
public record GpuStat(
        int index,
        Optional<String> uuid,
        String name,
        Optional<String> pciBusId,
        long totalMib,
        long usedMib,
        OptionalInt utilPercent,
        boolean healthy) {

    /**
     * Validates the fields.
     *
     * @param index see {@link #index()}
     * @param uuid see {@link #uuid()}
     * @param name see {@link #name()}
     * @param pciBusId see {@link #pciBusId()}
     * @param totalMib see {@link #totalMib()}
     * @param usedMib see {@link #usedMib()}
     * @param utilPercent see {@link #utilPercent()}
     * @param healthy see {@link #healthy()}
     */
    public GpuStat {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(pciBusId, "pciBusId");
        Objects.requireNonNull(utilPercent, "utilPercent");
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, got " + index);
        }
        if (totalMib < 0 || usedMib < 0) {
            throw new IllegalArgumentException("memory must be >= 0, got total " + totalMib + " used " + usedMib);
        }
    }

    /**
     * A healthy GPU with only the fields a simulation or test needs.
     *
     * @param index GPU index
     * @param totalMib total memory in MiB
     * @param usedMib used memory in MiB
     * @return the stat, with no UUID, no PCI id and unknown utilisation
     */
    public static GpuStat of(int index, long totalMib, long usedMib) {
        return new GpuStat(index, Optional.empty(), "simulated", Optional.empty(), totalMib, usedMib, OptionalInt.empty(), true);
    }
}

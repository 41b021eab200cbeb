package io.gpusched.alloc;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The memory arithmetic of placement (DESIGN §4 "Effective headroom"), in MiB. Pure.
 *
 * <p>Effective headroom = total − effective external use − Σ budgets of our jobs on the GPU, where
 * <ul>
 *   <li>a job's budget is its declaration while its observed peak stays within it, its buffered peak
 *       once it broke it, and never less than its current use — so a just-started job reserves its
 *       full declaration at 0 MiB, and an undeclared job counts what it uses now;</li>
 *   <li>effective external use is the larger of what others use now and the buffered sum of the
 *       observed peaks of external processes still alive, so a momentary trough is not packable.</li>
 * </ul>
 */
public final class Headroom {
    private Headroom() {
    }

    /**
     * @param t one of our jobs on a GPU
     * @param spikeBuffer fraction added to a broken declaration's peak
     * @return the MiB the job is assumed to need on that GPU
     */
    public static long budget(Tenant t, double spikeBuffer) {
        long base = t.currentMib();
        if (t.declaredMib().isPresent()) {
            long declared = t.declaredMib().getAsLong();
            base = t.peakMib() <= declared ? declared : buffered(t.peakMib(), spikeBuffer);
        }
        return Math.max(base, t.currentMib());
    }

    /**
     * @param gpu a GPU
     * @param spikeBuffer fraction added to external peaks
     * @return MiB that processes we did not launch are assumed to hold
     */
    public static long effectiveExternal(GpuView gpu, double spikeBuffer) {
        long own = 0;
        for (Tenant t : gpu.tenants()) {
            own += t.currentMib();
        }
        long instantaneous = Math.max(0, gpu.usedMib() - own);
        return Math.max(instantaneous, buffered(gpu.externalPeaksMib(), spikeBuffer));
    }

    /**
     * @param gpu a GPU
     * @param spikeBuffer the spike buffer
     * @return MiB still available for a new declared job; may be negative when over-committed
     */
    public static long effective(GpuView gpu, double spikeBuffer) {
        long reserved = effectiveExternal(gpu, spikeBuffer);
        for (Tenant t : gpu.tenants()) {
            reserved += budget(t, spikeBuffer);
        }
        return gpu.totalMib() - reserved;
    }

    /**
     * @param mib an observed amount
     * @param spikeBuffer fraction to add
     * @return {@code ⌈mib × (1 + spikeBuffer)⌉}
     */
    public static long buffered(long mib, double spikeBuffer) {
        if (mib == 0) {
            // Most GPUs have no external peak: no decimal arithmetic at every placement for nothing.
            return 0;
        }
        // Decimal, not binary: 1000 × (1 + 0.10) is 1100.0000000000002 in doubles and would round up to
        // 1101. BigDecimal.valueOf reads the spike buffer as the user wrote it (0.1).
        return BigDecimal.valueOf(mib).multiply(BigDecimal.ONE.add(BigDecimal.valueOf(spikeBuffer)))
                .setScale(0, RoundingMode.CEILING).longValueExact();
    }
}

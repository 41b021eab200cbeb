package io.gpusched.alloc;

import java.util.List;

/**
 * What the allocator knows about one GPU: its capacity, its use, and which of our jobs are on it.
 *
 * @param index the GPU index
 * @param totalMib total memory in MiB
 * @param usedMib memory in use by everyone now, in MiB
 * @param externalPeaksMib the sum, over processes we did not launch that are still alive on this GPU,
 *     of each one's observed peak in MiB (before the spike buffer)
 * @param tenants our running jobs on this GPU
 * @param healthy false when the GPU is lost or unusable; it is then never chosen
 * @param paused true while an administrator has paused it: no new job is placed there, running ones
 *     continue, and it still counts for whether a job could ever fit (a paused GPU blocks, it never
 *     makes a job infeasible)
 * @param recentUtilPercent the GPU's recent utilisation in percent (the mean of its readings over the last
 *     30 s), for {@code --max-util}; empty when the backend gives no reading or no limit is set
 */
public record GpuView(int index, long totalMib, long usedMib, long externalPeaksMib, List<Tenant> tenants, boolean healthy,
                      boolean paused, java.util.OptionalInt recentUtilPercent) {
    /**
     * Copies the tenant list and validates the numbers.
     *
     * @param index see {@link #index()}
     * @param totalMib see {@link #totalMib()}
     * @param usedMib see {@link #usedMib()}
     * @param externalPeaksMib see {@link #externalPeaksMib()}
     * @param tenants see {@link #tenants()}
     * @param healthy see {@link #healthy()}
     * @param paused see {@link #paused()}
     * @param recentUtilPercent see {@link #recentUtilPercent()}
     */
    public GpuView {
        tenants = List.copyOf(tenants);
        java.util.Objects.requireNonNull(recentUtilPercent, "recentUtilPercent");
        if (index < 0 || totalMib < 0 || usedMib < 0 || externalPeaksMib < 0) {
            throw new IllegalArgumentException("index and memory must be >= 0");
        }
    }

    /**
     * A GPU without a utilisation reading.
     *
     * @param index see {@link #index()}
     * @param totalMib see {@link #totalMib()}
     * @param usedMib see {@link #usedMib()}
     * @param externalPeaksMib see {@link #externalPeaksMib()}
     * @param tenants see {@link #tenants()}
     * @param healthy see {@link #healthy()}
     * @param paused see {@link #paused()}
     */
    public GpuView(int index, long totalMib, long usedMib, long externalPeaksMib, List<Tenant> tenants, boolean healthy,
                   boolean paused) {
        this(index, totalMib, usedMib, externalPeaksMib, tenants, healthy, paused, java.util.OptionalInt.empty());
    }

    /**
     * A GPU that is not paused.
     *
     * @param index see {@link #index()}
     * @param totalMib see {@link #totalMib()}
     * @param usedMib see {@link #usedMib()}
     * @param externalPeaksMib see {@link #externalPeaksMib()}
     * @param tenants see {@link #tenants()}
     * @param healthy see {@link #healthy()}
     */
    public GpuView(int index, long totalMib, long usedMib, long externalPeaksMib, List<Tenant> tenants, boolean healthy) {
        this(index, totalMib, usedMib, externalPeaksMib, tenants, healthy, false);
    }

    /**
     * @param paused whether it is paused
     * @return this GPU, paused or not
     */
    public GpuView withPaused(boolean paused) {
        return new GpuView(index, totalMib, usedMib, externalPeaksMib, tenants, healthy, paused, recentUtilPercent);
    }

    /**
     * @param percent its recent utilisation in percent, or empty
     * @return this GPU with that reading
     */
    public GpuView withRecentUtil(java.util.OptionalInt percent) {
        return new GpuView(index, totalMib, usedMib, externalPeaksMib, tenants, healthy, paused, percent);
    }

    /**
     * The GPUs as they are once a job started on some of them: that job is a tenant there with its
     * declaration as budget and nothing used yet, as the scheduler counts a job it just started.
     *
     * @param views the GPUs
     * @param gpus the GPUs the job got
     * @param tenant the job
     * @return the views, those in {@code gpus} with the tenant added
     */
    public static List<GpuView> withTenant(List<GpuView> views, List<Integer> gpus, Tenant tenant) {
        List<GpuView> out = new java.util.ArrayList<>(views.size());
        for (GpuView v : views) {
            if (gpus.contains(v.index())) {
                List<Tenant> tenants = new java.util.ArrayList<>(v.tenants());
                tenants.add(tenant);
                v = new GpuView(v.index(), v.totalMib(), v.usedMib(), v.externalPeaksMib(), tenants, v.healthy(), v.paused(),
                        v.recentUtilPercent());
            }
            out.add(v);
        }
        return out;
    }

    /**
     * @param index GPU index
     * @param totalMib total memory in MiB
     * @return a healthy, empty GPU
     */
    public static GpuView empty(int index, long totalMib) {
        return new GpuView(index, totalMib, 0, 0, List.of(), true);
    }

    /**
     * Equal to another view with equal fields, as a record is; written out because the record's own is
     * linked at its first call through {@code ObjectMethods}, several milliseconds of interpreted
     * method-handle work when a round first compares GPU views.
     *
     * @param o any object
     * @return whether it is a view with the same fields
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof GpuView v && index == v.index && totalMib == v.totalMib && usedMib == v.usedMib
                && externalPeaksMib == v.externalPeaksMib && java.util.Objects.equals(tenants, v.tenants)
                && healthy == v.healthy && paused == v.paused
                && java.util.Objects.equals(recentUtilPercent, v.recentUtilPercent);
    }

    /** @return the hash the record would make of its fields (31 times the hash so far, plus each field's) */
    @Override
    public int hashCode() {
        int h = Integer.hashCode(index);
        h = h * 31 + Long.hashCode(totalMib);
        h = h * 31 + Long.hashCode(usedMib);
        h = h * 31 + Long.hashCode(externalPeaksMib);
        h = h * 31 + java.util.Objects.hashCode(tenants);
        h = h * 31 + Boolean.hashCode(healthy);
        h = h * 31 + Boolean.hashCode(paused);
        return h * 31 + java.util.Objects.hashCode(recentUtilPercent);
    }
}

package io.gpusched.stats;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures of one set of jobs (everyone's, or one owner's) over the period.
 *
 * @param byStatus how many jobs, by final status, in the order of {@link #STATUSES} (zeros included): those
 *     that ended in the period, and those still {@code running} or {@code pending}
 * @param gpuMillis GPU-time of their runs within the period: the sum over runs of GPUs × run time, in
 *     milliseconds (exact, so the owners' figures add up to everyone's)
 * @param waits the waits of the jobs that first started in the period
 * @param utilisation the share of each GPU their runs held
 * @param declarations how good the declarations of the jobs that ended in the period were
 */
public record Figures(Map<String, Integer> byStatus, long gpuMillis, Waits waits, Utilisation utilisation,
                      Declarations declarations) {
    /** Every status a job can stand in, ended ones first, in the order reports list them. */
    public static final List<String> STATUSES = List.of("ok", "failed", "failed_oom", "timeout", "cancelled",
            "infeasible", "dependency_failed", History.RUNNING, History.PENDING);

    /**
     * Copies the map, keeping its order.
     *
     * @param byStatus see {@link #byStatus()}
     * @param gpuMillis see {@link #gpuMillis()}
     * @param waits see {@link #waits()}
     * @param utilisation see {@link #utilisation()}
     * @param declarations see {@link #declarations()}
     */
    public Figures {
        byStatus = Collections.unmodifiableMap(new LinkedHashMap<>(byStatus));
    }

    /** @return how many jobs are counted, whatever their status */
    public int jobs() {
        return byStatus.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** @return {@link #gpuMillis()} in GPU-hours */
    public double gpuHours() {
        return gpuMillis / 3_600_000.0;
    }
}

package io.gpusched.cluster;

import java.time.Duration;
import java.util.Objects;

/**
 * The cluster takes no attempt for now, for a reason that is no job's own (the user's or account's limit on
 * how many jobs it may have queued at once, Slurm's {@code MaxSubmitJobs}): it clears as the user's other
 * jobs there end. The engine keeps every job pending with {@link #reason()} as its queue reason, hands none
 * over meanwhile, and plans again when one of the run's cluster jobs ends or after {@link #retryIn()},
 * whichever comes first; nothing is failed.
 *
 * @param reason why the jobs wait, one line for the queue board, e.g. {@code waits for the cluster's submit
 *     limit (QOSMaxSubmitJobPerUserLimit)}
 * @param retryIn how long until the engine hands attempts over again if no cluster job of the run ends first;
 *     positive
 */
public record ClusterBusy(String reason, Duration retryIn) {
    /**
     * Checks the parts.
     *
     * @param reason see {@link #reason()}
     * @param retryIn see {@link #retryIn()}
     */
    public ClusterBusy {
        Objects.requireNonNull(reason, "reason");
        if (retryIn.isNegative() || retryIn.isZero()) {
            throw new IllegalArgumentException("retryIn must be positive: " + retryIn);
        }
    }
}

package io.gpusched.options;

import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.policy.PolicyOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The scheduler's tunables, with the original tool's defaults. Immutable; each {@code withX} returns
 * a copy, and every value is checked where it is set, with a message naming the option.
 *
 * @param marginMib MiB added to every declaration when placing ({@code --margin}, default 512)
 * @param idleThresholdMib MiB of effective external use below which a GPU is idle for undeclared jobs
 *     ({@code --idle-threshold}, default 200)
 * @param spikeBuffer fraction added over observed peaks of external processes and of jobs over their
 *     declaration ({@code --spike-buffer}, default 0.10)
 * @param exclusive one scheduled job per GPU ({@code --exclusive})
 * @param allowedGpus only these GPU indices ({@code --gpus}); empty for all
 * @param tolerance band for over/under-declaration verdicts ({@code --tolerance}, default 0.10)
 * @param poll time between scheduling rounds ({@code --poll}, default 5 s); dispatch also happens at
 *     once when a job exits, a job is submitted, or the jobs file changes
 * @param sampleInterval time between GPU memory samples for peak tracking while jobs run (default
 *     250 ms, never longer than {@code poll})
 * @param watch keep running after the queue drains ({@code --watch})
 * @param oomRetries default CUDA-OOM retries; a line's {@code [retries=N]} may raise it
 *     ({@code --oom-retries}, default 0)
 * @param killGrace time between SIGTERM and SIGKILL when a job is timed out or cancelled (default 10 s)
 * @param verbose emit a line each time a job's peak grows by {@code verboseStepMib} ({@code -v})
 * @param verboseStepMib peak growth in MiB between verbose lines (default 256)
 * @param backendFailureLimit consecutive failed snapshots after which dispatch pauses (default 5)
 * @param visibleDevices what {@code CUDA_VISIBLE_DEVICES} names: device UUIDs when the backend knows
 *     them, or plain indices
 * @param backendTimeout the longest the scheduler waits for one GPU snapshot ({@code --backend-timeout},
 *     default 10 s); a backend that takes longer counts as failed for that round, and while that call
 *     is still hung no other is made, so a hung driver never stops exits being handled or timeouts
 *     being enforced
 * @param retryFailed run again the jobs that failed, timed out, were infeasible or failed with CUDA OOM
 *     in an earlier run ({@code --retry-failed}, default off), with a fresh retry count and any
 *     declaration an OOM raised; cancelled and successful jobs never run again
 * @param compactAfterBytes the journal's size in bytes past which it is compacted (its folded state
 *     written back, crash-safely), checked once a round (default 64 MiB; at least 4096)
 * @param policy the queue policy's tunables: aging, reservation threshold, fair-share half-life
 *     ({@link PolicyOptions#defaults()})
 *
 * <p>Why one long file: one immutable record of every tunable, each checked where set; most of its length
 * is the copy-on-write {@code withX} methods and their documentation.
 */
public record SchedulerOptions(
        long marginMib,
        long idleThresholdMib,
        double spikeBuffer,
        boolean exclusive,
        Optional<Set<Integer>> allowedGpus,
        double tolerance,
        Duration poll,
        Duration sampleInterval,
        boolean watch,
        int oomRetries,
        Duration killGrace,
        boolean verbose,
        long verboseStepMib,
        int backendFailureLimit,
        VisibleDevices visibleDevices,
        Duration backendTimeout,
        boolean retryFailed,
        long compactAfterBytes,
        PolicyOptions policy) {

    /** How jobs are told which GPUs they got. */
    public enum VisibleDevices {
        /** UUIDs when the backend reports them (exact whatever CUDA's device order), else indices. */
        UUID,
        /**
         * Indices (with {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}), except on a machine with MIG instances, where the
         * scheduler's indices are not CUDA's: UUIDs there, as with {@link #UUID}.
         */
        INDEX
    }

    /**
     * Checks every value.
     *
     * @param marginMib see {@link #marginMib()}
     * @param idleThresholdMib see {@link #idleThresholdMib()}
     * @param spikeBuffer see {@link #spikeBuffer()}
     * @param exclusive see {@link #exclusive()}
     * @param allowedGpus see {@link #allowedGpus()}
     * @param tolerance see {@link #tolerance()}
     * @param poll see {@link #poll()}
     * @param sampleInterval see {@link #sampleInterval()}
     * @param watch see {@link #watch()}
     * @param oomRetries see {@link #oomRetries()}
     * @param killGrace see {@link #killGrace()}
     * @param verbose see {@link #verbose()}
     * @param verboseStepMib see {@link #verboseStepMib()}
     * @param backendFailureLimit see {@link #backendFailureLimit()}
     * @param visibleDevices see {@link #visibleDevices()}
     * @param backendTimeout see {@link #backendTimeout()}
     * @param retryFailed see {@link #retryFailed()}
     * @param compactAfterBytes see {@link #compactAfterBytes()}
     * @param policy see {@link #policy()}
     */
    public SchedulerOptions {
        Objects.requireNonNull(allowedGpus, "allowedGpus");
        Objects.requireNonNull(poll, "poll");
        Objects.requireNonNull(sampleInterval, "sampleInterval");
        Objects.requireNonNull(killGrace, "killGrace");
        Objects.requireNonNull(visibleDevices, "visibleDevices");
        Objects.requireNonNull(backendTimeout, "backendTimeout");
        Objects.requireNonNull(policy, "policy");
        allowedGpus = allowedGpus.map(Set::copyOf);
        require(marginMib >= 0, () -> "--margin must be >= 0 MiB, got " + marginMib);
        // Added to every declaration: past the largest one it would wrap a job's need to a negative that fits any GPU.
        require(marginMib <= io.gpusched.jobs.Units.MAX_MIB, () -> "--margin must be at most "
                + io.gpusched.jobs.Units.MAX_MIB + " MiB, got " + marginMib);
        require(idleThresholdMib >= 1, () -> "--idle-threshold must be >= 1 MiB, got " + idleThresholdMib);
        require(idleThresholdMib <= io.gpusched.jobs.Units.MAX_MIB, () -> "--idle-threshold must be at most "
                + io.gpusched.jobs.Units.MAX_MIB + " MiB, got " + idleThresholdMib);
        require(spikeBuffer >= 0 && spikeBuffer <= 10, () -> "--spike-buffer must be in [0, 10], got " + spikeBuffer);
        require(tolerance >= 0 && tolerance < 1, () -> "--tolerance must be in [0, 1), got " + tolerance);
        require(!poll.isNegative() && poll.toMillis() >= 1, () -> "--poll must be at least 0.001 s, got " + seconds(poll));
        require(poll.compareTo(Duration.ofDays(1)) <= 0, () -> "--poll must be at most 1 day, got " + seconds(poll));
        require(!sampleInterval.isNegative() && sampleInterval.toMillis() >= 1, "sample interval must be at least 1 ms");
        require(oomRetries >= 0, () -> "--oom-retries must be >= 0, got " + oomRetries);
        require(!killGrace.isNegative(), "kill grace must be >= 0");
        require(verboseStepMib >= 1, "verbose step must be >= 1 MiB");
        require(backendFailureLimit >= 1, "backend failure limit must be >= 1");
        require(!backendTimeout.isNegative() && backendTimeout.toMillis() >= 1,
                () -> "--backend-timeout must be at least 0.001 s, got " + seconds(backendTimeout));
        require(backendTimeout.compareTo(Duration.ofDays(1)) <= 0,
                () -> "--backend-timeout must be at most 1 day, got " + seconds(backendTimeout));
        require(compactAfterBytes >= 4096, () -> "the journal compaction threshold must be at least 4096 bytes, got "
                + compactAfterBytes);
        allowedGpus.ifPresent(s -> {
            require(!s.isEmpty(), "--gpus must name at least one GPU");
            s.forEach(i -> require(i >= 0, () -> "--gpus indices must be >= 0, got " + i));
        });
    }

    /** @return the original tool's defaults */
    public static SchedulerOptions defaults() {
        return new SchedulerOptions(512, 200, 0.10, false, Optional.empty(), 0.10, Duration.ofSeconds(5),
                Duration.ofMillis(250), false, 0, Duration.ofSeconds(10), false, 256, 5, VisibleDevices.UUID,
                Duration.ofSeconds(10), false, 64L << 20, PolicyOptions.defaults());
    }

    /** @return the placement part of these options, for the {@link io.gpusched.alloc.Allocator} */
    public PlacementPolicy placement() {
        return new PlacementPolicy(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, policy.maxUtilPercent());
    }

    /** @return the effective sample interval: {@link #sampleInterval} capped at {@link #poll} */
    public Duration effectiveSampleInterval() {
        return sampleInterval.compareTo(poll) < 0 ? sampleInterval : poll;
    }

    /**
     * @param v MiB
     * @return a copy with this margin
     */
    public SchedulerOptions withMarginMib(long v) {
        return new SchedulerOptions(v, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v MiB
     * @return a copy with this idle threshold
     */
    public SchedulerOptions withIdleThresholdMib(long v) {
        return new SchedulerOptions(marginMib, v, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v fraction
     * @return a copy with this spike buffer
     */
    public SchedulerOptions withSpikeBuffer(double v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, v, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v whether exclusive
     * @return a copy
     */
    public SchedulerOptions withExclusive(boolean v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, v, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v the only GPU indices to use
     * @return a copy
     */
    public SchedulerOptions withAllowedGpus(Set<Integer> v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, Optional.of(v), tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v fraction
     * @return a copy with this tolerance
     */
    public SchedulerOptions withTolerance(double v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, v, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v time between rounds
     * @return a copy
     */
    public SchedulerOptions withPoll(Duration v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, v, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v time between memory samples
     * @return a copy
     */
    public SchedulerOptions withSampleInterval(Duration v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, v, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v whether to keep running after drain
     * @return a copy
     */
    public SchedulerOptions withWatch(boolean v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, v, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v default OOM retries
     * @return a copy
     */
    public SchedulerOptions withOomRetries(int v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, v, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v SIGTERM to SIGKILL grace
     * @return a copy
     */
    public SchedulerOptions withKillGrace(Duration v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, v, verbose, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v whether verbose
     * @return a copy
     */
    public SchedulerOptions withVerbose(boolean v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, v, verboseStepMib, backendFailureLimit, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v consecutive failures before pausing dispatch
     * @return a copy
     */
    public SchedulerOptions withBackendFailureLimit(int v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, v, visibleDevices, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v what CUDA_VISIBLE_DEVICES names
     * @return a copy
     */
    public SchedulerOptions withVisibleDevices(VisibleDevices v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, v, backendTimeout, retryFailed, compactAfterBytes, policy);
    }

    /**
     * @param v the longest wait for one GPU snapshot, more than 0 and at most 1 day
     * @return a copy with this bound
     */
    public SchedulerOptions withBackendTimeout(Duration v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll, sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices, v, retryFailed, compactAfterBytes, policy);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** As above, the message built only when it is said: options are built often (a replay builds several). */
    private static void require(boolean ok, java.util.function.Supplier<String> message) {
        if (!ok) {
            throw new IllegalArgumentException(message.get());
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() / 1000.0 + " s";
    }

    /**
     * @param v whether to run earlier failures again
     * @return a copy with this setting
     */
    public SchedulerOptions withRetryFailed(boolean v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll,
                sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices,
                backendTimeout, v, compactAfterBytes, policy);
    }

    /**
     * @param v bytes
     * @return a copy compacting the journal past this size
     */
    public SchedulerOptions withCompactAfterBytes(long v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll,
                sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices,
                backendTimeout, retryFailed, v, policy);
    }

    /**
     * @param v the queue policy's tunables
     * @return a copy with them
     */
    public SchedulerOptions withPolicy(PolicyOptions v) {
        return new SchedulerOptions(marginMib, idleThresholdMib, spikeBuffer, exclusive, allowedGpus, tolerance, poll,
                sampleInterval, watch, oomRetries, killGrace, verbose, verboseStepMib, backendFailureLimit, visibleDevices,
                backendTimeout, retryFailed, compactAfterBytes, v);
    }
}

package io.gpusched.slurm;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How {@link SlurmExecutor} uses the cluster.
 *
 * @param partition {@code sbatch --partition}, when given
 * @param account {@code sbatch --account}, when given
 * @param shardMib MiB one GPU shard stands for ({@code --shard-mib}), at least 1
 * @param gpuShards shards per GPU in the cluster's {@code gres.conf} ({@code --gpu-shards}), at least 1
 * @param poll time between two looks at the queue ({@code squeue}), positive
 * @param oomRetries CUDA-OOM retries of every job; a line's {@code retries} wins when larger
 * @param tolerance the verdict's band, a share of the declaration in [0, 1)
 * @param backend the GPU backend the wrapper samples on the compute node ({@code nvml}, {@code sim}); empty:
 *     the one the node detects
 * @param backendOptions options for that backend ({@code gpus=2} for {@code sim})
 * @param fresh start a new journal instead of resuming the one in the log directory
 * @param submitLimitRetry after sbatch refused a job for a submit-count limit ({@code QOSMaxSubmitJobPerUserLimit}...),
 *     how long the jobs wait before one is submitted again if none of the run's Slurm jobs ends first; positive
 */
public record SlurmOptions(Optional<String> partition, Optional<String> account, long shardMib, int gpuShards,
                           Duration poll, int oomRetries, double tolerance, Optional<String> backend,
                           Map<String, String> backendOptions, boolean fresh, Duration submitLimitRetry) {
    /** {@code --shard-mib} unless given: an 80 GB card with {@code Count=8}. */
    public static final long DEFAULT_SHARD_MIB = 10_240;
    /** {@code --gpu-shards} unless given. */
    public static final int DEFAULT_GPU_SHARDS = 8;

    /**
     * Checks the ranges.
     *
     * @param partition see {@link #partition()}
     * @param account see {@link #account()}
     * @param shardMib see {@link #shardMib()}
     * @param gpuShards see {@link #gpuShards()}
     * @param poll see {@link #poll()}
     * @param oomRetries see {@link #oomRetries()}
     * @param tolerance see {@link #tolerance()}
     * @param backend see {@link #backend()}
     * @param backendOptions see {@link #backendOptions()}
     * @param fresh see {@link #fresh()}
     * @param submitLimitRetry see {@link #submitLimitRetry()}
     */
    public SlurmOptions {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(account, "account");
        Objects.requireNonNull(backend, "backend");
        backendOptions = java.util.Collections.unmodifiableMap(new TreeMap<>(backendOptions));
        if (shardMib < 1 || gpuShards < 1) {
            throw new IllegalArgumentException("--shard-mib and --gpu-shards must be at least 1");
        }
        if (submitLimitRetry.isNegative() || submitLimitRetry.isZero()) {
            throw new IllegalArgumentException("the submit-limit back-off must be positive");
        }
        if (poll.isNegative() || poll.isZero()) {
            throw new IllegalArgumentException("--poll must be positive");
        }
        if (oomRetries < 0 || tolerance < 0 || tolerance >= 1) {
            throw new IllegalArgumentException("--oom-retries must be at least 0 and --tolerance in [0, 1)");
        }
    }

    /**
     * {@link #submitLimitRetry()} unless given: long enough that a user at the limit, whose other jobs run for
     * minutes or hours, costs slurmctld one refused sbatch per half minute, short enough that a place freed by
     * a job outside this run (which the run is not told of) is taken soon after.
     */
    public static final Duration DEFAULT_SUBMIT_LIMIT_RETRY = Duration.ofSeconds(30);

    /** @return no partition or account, 10240 MiB shards, 8 per GPU, 5 s polls, no OOM retries beyond a line's, ±10%, detected backend, 30 s submit-limit back-off */
    public static SlurmOptions defaults() {
        return new SlurmOptions(Optional.empty(), Optional.empty(), DEFAULT_SHARD_MIB, DEFAULT_GPU_SHARDS,
                Duration.ofSeconds(5), 0, 0.10, Optional.empty(), Map.of(), false, DEFAULT_SUBMIT_LIMIT_RETRY);
    }

    /**
     * @param p the partition
     * @return these options with it
     */
    public SlurmOptions withPartition(String p) {
        return new SlurmOptions(Optional.of(p), account, shardMib, gpuShards, poll, oomRetries, tolerance, backend,
                backendOptions, fresh, submitLimitRetry);
    }

    /**
     * @param a the account
     * @return these options with it
     */
    public SlurmOptions withAccount(String a) {
        return new SlurmOptions(partition, Optional.of(a), shardMib, gpuShards, poll, oomRetries, tolerance, backend,
                backendOptions, fresh, submitLimitRetry);
    }

    /**
     * @param mib MiB per shard
     * @param shards shards per GPU
     * @return these options with them
     */
    public SlurmOptions withShards(long mib, int shards) {
        return new SlurmOptions(partition, account, mib, shards, poll, oomRetries, tolerance, backend, backendOptions,
                fresh, submitLimitRetry);
    }

    /**
     * @param p time between polls
     * @return these options with it
     */
    public SlurmOptions withPoll(Duration p) {
        return new SlurmOptions(partition, account, shardMib, gpuShards, p, oomRetries, tolerance, backend, backendOptions,
                fresh, submitLimitRetry);
    }

    /**
     * @param retries OOM retries
     * @param band the verdict's tolerance
     * @return these options with them
     */
    public SlurmOptions withJudging(int retries, double band) {
        return new SlurmOptions(partition, account, shardMib, gpuShards, poll, retries, band, backend, backendOptions,
                fresh, submitLimitRetry);
    }

    /**
     * @param name the wrapper's backend
     * @param opts its options
     * @return these options with them
     */
    public SlurmOptions withBackend(String name, Map<String, String> opts) {
        return new SlurmOptions(partition, account, shardMib, gpuShards, poll, oomRetries, tolerance, Optional.of(name),
                opts, fresh, submitLimitRetry);
    }

    /**
     * @param f whether to start a new journal
     * @return these options with it
     */
    public SlurmOptions withFresh(boolean f) {
        return new SlurmOptions(partition, account, shardMib, gpuShards, poll, oomRetries, tolerance, backend,
                backendOptions, f, submitLimitRetry);
    }

    /**
     * @param retry how long jobs held back by a submit-count limit wait before sbatch is asked again, if none
     *     of the run's Slurm jobs ends first
     * @return these options with it
     */
    public SlurmOptions withSubmitLimitRetry(Duration retry) {
        return new SlurmOptions(partition, account, shardMib, gpuShards, poll, oomRetries, tolerance, backend,
                backendOptions, fresh, retry);
    }
}

package io.gpusched;

import io.gpusched.model.Grant;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A request for GPUs whose command the requester runs itself ({@code gpusched srun}), from
 * {@link Scheduler#lease}: queued, ordered and placed like any job; when placed, {@link #granted()}
 * completes with the GPUs and the environment to run with. The holder then reports how the command
 * ended through {@link Scheduler#leaseEnded}; the job's {@link JobHandle#result()} follows, with its measured
 * VRAM and verdict.
 */
public final class Lease {
    private final JobHandle job;
    private final CompletableFuture<Grant> granted;

    /**
     * @param job the job the lease is
     * @param granted see {@link #granted()}
     */
    public Lease(JobHandle job, CompletableFuture<Grant> granted) {
        this.job = Objects.requireNonNull(job, "job");
        this.granted = Objects.requireNonNull(granted, "granted");
    }

    /** @return the job: its number, result, and cancel (which, while granted, signals the run's processes) */
    public JobHandle job() {
        return job;
    }

    /**
     * @return completes when the GPUs are granted; never completes for a job that ends before (watch
     *     {@code job().result()} for that)
     */
    public CompletableFuture<Grant> granted() {
        return granted;
    }
}

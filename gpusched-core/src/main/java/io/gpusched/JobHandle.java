package io.gpusched;

import io.gpusched.model.CancelOutcome;
import io.gpusched.model.GpuschedException;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.JournalUnwritableException;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/** A job submitted through {@link Scheduler#submit}: its number, its result, and a way to cancel it. */
public final class JobHandle {
    private final String command;
    private final CompletableFuture<Integer> number;
    private final CompletableFuture<JobResult> result;
    private final IntFunction<CancelOutcome> canceller;

    /**
     * @param command the submitted command
     * @param number see {@link #number()}
     * @param result see {@link #result()}
     * @param canceller cancels a job by number (the scheduler's {@link Scheduler#cancel(int)})
     */
    public JobHandle(String command, CompletableFuture<Integer> number, CompletableFuture<JobResult> result,
                     IntFunction<CancelOutcome> canceller) {
        this.command = Objects.requireNonNull(command, "command");
        this.number = Objects.requireNonNull(number, "number");
        this.result = Objects.requireNonNull(result, "result");
        this.canceller = Objects.requireNonNull(canceller, "canceller");
    }

    /** @return the submitted command */
    public String command() {
        return command;
    }

    /**
     * @return completes with the job's display number once the submission is journaled and forced to
     *     disk (already complete when {@code submit} returned during a run, unless refused); exceptionally
     *     if the scheduler ended first, or with a {@link JournalUnwritableException} if the journal could
     *     not be written (then no number was used up)
     */
    public CompletableFuture<Integer> number() {
        return number;
    }

    /**
     * @return completes with the job's result when it reaches a terminal state (a cancelled job ends
     *     {@link JobStatus#CANCELLED}); exceptionally if the scheduler stops first
     */
    public CompletableFuture<JobResult> result() {
        return result;
    }

    /**
     * Cancels the job: see {@link Scheduler#cancel(int)}. Waits for the submission to be taken first.
     *
     * @return what happened
     * @throws GpuschedException if the scheduler is not running
     */
    public CancelOutcome cancel() {
        return canceller.apply(number.join());
    }

    @Override
    public String toString() {
        return "JobHandle[" + command + "]";
    }
}

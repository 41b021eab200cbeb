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
    private final java.util.function.BooleanSupplier withdrawer;

    /**
     * A handle whose submission cannot be taken back ({@link #withdraw} answers false).
     *
     * @param command the submitted command
     * @param number see {@link #number()}
     * @param result see {@link #result()}
     * @param canceller cancels a job by number (the scheduler's {@link Scheduler#cancel(int)})
     */
    public JobHandle(String command, CompletableFuture<Integer> number, CompletableFuture<JobResult> result,
                     IntFunction<CancelOutcome> canceller) {
        this(command, number, result, canceller, () -> false);
    }

    /**
     * @param command the submitted command
     * @param number see {@link #number()}
     * @param result see {@link #result()}
     * @param canceller cancels a job by number (the scheduler's {@link Scheduler#cancel(int)})
     * @param withdrawer takes the submission back while the scheduler has not taken it: see {@link #withdraw}
     */
    public JobHandle(String command, CompletableFuture<Integer> number, CompletableFuture<JobResult> result,
                     IntFunction<CancelOutcome> canceller, java.util.function.BooleanSupplier withdrawer) {
        this.command = Objects.requireNonNull(command, "command");
        this.number = Objects.requireNonNull(number, "number");
        this.result = Objects.requireNonNull(result, "result");
        this.canceller = Objects.requireNonNull(canceller, "canceller");
        this.withdrawer = Objects.requireNonNull(withdrawer, "withdrawer");
    }

    /**
     * Takes the submission back if the scheduler's loop has not taken it yet, so a caller that gave up
     * waiting (a loop held up by a slow disk or a long round) can say for certain that nothing was
     * queued. Never blocks.
     *
     * @return true when it was not taken and never will be: {@link #number()} and {@link #result()} then
     *     fail with a {@link GpuschedException}; false when the loop has it (its number or refusal comes
     *     as usual) or it was answered already
     */
    public boolean withdraw() {
        return !number.isDone() && withdrawer.getAsBoolean();
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

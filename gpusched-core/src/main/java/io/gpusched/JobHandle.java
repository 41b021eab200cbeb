package io.gpusched;

import java.util.concurrent.CompletableFuture;

/**
 * A job submitted through {@link Scheduler#submit}.
 *
 * @param command the submitted command
 * @param number completes with the job's display number once the submission is journaled (already
 *     complete when {@code submit} returned during a run); exceptionally if the scheduler ended first
 * @param result completes with the job's result when it reaches a terminal state; completes
 *     exceptionally if the scheduler stops first
 */
public record JobHandle(String command, CompletableFuture<Integer> number, CompletableFuture<JobResult> result) {
}

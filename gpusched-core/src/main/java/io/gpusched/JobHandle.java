package io.gpusched;

import java.util.concurrent.CompletableFuture;

/**
 * A job submitted through {@link Scheduler#submit}. Its identity key is numbered after identical
 * lines already queued, so it is in {@link JobResult#key()} rather than here.
 *
 * @param command the submitted command
 * @param result completes with the job's result when it reaches a terminal state; completes
 *     exceptionally if the scheduler stops first
 */
public record JobHandle(String command, CompletableFuture<JobResult> result) {
}

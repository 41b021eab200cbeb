package io.gpusched;

import java.util.List;

/**
 * What a {@link Scheduler#run()} did.
 *
 * @param results every job that reached a terminal state during this run, in completion order
 * @param interrupted whether the run was stopped (Ctrl-C or {@link Scheduler#close()}) before it drained
 */
public record RunSummary(List<JobResult> results, boolean interrupted) {
    /**
     * Copies the list.
     *
     * @param results see {@link #results()}
     * @param interrupted see {@link #interrupted()}
     */
    public RunSummary {
        results = List.copyOf(results);
    }

    /**
     * The process exit code the original tool uses: 0 if every job succeeded or was cancelled,
     * otherwise the largest failing exit code (at least 1); 130 when interrupted.
     *
     * @return the exit code
     */
    public int exitCode() {
        if (interrupted) {
            return 130;
        }
        int worst = 0;
        for (JobResult r : results) {
            if (r.status().isFailure()) {
                worst = Math.max(worst, Math.max(1, r.exitCode()));
            }
        }
        return worst;
    }

    /**
     * @param status a status
     * @return how many results ended with it
     */
    public long count(JobStatus status) {
        return results.stream().filter(r -> r.status() == status).count();
    }

    /**
     * @param verdict a verdict
     * @return how many results carry it
     */
    public long count(Verdict verdict) {
        return results.stream().filter(r -> r.verdict() == verdict).count();
    }
}

package io.gpusched.model;

import io.gpusched.Scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link Scheduler#run()} did, and where the rest of its queue stands: the jobs that ended in
 * this run, and those of the queue that had ended in an earlier one (the journal's outcome, not run
 * again), so that a re-run of a queue with failures still reports them.
 *
 * @param results every job that reached a terminal state during this run, in completion order
 * @param earlier the jobs of the queue that had ended in an earlier run and were not run again, by
 *     display number
 * @param interrupted whether the run was stopped (Ctrl-C, SIGTERM or {@link Scheduler#close()}) before
 *     it drained
 */
public record RunSummary(List<JobResult> results, List<JobResult> earlier, boolean interrupted) {
    /** Exit code of an interrupted run, whatever signal or call stopped it. */
    public static final int INTERRUPTED_EXIT = 130;
    /** What a timed-out job contributes to the exit code, as GNU {@code timeout} exits. */
    public static final int TIMEOUT_EXIT = 124;

    /**
     * Copies the lists.
     *
     * @param results see {@link #results()}
     * @param earlier see {@link #earlier()}
     * @param interrupted see {@link #interrupted()}
     */
    public RunSummary {
        results = List.copyOf(results);
        earlier = List.copyOf(earlier);
    }

    /**
     * A summary with no earlier outcomes.
     *
     * @param results see {@link #results()}
     * @param interrupted see {@link #interrupted()}
     */
    public RunSummary(List<JobResult> results, boolean interrupted) {
        this(results, List.of(), interrupted);
    }

    /** @return the earlier outcomes, then this run's: every ended job of the queue */
    public List<JobResult> all() {
        List<JobResult> all = new ArrayList<>(earlier);
        all.addAll(results);
        return all;
    }

    /**
     * The process exit code, over the whole queue (earlier outcomes included): {@value #INTERRUPTED_EXIT}
     * when interrupted; else 0 if every job succeeded or was cancelled; else the largest of the failing
     * jobs' codes, where a failed job gives its exit code (at least 1) and a timed-out one
     * {@value #TIMEOUT_EXIT}. So a timed-out job (124, or its own code) and an interrupted run (130)
     * differ, unless a job itself exits 130.
     *
     * @return the exit code
     */
    public int exitCode() {
        if (interrupted) {
            return INTERRUPTED_EXIT;
        }
        int worst = 0;
        for (List<JobResult> list : List.of(earlier, results)) {
            for (JobResult r : list) {
                if (r.status() == JobStatus.TIMEOUT) {
                    worst = Math.max(worst, TIMEOUT_EXIT);
                } else if (r.status().isFailure()) {
                    worst = Math.max(worst, Math.max(1, r.exitCode()));
                }
            }
        }
        return worst;
    }

    /**
     * @param status a status
     * @return how many jobs of the queue ended with it, earlier outcomes included
     */
    public long count(JobStatus status) {
        return all().stream().filter(r -> r.status() == status).count();
    }

    /**
     * @param verdict a verdict
     * @return how many jobs of the queue carry it, earlier outcomes included
     */
    public long count(Verdict verdict) {
        return all().stream().filter(r -> r.verdict() == verdict).count();
    }
}

package io.gpusched.model;

import java.util.Optional;

/**
 * Where a job stands in the journal's fold: waiting, about to be spawned, running, or ended with one of
 * the {@link JobStatus} outcomes. The journal spells each as its lowercase name ({@code pending},
 * {@code launching}, {@code failed_oom}), exactly as the {@code status} of a folded record always read.
 */
public enum JobState {
    /** Waiting to run: never started, or to run again (OOM retry, requeue, interrupted attempt). */
    PENDING(null),
    /** A {@code launching} intent with no {@code started} after it: the spawn may or may not have happened. */
    LAUNCHING(null),
    /** Started, with no outcome yet. */
    RUNNING(null),
    /** Ended: exited 0. */
    OK(JobStatus.OK),
    /** Ended: exited non-zero. */
    FAILED(JobStatus.FAILED),
    /** Ended: killed after its timeout. */
    TIMEOUT(JobStatus.TIMEOUT),
    /** Ended: could never be placed. */
    INFEASIBLE(JobStatus.INFEASIBLE),
    /** Ended: CUDA OOM with no retries left. */
    FAILED_OOM(JobStatus.FAILED_OOM),
    /** Ended: cancelled. */
    CANCELLED(JobStatus.CANCELLED),
    /** Ended: a job it runs after failed. */
    DEPENDENCY_FAILED(JobStatus.DEPENDENCY_FAILED);

    private final JobStatus outcome;
    /** The journal spelling, made once: it is asked for with every line the journal folds. */
    private final String journalName;

    JobState(JobStatus outcome) {
        this.outcome = outcome;
        this.journalName = outcome == null ? name().toLowerCase(java.util.Locale.ROOT) : outcome.journalName();
    }

    /** @return the journal spelling, e.g. {@code pending} or {@code failed_oom} */
    public String journalName() {
        return journalName;
    }

    /** @return whether the job is done for good: it is never dispatched again (unless retried on purpose) */
    public boolean terminal() {
        return outcome != null;
    }

    /** @return how it ended; empty while it has not */
    public Optional<JobStatus> outcome() {
        return Optional.ofNullable(outcome);
    }

    /**
     * @param status an outcome
     * @return the ended state of that outcome
     */
    public static JobState of(JobStatus status) {
        return valueOf(status.name());
    }

    /**
     * @param name a journal spelling, as {@link #journalName()} writes it
     * @return its state
     * @throws IllegalArgumentException for a spelling that names no state
     */
    public static JobState fromJournal(String name) {
        for (JobState s : values()) {
            if (s.journalName().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no job state is spelled '" + name + "'");
    }
}

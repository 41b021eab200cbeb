package io.gpusched.model;

import java.util.Locale;
import java.util.Optional;

/** How a job ended. The journal spells each as its lowercase name ({@code failed_oom}). */
public enum JobStatus {
    /** Exited 0. */
    OK,
    /** Exited non-zero without an OOM signature (never retried). */
    FAILED,
    /** Killed after its {@code timeout}. */
    TIMEOUT,
    /** Could never fit, even on empty allowed GPUs; never started. */
    INFEASIBLE,
    /** Hit CUDA OOM with no retries left. */
    FAILED_OOM,
    /** Cancelled by the {@code cancel} token (running or before start). Not a failure. */
    CANCELLED,
    /** Never ran: a job it had to run after ({@code after=}) failed, was cancelled or never ran. */
    DEPENDENCY_FAILED;

    /** Each constant's journal spelling, made once: it is asked for with every line the journal folds. */
    private final String journalName = name().toLowerCase(Locale.ROOT);

    /** @return the journal spelling, e.g. {@code failed_oom} */
    public String journalName() {
        return journalName;
    }

    /**
     * @param name a journal spelling
     * @return the status, if it is one of the terminal statuses
     */
    public static Optional<JobStatus> fromJournal(String name) {
        for (JobStatus s : values()) {
            if (s.journalName().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** @return whether this outcome counts against the run's exit code */
    public boolean isFailure() {
        return this != OK && this != CANCELLED;
    }
}

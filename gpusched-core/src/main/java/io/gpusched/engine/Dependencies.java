package io.gpusched.engine;

import io.gpusched.JobStatus;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Scheduling;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a job's {@code after} dependencies let it run: it waits while any is unfinished, ends as
 * {@code dependency_failed} when one it needs to succeed did not, and runs once all are settled. Names
 * are looked up among the queue's jobs; a submission's name stays known after the submission ended
 * and left the queue (the newest job of a name wins), up to {@link #REMEMBERED} names.
 */
final class Dependencies {
    /** Names of jobs that left the queue that are still resolved: bounds memory in a months-long run. */
    static final int REMEMBERED = 10_000;

    /** What a job's dependencies say now. */
    sealed interface Verdict permits Ready, Waiting, Failed {
    }

    /** Every dependency is settled as the job needs: it may run. */
    record Ready() implements Verdict {
    }

    /** A dependency has not ended yet. */
    record Waiting(String reason) implements Verdict {
    }

    /** A dependency it needs to succeed did not, or is unknown: it never runs. */
    record Failed(String reason) implements Verdict {
    }

    private final Map<String, String> keysByName = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    /** Learns the names of the queue's jobs, this round's. */
    void learn(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            j.scheduling().name().ifPresent(n -> {
                // Re-inserting moves a name to the newest end, so the oldest names are the first forgotten.
                keysByName.remove(n);
                keysByName.put(n, j.key());
            });
        }
    }

    /**
     * @param job a job of the queue
     * @param state the journal's state
     * @return whether it may run, must wait, or will never run
     */
    Verdict check(JobSpec job, JournalState state) {
        List<String> waiting = new ArrayList<>();
        for (Scheduling.Dependency d : job.scheduling().after()) {
            Optional<String> key = Optional.ofNullable(keysByName.get(d.name()));
            if (key.isEmpty()) {
                return new Failed("after=" + d.name() + ": no job of that name is known");
            }
            JobRecord r = state.record(key.get());
            String who = "job " + r.no().orElse(0) + " (" + d.name() + ")";
            if (!r.terminal()) {
                waiting.add(who);
            } else if (d.needsSuccess() && !"ok".equals(r.status())) {
                return new Failed(who + " ended " + JobStatus.fromJournal(r.status()).map(JobStatus::journalName)
                        .orElse(r.status()) + "; use after-any= to run after it however it ends");
            }
        }
        return waiting.isEmpty() ? new Ready() : new Waiting("after " + String.join(", ", waiting));
    }
}

package io.gpusched.engine.ending;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The queue's jobs that have ended, as one run sees them: which ended before it started (said once,
 * kept for the summary and board, or run again under {@code --retry-failed}), and whether an ended
 * job's line was edited since. Pure: the journal's records go in, decisions come out; the loop thread
 * owns it and emits the events.
 */
public final class EndedJobs {
    /** Keys the journal held as ended when the run started, until each is reported or retried. */
    private final Set<String> endedBefore = new HashSet<>();
    /** Earlier outcomes of jobs still in the queue, by key. */
    private final Map<String, JobResult> earlier = new LinkedHashMap<>();
    /** Each ended job's line as it was when it ended (or was first seen ended). */
    private final Map<String, JobSpec> endedSpecs = new HashMap<>();
    private final boolean retryFailed;
    private long changes;

    /**
     * @param records the journal's records as the run starts
     * @param retryFailed whether failures of earlier runs run again ({@code --retry-failed})
     */
    public EndedJobs(Map<String, JobRecord> records, boolean retryFailed) {
        this.retryFailed = retryFailed;
        records.forEach((k, r) -> {
            if (r.terminal()) {
                endedBefore.add(k);
            }
        });
    }

    /**
     * @return whether this job, ended before the run, runs again now: with {@code --retry-failed},
     *     any failure; never an ok or cancelled job, nor a line marked {@code cancel}. Answers true
     *     once per job.
     */
    public boolean retryNow(JobSpec j, JobRecord r) {
        return r.terminal() && !j.cancel() && retryFailed && status(r).isFailure() && endedBefore.remove(j.key());
    }

    /**
     * The first time in this run a job found ended had ended before the run: its earlier outcome, kept
     * for the summary and board. Empty for a job that ended in this run or was already reported.
     */
    public Optional<JobResult> firstSightOfEarlier(JobSpec j, JobRecord r, int no, String owner) {
        endedSpecs.putIfAbsent(j.key(), j);
        if (!endedBefore.remove(j.key())) {
            return Optional.empty();
        }
        JobResult result = earlierResult(j, r, no, owner);
        earlier.put(j.key(), result);
        changes++;
        return Optional.of(result);
    }

    /**
     * A job that ended before this run, as the journal folded it: its status, exit code, GPUs, peaks and
     * declaration; not judged again (its line may have changed since), and with no duration (the fold
     * keeps none).
     *
     * @param j its job
     * @param r its record, terminal
     * @param no its display number
     * @param owner who it ran for
     * @return its outcome
     */
    public static JobResult earlierResult(JobSpec j, JobRecord r, int no, String owner) {
        JobStatus status = status(r);
        OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : j.vramMib();
        Measurement measured = !r.peakMib().isEmpty() ? Measurement.MEASURED
                : r.gpus().isEmpty() || status == JobStatus.INFEASIBLE ? Measurement.NOT_RUN : Measurement.NONE_SEEN;
        // Judged in its own run; the declaration may have been edited since, so it is not judged again.
        return new JobResult(j.key(), no, j.command(), r.gpus(), status, r.returncode().orElse(0), declared,
                r.peakMib(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO, measured, Optional.empty(),
                Optional.of(owner));
    }

    /** Notes the line of a job as it ends in this run. */
    void ended(JobSpec spec) {
        endedSpecs.put(spec.key(), spec);
    }

    /**
     * @return whether an ended job's line now asks for something else than when it ended (attributes or
     *     {@code cancel}; the command, and so the identity, is the same); true once per such edit
     */
    public boolean edited(JobSpec j) {
        JobSpec before = endedSpecs.putIfAbsent(j.key(), j);
        if (before == null || sameRequest(before, j)) {
            return false;
        }
        endedSpecs.put(j.key(), j);
        return true;
    }

    /** Forgets ended jobs that left the queue for good (ended submissions). */
    public void forget(Set<String> keys) {
        endedSpecs.keySet().removeAll(keys);
    }

    /** Forgets the earlier outcomes of lines no longer in the queue: a deleted line leaves the summary too. */
    public void retainQueue(List<JobSpec> jobs) {
        if (earlier.isEmpty()) {
            return;
        }
        Set<String> keys = new HashSet<>();
        jobs.forEach(j -> keys.add(j.key()));
        if (earlier.keySet().retainAll(keys)) {
            changes++;
        }
    }

    /** @return the earlier outcomes of the jobs still in the queue, by display number */
    public List<JobResult> earlierResults() {
        return earlier.values().stream().sorted(Comparator.comparingInt(JobResult::no)).toList();
    }

    /** @return how many jobs of the queue ended in an earlier run */
    public int earlierCount() {
        return earlier.size();
    }

    /** @return a count that moves whenever {@link #earlierResults()} changes */
    public long changes() {
        return changes;
    }

    public static JobStatus status(JobRecord r) {
        return r.state().outcome().orElse(JobStatus.FAILED);
    }

    private static boolean sameRequest(JobSpec a, JobSpec b) {
        return a.vramMib().equals(b.vramMib()) && a.gpus() == b.gpus() && a.share().equals(b.share()) && a.timeout().equals(b.timeout())
                && a.retries() == b.retries() && a.cancel() == b.cancel();
    }
}

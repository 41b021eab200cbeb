package io.gpusched.engine;

import io.gpusched.JobResult;
import io.gpusched.JobStatus;
import io.gpusched.SchedulerEvent;
import io.gpusched.SchedulerEvent.StopReason;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The queue: which of the source's jobs wait, in source order, with what their next attempt asks for.
 * The original's one definition — a job is pending when it is neither running nor ended in the
 * journal — with what follows from it: display numbers for new jobs, {@code cancel} words applied,
 * orphans of a dead scheduler waited for or settled, earlier outcomes said once (or retried).
 */
final class PendingQueue {
    private final Durability durability;
    private final JobsSource source;
    private final RunningJobs running;
    private final Stops stops;
    private final Outcomes outcomes;
    private final EndedJobs ended;
    private final ProcFs procFs;
    private final Reporter reporter;
    private final Set<String> orphansWarned = new HashSet<>();
    private List<PendingJob> pending = List.of();
    private Map<String, String> waitReasons = Map.of();
    private List<Integer> liveOrphans = List.of();

    /** A pending job with what its next attempt asks for. */
    record PendingJob(JobSpec spec, int no, OptionalLong declaredMib, int attempts) {
    }

    PendingQueue(Durability durability, JobsSource source, RunningJobs running, Stops stops, Outcomes outcomes,
                 EndedJobs ended, ProcFs procFs, Reporter reporter) {
        this.durability = durability;
        this.source = source;
        this.running = running;
        this.stops = stops;
        this.outcomes = outcomes;
        this.ended = ended;
        this.procFs = procFs;
        this.reporter = reporter;
    }

    /** @return the pending jobs as last computed or left by dispatch; the same list while unchanged */
    List<PendingJob> pending() {
        return pending;
    }

    /** @return why each pending job waits, by key; the same map while unchanged */
    Map<String, String> waitReasons() {
        return waitReasons;
    }

    /** @return how many live orphans of a dead scheduler the last computation waited for */
    int liveOrphans() {
        return liveOrphans.size();
    }

    /** @return their display numbers */
    List<Integer> orphans() {
        return liveOrphans;
    }

    void set(List<PendingJob> stillPending, Map<String, String> reasons) {
        pending = stillPending;
        waitReasons = reasons;
    }

    int no(String key) {
        return durability.state().record(key).no().orElse(0);
    }

    /** Gives each job seen for the first time its display number, and forgets deleted lines' earlier outcomes. */
    void ensureSeen(List<JobSpec> jobs) {
        List<JournalEvent> seen = new ArrayList<>();
        int next = durability.state().nextNo();
        Set<String> batch = new HashSet<>();
        for (JobSpec j : jobs) {
            if (durability.state().record(j.key()).no().isEmpty() && batch.add(j.key())) {
                seen.add(new JournalEvent.Seen(j.key(), next++, j.command()));
            }
        }
        durability.record(seen);
        ended.retainQueue(jobs);
    }

    /** A {@code cancel} word stops a running job, and ends one that has not started. */
    void applyCancellations(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            if (!j.cancel()) {
                continue;
            }
            Optional<RunningJob> rj = running.get(j.key());
            if (rj.isPresent()) {
                if (rj.get().stopping.isEmpty()) {
                    stops.stop(rj.get(), StopReason.CANCELLED);
                }
                continue;
            }
            JobRecord r = durability.state().record(j.key());
            if (!r.terminal() && r.runningPgid().isEmpty()) {
                outcomes.cancelledBeforeStart(j, no(j.key()));
            }
        }
    }

    /** Recomputes the pending list from the source's jobs and the journal. */
    void compute(List<JobSpec> jobs) {
        List<PendingJob> out = new ArrayList<>();
        Set<String> endedSubmissions = new HashSet<>();
        List<Integer> orphans = new ArrayList<>();
        for (JobSpec j : jobs) {
            if (running.contains(j.key())) {
                continue;
            }
            JobRecord r = durability.state().record(j.key());
            if (r.runningPgid().isPresent()) {
                long pgid = r.runningPgid().getAsLong();
                if (procFs.sessionAlive(pgid) || ProcessHandle.of(pgid).map(ProcessHandle::isAlive).orElse(false)) {
                    orphans.add(no(j.key()));
                    if (orphansWarned.add(j.key())) {
                        reporter.emit(new SchedulerEvent.OrphanFound(reporter.now(), no(j.key()), pgid));
                    }
                    continue;
                }
                orphansWarned.remove(j.key());
                outcomes.orphanEnded(j, r);
                r = durability.state().record(j.key());
            }
            if (ended.retryNow(j, r)) {
                reporter.emit(new SchedulerEvent.AlreadyEnded(reporter.now(), no(j.key()), j.key(), j.command(),
                        EndedJobs.status(r), r.returncode().orElse(0), true));
                durability.record(List.of(new JournalEvent.Retry(j.key())));
                r = durability.state().record(j.key());
            }
            if (r.terminal() && Submissions.isSubmission(j.key())) {
                endedSubmissions.add(j.key());
                continue;
            }
            if (r.terminal()) {
                ended.firstSightOfEarlier(j, r, no(j.key())).ifPresent(this::endedEarlier);
                if (ended.edited(j)) {
                    reporter.emit(new SchedulerEvent.EndedJobEdited(reporter.now(), no(j.key()), j.command(),
                            EndedJobs.status(r)));
                }
                continue;
            }
            if (j.cancel()) {
                continue;
            }
            OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : j.vramMib();
            out.add(new PendingJob(j, no(j.key()), declared, r.attempts()));
        }
        liveOrphans = List.copyOf(orphans);
        pending = out;
        source.retire(endedSubmissions);
        ended.forget(endedSubmissions);
    }

    /**
     * Says that a job of the queue ended in an earlier run and is not run again, and answers a
     * submission of it with that outcome.
     */
    private void endedEarlier(JobResult earlier) {
        reporter.emit(new SchedulerEvent.AlreadyEnded(reporter.now(), earlier.no(), earlier.key(), earlier.command(),
                earlier.status(), earlier.exitCode(), false));
        if (earlier.status() == JobStatus.OK) {
            reporter.emit(new SchedulerEvent.AlreadyCompleted(reporter.now(), earlier.no(), earlier.command()));
        }
        outcomes.answerEarlier(earlier);
    }
}

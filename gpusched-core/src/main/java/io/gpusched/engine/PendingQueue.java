package io.gpusched.engine;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.RunHandle;
import io.gpusched.model.JobId;
import io.gpusched.journal.LearnedVram;
import io.gpusched.journal.JournalEvent;
import io.gpusched.policy.Dependencies;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
    private final ProcTable procFs;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Set<String> orphansWarned = new HashSet<>();
    private final Dependencies dependencies = new Dependencies();
    private final JobTable table;
    private List<PendingJob> pending = List.of();
    private List<PendingJob> held = List.of();
    private Map<String, String> heldReasons = Map.of();
    private Map<String, String> waitReasons = Map.of();
    private List<Integer> liveOrphans = List.of();

    /**
     * A pending job with what its next attempt asks for, and where it stands in the queue.
     *
     * @param position its place among equal effective priorities: source order, then requeued time slices
     * @param since since when it waits
     * @param owner who it runs for
     * @param learned where its declaration was learned, when it was ({@code vram=auto} with a history)
     */
    record PendingJob(JobSpec spec, int no, OptionalLong declaredMib, int attempts, long position, Instant since,
                      String owner, Optional<LearnedVram> learned) {
    }

    private final double spikeBuffer;

    private final Orphans adoption;

    PendingQueue(Durability durability, JobsSource source, RunningJobs running, Stops stops, Outcomes outcomes,
                 EndedJobs ended, ProcTable procFs, Reporter reporter, LoopClock clock, JobTable table, Orphans orphans,
                 double spikeBuffer) {
        this.adoption = orphans;
        this.spikeBuffer = spikeBuffer;
        this.table = table;
        this.durability = durability;
        this.source = source;
        this.running = running;
        this.stops = stops;
        this.outcomes = outcomes;
        this.ended = ended;
        this.procFs = procFs;
        this.reporter = reporter;
        this.clock = clock;
    }

    /**
     * @return the pending jobs that may be placed, as last computed or left by dispatch; the same list
     *     while unchanged
     */
    List<PendingJob> pending() {
        return pending;
    }

    /** @return the pending jobs held back by their dependencies, with why */
    List<PendingJob> held() {
        return held;
    }

    /** @return why each held job waits, by key */
    Map<String, String> heldReasons() {
        return heldReasons;
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

    /**
     * Takes up again the runs of these jobs that a dead scheduler left going ({@link Orphans}), before the
     * round's GPU views are made, so they hold their GPUs in the first plan already.
     */
    void adoptOrphans(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            if (running.contains(j.key())) {
                continue;
            }
            JobRecord r = durability.state().record(j.key());
            if (r.runningPgid().isPresent() && !r.terminal() && adoption.adopt(j, r, no(j.key()))) {
                orphansWarned.add(j.key());
            }
        }
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
        learnNames(jobs);
        List<PendingJob> out = new ArrayList<>();
        List<PendingJob> waiting = new ArrayList<>();
        Map<String, String> waitingReasons = new HashMap<>();
        Instant now = clock.now();
        long position = -1;
        Set<String> endedSubmissions = new HashSet<>();
        List<Integer> orphans = new ArrayList<>();
        for (JobSpec j : jobs) {
            position++;
            if (running.contains(j.key())) {
                continue;
            }
            JobRecord r = durability.state().record(j.key());
            if (r.handle().isPresent()) {
                long pgid = r.runningPgid().getAsLong();
                // A lease's or an unknown session has nothing here to wait for.
                boolean alive = r.handle().get() instanceof RunHandle.Session
                        && (procFs.sessionAlive(pgid) || procFs.onExit(pgid).isPresent());
                if (alive) {
                    orphans.add(no(j.key()));
                    if (orphansWarned.add(j.key())) {
                        reporter.emit(new SchedulerEvent.OrphanFound(clock.now(), no(j.key()), pgid));
                    }
                    continue;
                }
                orphansWarned.remove(j.key());
                outcomes.orphanEnded(j, r);
                r = durability.state().record(j.key());
            }
            if (ended.retryNow(j, r)) {
                reporter.emit(new SchedulerEvent.AlreadyEnded(clock.now(), no(j.key()), j.key(), j.command(),
                        EndedJobs.status(r), r.returncode().orElse(0), true));
                durability.record(List.of(new JournalEvent.Retry(j.key())));
                r = durability.state().record(j.key());
            }
            if (r.terminal()) {
                table.forget(j.key());
            }
            if (r.terminal() && JobId.of(j.key()) instanceof JobId.Submission) {
                endedSubmissions.add(j.key());
                continue;
            }
            if (r.terminal()) {
                ended.firstSightOfEarlier(j, r, no(j.key()), ownerOf(j.key())).ifPresent(this::endedEarlier);
                if (ended.edited(j)) {
                    reporter.emit(new SchedulerEvent.EndedJobEdited(clock.now(), no(j.key()), j.command(),
                            EndedJobs.status(r)));
                }
                continue;
            }
            if (j.cancel()) {
                continue;
            }
            // An OOM's bump first (this job's own lesson), then what earlier runs taught, then the line or its rule.
            Optional<LearnedVram> learned = r.nextVramMib().isEmpty() && j.learnVram()
                    ? LearnedVram.learn(j.command(), source.ruleOf(j.key()), durability.state().peaks(), spikeBuffer)
                    : Optional.empty();
            OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib()
                    : learned.isPresent() ? OptionalLong.of(learned.get().mib()) : j.vramMib();
            Instant waitingSince = table.since(j.key(), k -> durability.state().submission(k)
                    .map(s -> Instant.ofEpochMilli(s.submittedAtMillis())).orElse(now));
            PendingJob p = new PendingJob(j, no(j.key()), declared, r.attempts(), table.position(j.key(), position),
                    waitingSince, table.owner(j.key()), learned);
            Dependencies.Verdict v = dependencies.check(j.scheduling().after(), this::known);
            if (v instanceof Dependencies.Failed f) {
                outcomes.fail(p, JobStatus.DEPENDENCY_FAILED, f.reason());
                table.forget(j.key());
            } else if (v instanceof Dependencies.Waiting w) {
                waiting.add(p);
                waitingReasons.put(j.key(), w.reason());
            } else {
                out.add(p);
            }
        }
        liveOrphans = List.copyOf(orphans);
        pending = out;
        held = waiting;
        heldReasons = waitingReasons;
        source.retire(endedSubmissions);
        ended.forget(endedSubmissions);
    }

    /** @return who the job of this key runs for */
    /**
     * @param p a pending job
     * @return the requirement rule its next declaration comes from; empty when the line (or, after an
     *     OOM, the bump) decided it
     */
    java.util.Optional<String> ruleOf(PendingJob p) {
        return p.learned().isEmpty() && p.spec().vramMib().equals(p.declaredMib()) ? source.ruleOf(p.spec().key())
                : java.util.Optional.empty();
    }

    String ownerOf(String key) {
        return table.owner(key);
    }

    /** Learns the names of these jobs (a submission's as soon as it is accepted, so the next may name it). */
    void learnNames(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            j.scheduling().name().ifPresent(n -> dependencies.learn(n, j.key()));
        }
    }

    /** @return the names a job waits for that no job of the queue has */
    List<String> unknownDependencies(JobSpec job) {
        return job.scheduling().after().stream().map(d -> d.name()).filter(n -> dependencies.keyOf(n).isEmpty()).toList();
    }

    private Dependencies.Known known(String key) {
        JobRecord r = durability.state().record(key);
        return new Dependencies.Known(r.no().orElse(0), r.terminal() ? Optional.of(r.status()) : Optional.empty());
    }

    /**
     * Says that a job of the queue ended in an earlier run and is not run again, and answers a
     * submission of it with that outcome.
     */
    private void endedEarlier(JobResult earlier) {
        reporter.emit(new SchedulerEvent.AlreadyEnded(clock.now(), earlier.no(), earlier.key(), earlier.command(),
                earlier.status(), earlier.exitCode(), false));
        if (earlier.status() == JobStatus.OK) {
            reporter.emit(new SchedulerEvent.AlreadyCompleted(clock.now(), earlier.no(), earlier.command()));
        }
        outcomes.answerEarlier(earlier);
    }
}

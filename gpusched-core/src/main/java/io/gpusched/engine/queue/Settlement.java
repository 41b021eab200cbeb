package io.gpusched.engine.queue;

import io.gpusched.engine.ending.Orphans;
import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.table.JobTable;
import io.gpusched.engine.table.JobsSource;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JournalEvent;
import io.gpusched.model.JobId;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.policy.Dependencies;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What must be settled before the queue is read, the step a plan runs first: the runs a dead scheduler
 * left (taken up while their leader lives, waited for while their session does, settled from their
 * exit file or run again once it is gone), earlier outcomes said once or retried
 * ({@code --retry-failed}), jobs whose dependency failed failed, and ended submissions retired from the
 * queue. Every journal line and event of that step is written here, so {@link PendingQueue#compute}
 * only reads. Loop thread only.
 */
public final class Settlement {
    private final Durability durability;
    private final JobsSource source;
    private final Outcomes outcomes;
    private final Reporter reporter;
    private final LoopClock clock;
    private final JobTable table;
    private final Orphans adoption;
    private final PendingQueue queue;
    private final Set<String> orphansWarned = new HashSet<>();
    private List<Integer> liveOrphans = List.of();
    /** Why each job that waits for another waits, as the last settlement found it, by key. */
    private Map<String, String> waitingFor = Map.of();
    /** How many ended submissions of the jobs it was given the last settlement took out of the queue. */
    private int retired;

    public Settlement(Durability durability, JobsSource source, Outcomes outcomes,
               Reporter reporter, LoopClock clock, JobTable table, Orphans orphans, PendingQueue queue) {
        this.durability = durability;
        this.source = source;
        this.outcomes = outcomes;
        this.reporter = reporter;
        this.clock = clock;
        this.table = table;
        this.adoption = orphans;
        this.queue = queue;
    }

    /** @return the display numbers of the live orphans of a dead scheduler the last settlement waited for */
    public List<Integer> liveOrphans() {
        return liveOrphans;
    }

    /**
     * @return why each job held back by the jobs it runs after waits, by key, as the last settlement
     *     found it (a job whose dependency failed is not here: it failed)
     */
    public Map<String, String> waitingFor() {
        return waitingFor;
    }

    /**
     * @return how many of the jobs the last {@link #settle} was given were ended submissions it took out
     *     of the queue: that list's size less this is the queue's jobs now
     */
    public int retired() {
        return retired;
    }

    /**
     * Takes up again the runs of these jobs that a dead scheduler left going ({@link Orphans}), before the
     * round's GPU views are made, so they hold their GPUs in the first plan already.
     */
    public void adoptOrphans(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            if (table.isRunning(j.key())) {
                continue;
            }
            JobTable.Job r = table.job(j.key());
            if (r.session().isPresent() && !r.terminal() && adoption.adopt(j, r, r.no())) {
                orphansWarned.add(j.key());
            }
        }
    }

    /** How a held job's next try is said: the time of day, as the log's lines say theirs. */
    private static final java.time.format.DateTimeFormatter HOLD_TIME = java.time.format.DateTimeFormatter
            .ofPattern("HH:mm:ss").withZone(java.time.ZoneId.systemDefault());

    /**
     * Releases the jobs held back after a refusal for their owner's process limit whose wait has passed.
     *
     * @return whether one was: the queue is to be planned again, though nothing else changed
     */
    public boolean releaseHolds() {
        return table.releaseHolds(clock.steady());
    }

    /** The source's version whose jobs' names {@link #settle} learned last; -1 before the first. */
    private long namesLearned = -1;

    /**
     * Settles these jobs, in queue order, as the class says.
     *
     * @param jobs the source's jobs
     * @param version the source's version of them
     */
    public void settle(List<JobSpec> jobs, long version) {
        // Learning the same jobs again, with no name learned since, changes nothing: every other learn
        // (a submission taken) comes with a new version of the queue. Learned each round, they cost a
        // map update per named job per round.
        if (version != namesLearned) {
            queue.learnNames(jobs);
            namesLearned = version;
        }
        Set<String> endedSubmissions = new HashSet<>();
        List<Integer> orphans = new ArrayList<>();
        Map<String, String> waiting = new HashMap<>();
        // One time for the round's holds, not a clock read per waiting job.
        java.time.Instant steadyNow = clock.steady();
        for (JobSpec j : jobs) {
            if (table.isRunning(j.key())) {
                continue;
            }
            JobTable.Job r = table.job(j.key());
            int no = r.no();
            if (r.startedAs().isPresent()) {
                long pgid = r.session().getAsLong();
                if (adoption.sessionAlive(r)) {
                    orphans.add(no);
                    if (orphansWarned.add(j.key())) {
                        reporter.emit(new SchedulerEvent.OrphanFound(clock.now(), no, pgid));
                        if (durability.state().stopping(j.key()).isPresent()) {
                            // Its scheduler was stopping it when it died: what is provably the run's is asked again.
                            adoption.stopUnadopted(r);
                        }
                    }
                    continue;
                }
                orphansWarned.remove(j.key());
                outcomes.orphanEnded(j, r);
                r = table.job(j.key());
            }
            if (table.retryNow(j, r)) {
                reporter.emit(new SchedulerEvent.AlreadyEnded(clock.now(), no, j.key(), j.command(),
                        r.status(), r.returncode().orElse(0), true));
                durability.record(List.of(new JournalEvent.Retry(j.key())));
                r = table.job(j.key());
            }
            if (r.terminal()) {
                table.forget(j.key());
            }
            if (r.terminal() && JobId.of(j.key()) instanceof JobId.Submission) {
                endedSubmissions.add(j.key());
                continue;
            }
            if (r.terminal()) {
                table.firstSightOfEarlier(j, r, no, r.owner()).ifPresent(this::endedEarlier);
                if (table.edited(j)) {
                    reporter.emit(new SchedulerEvent.EndedJobEdited(clock.now(), no, j.command(), r.status()));
                }
                continue;
            }
            java.util.Optional<java.time.Instant> held = table.heldUntil(j.key(), steadyNow);
            if (held.isPresent() && !j.cancel()) {
                // Its owner was at her process limit at its last try (ProcessLimitRetry): it waits its back-off.
                waiting.put(j.key(), "its owner was at her process limit (RLIMIT_NPROC) when it was to start; tried"
                        + " again at " + HOLD_TIME.format(clock.wallOf(held.get())));
                continue;
            }
            if (j.cancel() || j.scheduling().after().isEmpty()) {
                continue;
            }
            Dependencies.Verdict v = queue.dependencies(j);
            if (v instanceof Dependencies.Failed f) {
                outcomes.fail(j, no, queue.declared(j, r), JobStatus.DEPENDENCY_FAILED, f.reason());
                table.forget(j.key());
            } else if (v instanceof Dependencies.Waiting w) {
                waiting.put(j.key(), w.reason());
            }
        }
        liveOrphans = List.copyOf(orphans);
        waitingFor = waiting;
        retired = endedSubmissions.size();
        source.retire(endedSubmissions);
        table.retire(endedSubmissions);
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

package io.gpusched.engine.table;

import io.gpusched.engine.proc.ProcTable;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.journal.RunHandle;
import io.gpusched.model.JobId;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobState;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
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
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The jobs the loop knows, one {@link Job} row each, found by key or by display number: the one place
 * the parts read a job from. A row joins what the journal's fold says (number, state, attempts, the run
 * in flight, the owner a submission names), the queue's spec of it, and what only the loop knows of it,
 * kept here and nowhere else: its run under this scheduler ({@link #started}, {@link #run}), where it
 * waits ({@link #since}, {@link #position}), and, for a job that ended, whether it ended before this run
 * and what its line said when it ended ({@link #retryNow}, {@link #firstSightOfEarlier}, {@link #edited}).
 *
 * <p>The journal stays the record: the table reads its fold, so a row can never disagree with what is
 * durable, and compaction (which folds anew) needs no rebuild. Loop thread only; writers check it
 * (under -ea, as in tests).
 */
public final class JobTable {
    private final Supplier<JournalState> journal;
    private final JobsSource source;
    private final ProcTable procs;
    private final boolean retryFailed;
    /** The loop's thread: the only one that may write the table. */
    private Thread loop = Thread.currentThread();
    /** What the loop knows of each job beyond the journal's fold, by key; a job it knows nothing of has none. */
    private final Map<String, Facts> facts = new HashMap<>();
    /** The runs here, by key, in the order they started: an index of the rows' runs. */
    private final Map<String, RunningJob> runs = new LinkedHashMap<>();
    /** The same runs by session id (each run leads its own session). */
    private final Map<Long, RunningJob> bySession = new HashMap<>();
    /** Earlier outcomes of jobs still in the queue, by key, in the order they were first seen. */
    private final Map<String, JobResult> earlier = new LinkedHashMap<>();
    private long backs;
    private long earlierChanges;
    private long ownSession;

    /** A job's facts only the loop knows; each field is its own concern, absent as null or false. */
    private static final class Facts {
        /** Since when it waits, fixed the first time asked. */
        Instant since;
        /** Its place behind every job once its time slice ended; 0 when it has its source's place. */
        long back;
        /** It had ended when this run started, and was neither reported nor retried yet. */
        boolean endedBefore;
        /** Its line as it was when it ended (or was first seen ended). */
        JobSpec endedSpec;
    }

    /**
     * One job, as every part reads it.
     *
     * @param id its typed identity
     * @param no its display number; 0 before the journal gave it one
     * @param state where it stands in the journal
     * @param owner who it runs for: its submitter, or the scheduler's user for a jobs-file line
     * @param spec the queue's spec of it; empty when the queue no longer holds it (a deleted line, a
     *     retired submission)
     * @param attempts attempts that ended
     * @param handle what its attempt in flight runs as, per the journal; empty when none
     * @param run its run under this scheduler, while it runs here
     */
    public record Job(JobId id, int no, JobState state, String owner, Optional<JobSpec> spec, int attempts,
               Optional<RunHandle> handle, Optional<RunningJob> run) {
        /** @return the name other jobs wait for it by ({@code name=}), when it has one */
        Optional<String> name() {
            return spec.flatMap(s -> s.scheduling().name());
        }
    }

    /**
     * An empty table; {@link #open} fills in what the journal held when the run starts.
     *
     * @param journal the journal's fold as it is now (compaction replaces it); read only once the run is open
     * @param source the queue's jobs
     * @param procs the process table, for the scheduler's own session
     * @param retryFailed whether failures of earlier runs run again ({@code --retry-failed})
     */
    public JobTable(Supplier<JournalState> journal, JobsSource source, ProcTable procs, boolean retryFailed) {
        this.journal = journal;
        this.source = source;
        this.procs = procs;
        this.retryFailed = retryFailed;
    }

    /**
     * The run starts, on the calling thread, which owns the table from now on: the jobs the journal holds
     * as ended ended before it.
     *
     * @param records the journal's records as the run starts
     */
    public void open(Map<String, JobRecord> records) {
        loop = Thread.currentThread();
        records.forEach((k, r) -> {
            if (r.terminal()) {
                facts(k).endedBefore = true;
            }
        });
    }

    /**
     * @param key a job's key
     * @return its row (one of a job the journal never saw has number 0 and state pending)
     */
    Job job(String key) {
        JournalState state = journal.get();
        JobRecord r = state.record(key);
        Optional<RunningJob> run = run(key);
        // An attempt handed to Slurm is its Slurm job, never the session number its started line holds.
        Optional<RunHandle> handle = run.flatMap(j -> j.elsewhere).<RunHandle>map(e -> new RunHandle.Slurm(e.id())).or(() -> r.handle()
                .map(h -> state.slurmJob(key).isPresent() ? new RunHandle.Slurm(state.slurmJob(key).getAsLong()) : h));
        return new Job(JobId.of(key), r.no().orElse(0), r.state(), owner(key), source.spec(key), r.attempts(),
                handle, run);
    }

    /**
     * @param no a display number
     * @return the row of the job the journal gave that number; empty for a number it never gave
     */
    public Optional<Job> byNo(int no) {
        return journal.get().keyOf(no).map(this::job);
    }

    /**
     * @param key a job's key
     * @return who the job runs for: its submitter, or this process's user for a jobs-file line
     */
    public String owner(String key) {
        return journal.get().submission(key).map(JournalEvent.Submitted::owner).orElseGet(() -> System.getProperty("user.name", "?"));
    }

    // ---------------------------------------------------------------- runs here

    /** A run of a job started here (or was taken up again): it is the job's run until {@link #runEnded}. */
    public void started(RunningJob rj) {
        assertInLoop();
        runs.put(rj.key(), rj);
        bySession.put(rj.pid, rj);
    }

    /**
     * A run's leader exited, or the run was left behind.
     *
     * @return whether {@code rj} was the current run of its job (a late exit of an old one is not)
     */
    public boolean runEnded(RunningJob rj) {
        assertInLoop();
        if (runs.get(rj.key()) != rj) {
            return false;
        }
        runs.remove(rj.key());
        bySession.remove(rj.pid);
        return true;
    }

    /** @return the job's run here, while it runs */
    public Optional<RunningJob> run(String key) {
        return Optional.ofNullable(runs.get(key));
    }

    /** @return whether the job runs here now */
    public boolean isRunning(String key) {
        return runs.containsKey(key);
    }

    /** @return the run whose session this is, if any */
    public Optional<RunningJob> runInSession(long sid) {
        return Optional.ofNullable(bySession.get(sid));
    }

    /** @return the runs here, in the order they started (a live view: copy it to change the table meanwhile) */
    public Collection<RunningJob> runs() {
        return runs.values();
    }

    /** @return whether nothing runs here */
    public boolean noneRunning() {
        return runs.isEmpty();
    }

    /** @return how many jobs run here */
    public int runningCount() {
        return runs.size();
    }

    /**
     * Sessions no run's escaped process can be in: the runs' (each led by its own wrapper) and the
     * scheduler's own. Leaving these out spares reading most environments in a sweep.
     */
    public Set<Long> otherSessions() {
        Set<Long> other = new HashSet<>(bySession.keySet());
        if (ownSession == 0) {
            ownSession = procs.ownSession().orElse(-1);
        }
        other.add(ownSession);
        return other;
    }

    // ---------------------------------------------------------------- waiting

    /**
     * @param key a waiting job's key
     * @param firstSeen since when it waits, asked the first time only
     * @return since when it waits, fixed the first time it is asked for
     */
    public Instant since(String key, Function<String, Instant> firstSeen) {
        assertInLoop();
        Facts f = facts(key);
        if (f.since == null) {
            f.since = firstSeen.apply(key);
        }
        return f.since;
    }

    /** @return a waiting job's position: the source's, or its place at the back once its time slice ended */
    public long position(String key, long sourcePosition) {
        if (backs == 0) {
            return sourcePosition; // no slice ever ended: spares a lookup per pending job per round
        }
        Facts f = facts.get(key);
        return f == null || f.back == 0 ? sourcePosition : f.back;
    }

    /** Its time slice ended: behind every job, waiting from {@code now}. */
    public void toTheBack(String key, Instant now) {
        assertInLoop();
        Facts f = facts(key);
        f.back = Long.MAX_VALUE / 2 + backs++;
        f.since = now;
    }

    /** It ended for good: it waits nowhere any more. */
    public void forget(String key) {
        assertInLoop();
        Facts f = facts.get(key);
        if (f != null) {
            f.since = null;
            f.back = 0;
        }
    }

    // ---------------------------------------------------------------- ended

    /**
     * @return whether this job, ended before the run, runs again now: with {@code --retry-failed},
     *     any failure; never an ok or cancelled job, nor a line marked {@code cancel}. Answers true
     *     once per job.
     */
    public boolean retryNow(JobSpec j, JobRecord r) {
        if (!r.terminal() || j.cancel() || !retryFailed || !status(r).isFailure()) {
            return false;
        }
        return takeEndedBefore(j.key());
    }

    /**
     * The first time in this run a job found ended had ended before the run: its earlier outcome, kept
     * for the summary and board. Empty for a job that ended in this run or was already reported.
     */
    public Optional<JobResult> firstSightOfEarlier(JobSpec j, JobRecord r, int no, String owner) {
        assertInLoop();
        Facts f = facts(j.key());
        if (f.endedSpec == null) {
            f.endedSpec = j;
        }
        if (!takeEndedBefore(j.key())) {
            return Optional.empty();
        }
        JobResult result = earlierResult(j, r, no, owner);
        earlier.put(j.key(), result);
        earlierChanges++;
        return Optional.of(result);
    }

    private boolean takeEndedBefore(String key) {
        assertInLoop();
        Facts f = facts.get(key);
        if (f == null || !f.endedBefore) {
            return false;
        }
        f.endedBefore = false;
        return true;
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

    /** @return an ended job's status; a terminal record without one reads as failed */
    public static JobStatus status(JobRecord r) {
        return r.state().outcome().orElse(JobStatus.FAILED);
    }

    /** Notes the line of a job as it ends in this run. */
    public void ended(JobSpec spec) {
        assertInLoop();
        facts(spec.key()).endedSpec = spec;
    }

    /**
     * @return whether an ended job's line now asks for something else than when it ended (attributes or
     *     {@code cancel}; the command, and so the identity, is the same); true once per such edit
     */
    public boolean edited(JobSpec j) {
        assertInLoop();
        Facts f = facts(j.key());
        JobSpec before = f.endedSpec;
        if (before == null) {
            f.endedSpec = j;
            return false;
        }
        if (sameRequest(before, j)) {
            return false;
        }
        f.endedSpec = j;
        return true;
    }

    /** Forgets jobs that left the queue for good (ended submissions): their rows go. */
    public void retire(Set<String> keys) {
        assertInLoop();
        facts.keySet().removeAll(keys);
    }

    /** Forgets the earlier outcomes of lines no longer in the queue: a deleted line leaves the summary too. */
    public void retainQueue(List<JobSpec> jobs) {
        assertInLoop();
        if (earlier.isEmpty()) {
            return;
        }
        Set<String> keys = new HashSet<>();
        jobs.forEach(j -> keys.add(j.key()));
        if (earlier.keySet().retainAll(keys)) {
            earlierChanges++;
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
    public long earlierChanges() {
        return earlierChanges;
    }

    private static boolean sameRequest(JobSpec a, JobSpec b) {
        return a.vramMib().equals(b.vramMib()) && a.gpus() == b.gpus() && a.share().equals(b.share()) && a.timeout().equals(b.timeout())
                && a.retries() == b.retries() && a.cancel() == b.cancel();
    }

    private Facts facts(String key) {
        return facts.computeIfAbsent(key, k -> new Facts());
    }

    private void assertInLoop() {
        assert Thread.currentThread() == loop : "job table written from " + Thread.currentThread().getName();
    }
}

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
import java.util.function.Supplier;

/**
 * The jobs the loop knows, one {@link Job} row each, found by key ({@link #job}) or by display number
 * ({@link #byNo}): the one place the parts read a job from. A row joins what the journal's fold says
 * (number, state, attempts, the declaration an OOM taught, the run in flight and what it runs as, the
 * submission and the owner it names), the queue's spec of it, and what only the loop knows of it,
 * kept here and nowhere else: its run under this scheduler ({@link #started}, {@link #run}), where it
 * waits ({@link #since}, {@link #position}), and, for a job that ended, whether it ended before this run
 * and what its line said when it ended ({@link #retryNow}, {@link #firstSightOfEarlier}, {@link #edited}).
 *
 * <p>The journal stays the record: the table reads its fold, whose {@link JournalState#apply} is the one
 * place a journaled event changes a job, so a row can never disagree with what is durable, and
 * compaction (which folds anew) needs no rebuild. No other part of the engine reads the fold's records;
 * the table walks them all only at start-up ({@link #open}, {@link #launchingAtStart}). Loop thread only;
 * writers check it (under -ea, as in tests).
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
    /** Runs that ended and wait for their outcome, by job key ({@link #settling}). */
    private final Map<String, RunningJob> settling = new LinkedHashMap<>();
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
        /** How many runs of it gpusched-runas refused for its owner's process limit, in this run. */
        int processLimitRefusals;
        /** Until when it is held back after such a refusal, on the steady time line; null when it is not. */
        Instant heldUntil;
    }

    /**
     * One job, as every part reads it: a row of the table, as of the moment it was looked up.
     *
     * <p>What the journal says of the job (number, state, attempts, the learned declaration, the run in
     * flight) is the fold's record of it, held, not copied field by field: the journal's fold is the one
     * place a journaled event changes a job ({@link JournalState#apply}), so a row never disagrees with
     * what is durable and compaction, which folds anew, needs no rebuild. A row is not updated after it
     * was looked up: look the job up again after writing the journal. The queue's spec, the owner and the
     * run here are read when asked for, as few callers need them.
     */
    public static final class Job {
        private final JobTable table;
        private final String key;
        private final JobRecord journal;

        private Job(JobTable table, String key, JobRecord journal) {
            this.table = table;
            this.key = key;
            this.journal = journal;
        }

        /** @return its typed identity */
        public JobId id() {
            return JobId.of(key);
        }

        /** @return its key, as the journal and the queue name it */
        public String key() {
            return key;
        }

        /** @return its display number; 0 before the journal gave it one */
        public int no() {
            return journal.no().orElse(0);
        }

        /** @return whether the journal gave it a display number (it saw the job) */
        public boolean numbered() {
            return journal.no().isPresent();
        }

        /** @return where it stands in the journal (pending for a job the journal never saw) */
        public JobState state() {
            return journal.state();
        }

        /** @return whether it is done for good, per the journal */
        public boolean terminal() {
            return journal.terminal();
        }

        /** @return how it ended; a terminal job without an outcome reads as failed (only meaningful once terminal) */
        public JobStatus status() {
            return journal.state().outcome().orElse(JobStatus.FAILED);
        }

        /** @return attempts that ended (OOM retries and the final one); 0 again after a retry */
        public int attempts() {
            return journal.attempts();
        }

        /** @return the declaration an OOM bumped for its next attempt, in MiB; empty when none did */
        public OptionalLong nextVramMib() {
            return journal.nextVramMib();
        }

        /** @return the exit code of its terminal attempt; empty before it ended */
        public java.util.OptionalInt returncode() {
            return journal.returncode();
        }

        /** @return the per-GPU peaks of its terminal attempt, MiB by GPU index; empty when none were measured */
        public Map<Integer, Long> peakMib() {
            return journal.peakMib();
        }

        /** @return the GPUs of its attempt in flight, or of its last one; empty when it never started */
        public List<Integer> gpus() {
            return journal.gpus();
        }

        /**
         * @return the run number of its attempt in flight ({@code launching} or {@code running}) when the
         *     journal names one (a journal of the original tool does not); its run files are found by it
         */
        public OptionalLong runNo() {
            return journal.run();
        }

        /** @return whether a {@code launching} intent has no {@code started} after it in the journal */
        public boolean launching() {
            return journal.launching();
        }

        /**
         * @return the session id its {@code started} line names (a lease's or an unknown session encoded,
         *     see {@link RunHandle#ofPgid}); empty when no attempt started and has no outcome yet
         */
        public OptionalLong session() {
            return journal.runningPgid();
        }

        /**
         * @return what its {@code started} line says the attempt in flight runs as ({@link #session()}
         *     decoded); empty when none started and has no outcome yet. Unlike {@link #handle()}, a
         *     session number even where the attempt was handed to Slurm
         */
        public Optional<RunHandle> startedAs() {
            return journal.handle();
        }

        /**
         * @return what its attempt in flight runs as: its Slurm job when handed to Slurm, else what its
         *     {@code started} line says; empty when none
         */
        public Optional<RunHandle> handle() {
            Optional<RunningJob> run = run();
            if (run.isPresent() && run.get().elsewhere.isPresent()) {
                return Optional.of(new RunHandle.Slurm(run.get().elsewhere.get().id()));
            }
            // An attempt handed to Slurm is its Slurm job, never the session number its started line holds.
            OptionalLong slurm = slurmJob();
            return journal.handle().map(h -> slurm.isPresent() ? new RunHandle.Slurm(slurm.getAsLong()) : h);
        }

        /**
         * @return the Slurm job its attempt in flight was handed to, when a {@code slurm_submitted} line
         *     names one and no outcome followed it
         */
        public OptionalLong slurmJob() {
            return table.journal.get().slurmJob(key);
        }

        /** @return its journaled submission, for a job submitted through the API; empty for a jobs-file line */
        public Optional<JournalEvent.Submitted> submission() {
            return table.journal.get().submission(key);
        }

        /** @return who it runs for: its submitter, or the scheduler's user for a jobs-file line */
        public String owner() {
            return table.owner(key);
        }

        /** @return the queue's spec of it; empty when the queue no longer holds it (a deleted line, a retired submission) */
        public Optional<JobSpec> spec() {
            return table.source.spec(key);
        }

        /** @return its run under this scheduler, while it runs here */
        public Optional<RunningJob> run() {
            return table.run(key);
        }

        /** @return the name other jobs wait for it by ({@code name=}), when it has one */
        Optional<String> name() {
            return spec().flatMap(s -> s.scheduling().name());
        }

        @Override
        public String toString() {
            return "job " + no() + " (" + key + ", " + state().journalName() + ")";
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
     * as ended ended before it. The one walk of every record of the journal's fold, at start-up.
     */
    public void open() {
        loop = Thread.currentThread();
        journal.get().records().forEach((k, r) -> {
            if (r.terminal()) {
                facts(k).endedBefore = true;
            }
        });
    }

    /**
     * @param key a job's key
     * @return its row, as of now (one of a job the journal never saw has number 0 and state pending)
     */
    public Job job(String key) {
        return new Job(this, key, journal.get().record(key));
    }

    /**
     * @param id a job's identity
     * @return its row, as of now
     */
    public Job job(JobId id) {
        return job(id.key());
    }

    /**
     * The jobs a dead scheduler was about to spawn: a {@code launching} intent with a run number and no
     * {@code started} after it. Start-up only (a walk of every record of the journal's fold).
     *
     * @return their rows
     */
    public List<Job> launchingAtStart() {
        List<Job> out = new java.util.ArrayList<>();
        journal.get().records().forEach((k, r) -> {
            if (r.launching() && r.run().isPresent()) {
                out.add(new Job(this, k, r));
            }
        });
        return out;
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

    /**
     * @return whether the job runs here now, or its run ended and its outcome is being settled
     *     ({@link #settling}): either way it is neither pending nor an orphan to take up
     */
    public boolean isRunning(String key) {
        return runs.containsKey(key) || settling.containsKey(key);
    }

    /**
     * A run that ended ({@link #runEnded}) waits for its outcome, which is worked out off the loop's
     * thread (its output read as its owner): its GPUs are free, but its job is not pending, not started
     * again, nor taken for an orphan, until {@link #settled}.
     */
    public void settling(RunningJob rj) {
        assertInLoop();
        settling.put(rj.key(), rj);
    }

    /** The outcome of a {@link #settling} run is being journaled now. */
    public void settled(RunningJob rj) {
        assertInLoop();
        settling.remove(rj.key(), rj);
    }

    /** @return whether the job's run ended and its outcome waits ({@link #settling}) */
    public boolean isSettling(String key) {
        return settling.containsKey(key);
    }

    /** @return the runs that ended and wait for their outcome ({@link #settling}), in the order they ended */
    public Collection<RunningJob> settlingRuns() {
        return settling.values();
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
     * @return since when it waits, once {@link #fixSince} fixed it; empty before
     */
    public Optional<Instant> since(String key) {
        Facts f = facts.get(key);
        return f == null || f.since == null ? Optional.empty() : Optional.of(f.since);
    }

    /**
     * Fixes since when a waiting job waits, the first time only. A value, not a function to ask: the
     * caller asks {@link #since(String)} first, and a capturing lambda per pending job per round was a
     * native allocation each under the client compiler the launcher runs.
     *
     * @param key a waiting job's key
     * @param firstSeen since when it waits, if nothing fixed it yet
     * @return since when it waits: {@code firstSeen}, or what was fixed before
     */
    public Instant fixSince(String key, Instant firstSeen) {
        assertInLoop();
        Facts f = facts(key);
        if (f.since == null) {
            f.since = firstSeen;
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

    // ---------------------------------------------------------------- process limit

    /**
     * A run of it was refused for its owner's process limit ({@link io.gpusched.outcome.ProcessLimitRetry}):
     * it is pending again, and held back until {@code until}.
     *
     * @param until on the steady time line ({@link io.gpusched.engine.loop.LoopClock#steady()})
     */
    public void heldForProcessLimit(String key, Instant until) {
        assertInLoop();
        Facts f = facts(key);
        f.processLimitRefusals++;
        f.heldUntil = until;
        held.add(key);
    }

    /** @return how many runs of it were refused for its owner's process limit in this run, 0 when none */
    public int processLimitRefusals(String key) {
        Facts f = facts.get(key);
        return f == null ? 0 : f.processLimitRefusals;
    }

    /**
     * @param now on the steady time line
     * @return until when it is held back after a refusal for its owner's process limit; empty once that
     *     has passed (it may be placed again) or when it never was
     */
    public Optional<Instant> heldUntil(String key, Instant now) {
        Facts f = facts.get(key);
        return f == null || f.heldUntil == null || !now.isBefore(f.heldUntil) ? Optional.empty() : Optional.of(f.heldUntil);
    }

    /**
     * Releases the jobs whose hold has passed.
     *
     * @param now on the steady time line
     * @return whether one was released: the queue is to be planned again, though nothing else changed
     */
    public boolean releaseHolds(Instant now) {
        assertInLoop();
        boolean released = false;
        for (String key : held) {
            Facts f = facts.get(key);
            if (f != null && f.heldUntil != null && !now.isBefore(f.heldUntil)) {
                f.heldUntil = null;
                released = true;
            }
        }
        if (released) {
            held.removeIf(k -> facts.get(k) == null || facts.get(k).heldUntil == null);
        }
        return released;
    }

    /** The keys of the jobs held back now, few: a job is here only between a refusal and its next try. */
    private final java.util.Set<String> held = new java.util.HashSet<>();

    // ---------------------------------------------------------------- ended

    /**
     * @return whether this job, ended before the run, runs again now: with {@code --retry-failed},
     *     any failure; never an ok or cancelled job, nor a line marked {@code cancel}. Answers true
     *     once per job.
     *
     * @param j its line
     * @param r its row
     */
    public boolean retryNow(JobSpec j, Job r) {
        if (!r.terminal() || j.cancel() || !retryFailed || !r.status().isFailure()) {
            return false;
        }
        return takeEndedBefore(j.key());
    }

    /**
     * The first time in this run a job found ended had ended before the run: its earlier outcome, kept
     * for the summary and board. Empty for a job that ended in this run or was already reported.
     *
     * @param j its line
     * @param r its row
     * @param no its display number, as reported
     * @param owner who it ran for, as reported
     */
    public Optional<JobResult> firstSightOfEarlier(JobSpec j, Job r, int no, String owner) {
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
     * @param r its row, terminal
     * @param no its display number
     * @param owner who it ran for
     * @return its outcome
     */
    public static JobResult earlierResult(JobSpec j, Job r, int no, String owner) {
        JobStatus status = r.status();
        OptionalLong declared = r.nextVramMib().isPresent() ? r.nextVramMib() : j.vramMib();
        Measurement measured = !r.peakMib().isEmpty() ? Measurement.MEASURED
                : r.gpus().isEmpty() || status == JobStatus.INFEASIBLE ? Measurement.NOT_RUN : Measurement.NONE_SEEN;
        // Judged in its own run; the declaration may have been edited since, so it is not judged again.
        return new JobResult(j.key(), no, j.command(), r.gpus(), status, r.returncode().orElse(0), declared,
                r.peakMib(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO, measured, Optional.empty(),
                Optional.of(owner));
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

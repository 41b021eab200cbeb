package io.gpusched.engine.table;

import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.spawn.RunningJobs;

import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.journal.RunHandle;
import io.gpusched.model.JobId;
import io.gpusched.model.JobState;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The jobs the loop knows, one {@link Job} row each, found by key or by display number: the one place
 * the parts read a job from. A row joins what the journal's fold says (number, state, attempts, the run
 * in flight, the owner a submission names), the queue's spec of it and its run here, with where it
 * waits in the queue, which only this table keeps ({@link #since}, {@link #position}).
 *
 * <p>The journal stays the record: the table reads its fold, so a row can never disagree with what is
 * durable, and compaction (which folds anew) needs no rebuild. Loop thread only; writers check it.
 */
public final class JobTable {
    private final Supplier<JournalState> journal;
    private final JobsSource source;
    private final RunningJobs running;
    /** The loop's thread: the only one that may write the table (checked under -ea, as in tests). */
    private final Thread loop = Thread.currentThread();
    private final Map<String, Instant> since = new HashMap<>();
    private final Map<String, Long> atTheBack = new HashMap<>();
    private long backs;

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
     * Built on the loop's thread, which it then holds to.
     *
     * @param journal the journal's fold as it is now (compaction replaces it)
     */
    public JobTable(Supplier<JournalState> journal, JobsSource source, RunningJobs running) {
        this.journal = journal;
        this.source = source;
        this.running = running;
    }

    /**
     * @param key a job's key
     * @return its row (one of a job the journal never saw has number 0 and state pending)
     */
    Job job(String key) {
        JournalState state = journal.get();
        JobRecord r = state.record(key);
        Optional<RunningJob> run = running.get(key);
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

    /**
     * @param key a waiting job's key
     * @param firstSeen since when it waits, asked the first time only
     * @return since when it waits, fixed the first time it is asked for
     */
    public Instant since(String key, Function<String, Instant> firstSeen) {
        assertInLoop();
        return since.computeIfAbsent(key, firstSeen);
    }

    /** @return a waiting job's position: the source's, or its place at the back once its time slice ended */
    public long position(String key, long sourcePosition) {
        return atTheBack.getOrDefault(key, sourcePosition);
    }

    /** Its time slice ended: behind every job, waiting from {@code now}. */
    public void toTheBack(String key, Instant now) {
        assertInLoop();
        atTheBack.put(key, Long.MAX_VALUE / 2 + backs++);
        since.put(key, now);
    }

    /** It ended for good: it waits nowhere any more. */
    public void forget(String key) {
        assertInLoop();
        since.remove(key);
        atTheBack.remove(key);
    }

    private void assertInLoop() {
        assert Thread.currentThread() == loop : "job table written from " + Thread.currentThread().getName();
    }
}

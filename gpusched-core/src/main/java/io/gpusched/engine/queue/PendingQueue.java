package io.gpusched.engine.queue;

import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.stop.Stops;
import io.gpusched.engine.table.JobTable;
import io.gpusched.engine.table.JobsSource;

import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.LearnedVram;
import io.gpusched.journal.JournalEvent;
import io.gpusched.policy.Dependencies;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The queue: which of the source's jobs wait, in source order, with what their next attempt asks for.
 * The original's one definition — a job is pending when it is neither running nor ended in the
 * journal — with what follows from it: display numbers for new jobs and {@code cancel} words applied.
 * What must be written before the queue is read (orphans, retries, failed dependencies) is
 * {@link Settlement}'s; {@link #compute} only reads.
 */
public final class PendingQueue {
    private final Durability durability;
    private final JobsSource source;
    private final Stops stops;
    private final Outcomes outcomes;
    private final Dependencies dependencies = new Dependencies();
    private final JobTable table;
    private List<PendingJob> pending = List.of();
    private List<PendingJob> held = List.of();
    private Map<String, String> heldReasons = Map.of();
    private Map<String, String> waitReasons = Map.of();
    /**
     * One instance of each wording the reasons use, by itself. The allocator words each blocked job's
     * reason anew, and jobs of one shape wait for the same words: kept once, 100,000 queued jobs hold a
     * few strings rather than 100,000 equal ones, the board keeps a row whose reason did not change, and
     * the queue's text copies a reason's bytes on an identity test instead of comparing its characters
     * (issue #27). Holds the wordings of the last plan and of the jobs that joined since, no others.
     */
    private Map<String, String> wordings = new HashMap<>();

    /**
     * A pending job with what its next attempt asks for, and where it stands in the queue.
     *
     * @param position its place among equal effective priorities: source order, then requeued time slices
     * @param since since when it waits, on the steady time line ({@link io.gpusched.engine.loop.LoopClock#steady()})
     * @param owner who it runs for
     * @param learned where its declaration was learned, when it was ({@code vram=auto} with a history)
     */
    public record PendingJob(JobSpec spec, int no, OptionalLong declaredMib, int attempts, long position, Instant since,
                      String owner, Optional<LearnedVram> learned) {
        /**
         * Written out, as the record would make it: {@link #compute} compares every pending job with its
         * last instance each round, and the made one goes through {@code ObjectMethods}' method handles,
         * which the client compiler the launcher runs does not inline (a third of a round over 3,000).
         */
        @Override
        public boolean equals(Object o) {
            return o instanceof PendingJob p && (spec == p.spec || spec.equals(p.spec)) && no == p.no && declaredMib.equals(p.declaredMib)
                    && attempts == p.attempts && position == p.position && since.equals(p.since) && owner.equals(p.owner)
                    && learned.equals(p.learned);
        }

        @Override
        public int hashCode() {
            return Objects.hash(spec, no, declaredMib, attempts, position, since, owner, learned);
        }
    }

    private final double spikeBuffer;
    /** Puts a submission's journaled (wall) date on the policy's steady time line. */
    private final io.gpusched.engine.loop.LoopClock clock;
    private final io.gpusched.engine.loop.Reporter reporter;

    public PendingQueue(Durability durability, JobsSource source, Stops stops, Outcomes outcomes, JobTable table,
                 double spikeBuffer, io.gpusched.engine.loop.Reporter reporter, io.gpusched.engine.loop.LoopClock clock) {
        this.reporter = reporter;
        this.clock = clock;
        this.spikeBuffer = spikeBuffer;
        this.table = table;
        this.durability = durability;
        this.source = source;
        this.stops = stops;
        this.outcomes = outcomes;
    }

    /**
     * @return the pending jobs that may be placed, as last computed or left by dispatch (the held ones
     *     last); the same list while unchanged, and changed in place when jobs join it alone
     *     ({@link #joined}): read it on the loop's thread, do not keep it
     */
    public List<PendingJob> pending() {
        return pending;
    }

    /** @return the pending jobs held back by their dependencies, with why */
    public List<PendingJob> held() {
        return held;
    }

    /** @return why each held job waits, by key */
    public Map<String, String> heldReasons() {
        return heldReasons;
    }



    /** @return why each pending job waits, by key; the same map while unchanged */
    public Map<String, String> waitReasons() {
        return waitReasons;
    }

    /**
     * The pending list and reasons a plan left.
     *
     * @param stillPending the jobs that wait, placeable ones in the plan's order, then the held ones
     * @param reasons why each waits, by key; the queue keeps it (and may change it) when it is a
     *     {@link HashMap}, else it keeps a copy
     */
    public void set(List<PendingJob> stillPending, Map<String, String> reasons) {
        Map<String, String> kept = reasons instanceof HashMap<String, String> ? reasons : new HashMap<>(reasons);
        // A wording the last plan used keeps its instance, so the board's rows for it stay as they are.
        Map<String, String> next = new HashMap<>();
        // A loop, not replaceAll with computeIfAbsent: that lambda captured the maps, one made per job.
        for (Map.Entry<String, String> e : kept.entrySet()) {
            String words = e.getValue();
            String one = next.get(words);
            if (one == null) {
                one = wordings.getOrDefault(words, words);
                next.put(words, one);
            }
            e.setValue(one);
        }
        wordings = next;
        pending = stillPending;
        waitReasons = kept;
        changes++;
    }

    /** @return the one instance of {@code words} the queue holds, it from now on when none */
    private String oneOf(String words) {
        return wordings.computeIfAbsent(words, w -> w);
    }

    int no(String key) {
        return table.job(key).no();
    }

    /** Gives each job seen for the first time its display number, and forgets deleted lines' earlier outcomes. */
    public void ensureSeen(List<JobSpec> jobs) {
        List<JournalEvent> seen = new ArrayList<>();
        int next = durability.state().nextNo();
        Set<String> batch = new HashSet<>();
        for (JobSpec j : jobs) {
            if (!table.job(j.key()).numbered() && batch.add(j.key())) {
                seen.add(new JournalEvent.Seen(j.key(), next++, j.command()));
            }
        }
        durability.record(seen);
        table.retainQueue(jobs);
    }

    /**
     * Says, in one warning, that a re-read jobs file no longer lists jobs that were waiting: they leave the
     * queue unrun, as docs/jobs-file.md's rule for deleted lines says, and before this nothing said so (a
     * file rewritten with {@code >} where {@code >>} was meant dropped its queue in silence). Nothing is
     * said when every job it no longer lists was running (it runs on), ended, or cancelled.
     *
     * @param file the jobs file's name
     * @param before its lines as taken before the re-read
     * @param after its lines as taken now
     */
    public void sayDropped(String file, List<JobSpec> before, List<JobSpec> after) {
        Set<String> listed = new HashSet<>();
        after.forEach(j -> listed.add(j.key()));
        List<Integer> dropped = new ArrayList<>();
        for (JobSpec j : before) {
            if (listed.contains(j.key()) || j.cancel() || table.isRunning(j.key())) {
                continue;
            }
            JobTable.Job r = table.job(j.key());
            if (r.numbered() && !r.terminal() && r.startedAs().isEmpty()) {
                dropped.add(r.no());
            }
        }
        if (dropped.isEmpty()) {
            return;
        }
        int n = dropped.size();
        String which = n == 1 ? "job " + dropped.get(0) : "jobs " + String.join(", ", dropped.stream().limit(5)
                .map(String::valueOf).toList()) + (n > 5 ? " and " + (n - 5) + " more" : "");
        String what = after.size() < before.size()
                ? file + " shrank from " + before.size() + " to " + after.size() + " job line" + (after.size() == 1 ? "" : "s")
                        + " (rewritten with > where >> appends?)"
                : file + " was edited";
        reporter.warn(what + ": it no longer lists " + n + " waiting job" + (n == 1 ? "" : "s") + " (" + which + "), which"
                + (n == 1 ? " leaves" : " leave") + " the queue without running; running jobs go on; put the lines back"
                + " to queue them again");
    }

    /** A {@code cancel} word stops a running job, and ends one that has not started. */
    public void applyCancellations(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            if (!j.cancel()) {
                continue;
            }
            Optional<RunningJob> rj = table.run(j.key());
            if (rj.isPresent()) {
                if (rj.get().stopping.isEmpty()) {
                    stops.stop(rj.get(), StopReason.CANCELLED);
                }
                continue;
            }
            JobTable.Job r = table.job(j.key());
            if (!r.terminal() && r.session().isEmpty()) {
                outcomes.cancelledBeforeStart(j, no(j.key()));
            }
        }
    }

    /**
     * Recomputes the pending list from the source's jobs and the journal: a query, run after
     * {@link Settlement#settle} wrote what had to be written. Live orphans, running and ended jobs are
     * not pending; jobs that wait for others are held, with the reason the settlement found. A
     * {@code unique} line of the jobs file is left out while an earlier line of the same job stands for it
     * ({@link UniqueLines}).
     */
    public void compute(List<JobSpec> jobs, Map<String, String> waitingFor, Instant now) {
        List<PendingJob> out = new ArrayList<>();
        List<PendingJob> waiting = new ArrayList<>();
        Map<String, String> waitingReasons = new HashMap<>();
        UniqueLines unique = uniqueLines(jobs);
        List<PendingJob> inOrder = new ArrayList<>(computed.size() + 1);
        int k = 0;
        long position = -1;
        for (JobSpec j : jobs) {
            position++;
            if (table.isRunning(j.key())) {
                continue;
            }
            JobTable.Job r = table.job(j.key());
            if (r.startedAs().isPresent() || r.terminal() || j.cancel()) {
                continue; // a live orphan (a gone one was settled), an ended job, or one cancelled
            }
            if (j.unique() && !unique.isEmpty()) {
                java.util.OptionalInt at = unique.firstStanding((int) position, this::stands);
                if (at.isPresent() && !jobs.get(at.getAsInt()).key().equals(j.key())) {
                    JobSpec first = jobs.get(at.getAsInt());
                    // Said once, whichever state the first is in: it may go from queued to running to ok.
                    if (toldDuplicate.add(j.key())) {
                        reporter.warnOnce("line " + j.line() + " (job " + no(j.key()) + ") is unique and the same job as line "
                            + first.line() + " (job " + no(first.key()) + "), which is queued, running or done ok: not run"
                            + " (it runs if that one ends otherwise than ok)");
                    }
                    continue;
                }
            }
            PendingJob p = pendingJob(j, r, position, now);
            // The last compute's instance of an equal job is kept: the board makes a row again, and the
            // status file renders it again, only for a job that is another object than the last board's,
            // and a plan over a queue of 10,000 otherwise made every one of them anew (all 10,000 rows'
            // text and JSON, for the one job that joined). Found by walking the last list in step, as
            // both are in queue order: a pointer comparison per job, no hashing.
            if (k + 1 < computed.size() && computed.get(k).spec() != j && computed.get(k + 1).spec() == j) {
                k++; // the one before it left
            }
            if (k < computed.size() && computed.get(k).spec() == j) {
                PendingJob before = computed.get(k++);
                if (before.equals(p)) {
                    p = before;
                }
            }
            inOrder.add(p);
            String reason = waitingFor.get(j.key());
            if (reason != null) {
                waiting.add(p);
                waitingReasons.put(j.key(), reason);
            } else {
                out.add(p);
            }
        }
        pending = out;
        held = waiting;
        heldReasons = waitingReasons;
        computed = inOrder;
        changes++;
    }

    /** What the last {@link #compute} listed, pending and held, in queue order. */
    private List<PendingJob> computed = List.of();

    /** The unique lines the log was told are left out (each once; few, as each is a line of the file). */
    private final Set<String> toldDuplicate = new HashSet<>();
    /** The index of unique lines, and the queue list it was built for (by identity: a new list, a new index). */
    private UniqueLines uniqueLines = UniqueLines.of(List.of(), j -> true);
    private List<JobSpec> uniqueLinesOf = List.of();

    /**
     * The index of this queue list's {@code unique} file lines, built when the list is another one (lines
     * joined or left), so a round looks up each unique line it reaches instead of walking the file.
     * Submissions are left out: they are deduplicated as they are taken, per owner ({@link Submissions}).
     */
    private UniqueLines uniqueLines(List<JobSpec> jobs) {
        if (jobs != uniqueLinesOf) {
            uniqueLinesOf = jobs;
            // Unique submissions are the submissions' business: a daemon full of them pays nothing here.
            uniqueLines = UniqueLines.of(jobs, j -> table.job(j.key()).submission().isEmpty());
        }
        return uniqueLines;
    }

    /** Whether a file job stands for {@code unique}: pending, running or ok; not once it ended otherwise. */
    private boolean stands(JobSpec j) {
        if (table.isRunning(j.key())) {
            return true;
        }
        return switch (table.job(j.key()).state()) {
            case PENDING, LAUNCHING, RUNNING, OK -> true;
            default -> false;
        };
    }

    private PendingJob pendingJob(JobSpec j, JobTable.Job r, long position, Instant now) {
        Optional<LearnedVram> learned = learned(j, r);
        // A submission waits from its journaled date, put on the steady time line (a date ahead of the wall,
        // from a clock that was ahead, counts as now); a file job from when this scheduler first saw it.
        Optional<Instant> fixed = table.since(j.key());
        Instant waitingSince = fixed.isPresent() ? fixed.get() : table.fixSince(j.key(), firstWaiting(r, now));
        return new PendingJob(j, r.no(), declared(j, r, learned), r.attempts(),
                table.position(j.key(), position), waitingSince, table.owner(j.key()), learned);
    }

    /** Since when a job first seen waiting waits, on the steady time line. */
    private Instant firstWaiting(JobTable.Job r, Instant now) {
        Optional<JournalEvent.Submitted> s = r.submission();
        return s.isPresent() ? clock.steadyOf(Instant.ofEpochMilli(s.get().submittedAtMillis())) : now;
    }

    /**
     * A job that joined the queue since the last {@link #compute}, as compute would list it.
     *
     * @param j the job, not running and never started
     * @param position its place in the source's list
     * @param now the time, on the steady time line ({@link io.gpusched.engine.loop.LoopClock#steady()})
     * @return it, pending; empty when the journal says it is not (ended, or a run of it in flight)
     */
    public Optional<PendingJob> joined(JobSpec j, long position, Instant now) {
        JobTable.Job r = table.job(j.key());
        if (table.isRunning(j.key()) || r.startedAs().isPresent() || r.terminal() || j.cancel()) {
            return Optional.empty();
        }
        return Optional.of(pendingJob(j, r, position, now));
    }

    /**
     * Adds jobs that joined the queue since the last plan, decided alone: each waiting one at its place
     * in the plan's order (a binary search; at the end of the placeable jobs in the usual case, where
     * nothing moves), each held one after the held jobs. The lists and the reasons map are updated in
     * place, in amortised O(log n) per job, not copied: with 100,000 queued a copy per submission was
     * most of its cost. {@link #changes()} and {@link #joins()} tell the board what changed.
     *
     * @param waiting jobs that may be placed, each once, in the order they joined, with why each waits
     * @param order the last plan's order of the jobs that may be placed
     * @param heldBack jobs held by their dependencies, each once, in the order they joined, with why
     */
    public void joined(List<Map.Entry<PendingJob, String>> waiting, java.util.Comparator<PendingJob> order,
                       List<Map.Entry<PendingJob, String>> heldBack) {
        if (!(pending instanceof ArrayList<PendingJob>)) {
            pending = new ArrayList<>(pending);
        }
        if (!(waitReasons instanceof HashMap<String, String>)) {
            waitReasons = new HashMap<>(waitReasons);
        }
        int placeable = pending.size() - held.size();
        for (Map.Entry<PendingJob, String> e : waiting) {
            int at = placeable == 0 || order.compare(pending.get(placeable - 1), e.getKey()) <= 0 ? placeable
                    : java.util.Collections.binarySearch(pending.subList(0, placeable), e.getKey(), order);
            pending.add(at < 0 ? -at - 1 : at, e.getKey());
            placeable++;
            waitReasons.put(e.getKey().spec().key(), oneOf(e.getValue()));
        }
        if (!heldBack.isEmpty()) {
            List<PendingJob> nowHeld = new ArrayList<>(held);
            Map<String, String> nowHeldReasons = new HashMap<>(heldReasons);
            for (Map.Entry<PendingJob, String> e : heldBack) {
                nowHeld.add(e.getKey());
                pending.add(e.getKey());
                String words = oneOf(e.getValue());
                nowHeldReasons.put(e.getKey().spec().key(), words);
                waitReasons.put(e.getKey().spec().key(), words);
            }
            held = nowHeld;
            heldReasons = nowHeldReasons;
        }
        joins += waiting.size() + heldBack.size();
    }

    /**
     * @return a count that moves whenever the pending list or its reasons are replaced (a plan of the
     *     whole queue), not when jobs only joined it ({@link #joins()})
     */
    public long changes() {
        return changes;
    }

    /** @return a count that moves whenever jobs joined the pending list alone ({@link #joined}) */
    public long joins() {
        return joins;
    }

    private long changes;
    private long joins;

    /** @return where a job's declaration is learned from ({@code vram=auto}), unless an OOM's bump decides it */
    private Optional<LearnedVram> learned(JobSpec j, JobTable.Job r) {
        return r.nextVramMib().isEmpty() && j.learnVram()
                ? LearnedVram.learn(r.owner(), j.command(), source.ruleOf(j.key()), durability.state().peaks(), spikeBuffer)
                : Optional.empty();
    }

    /**
     * What a job's next attempt declares: an OOM's bump first (this job's own lesson), then what earlier
     * runs taught, then the line or its rule.
     */
    OptionalLong declared(JobSpec j, JobTable.Job r) {
        return declared(j, r, learned(j, r));
    }

    private static OptionalLong declared(JobSpec j, JobTable.Job r, Optional<LearnedVram> learned) {
        return r.nextVramMib().isPresent() ? r.nextVramMib()
                : learned.isPresent() ? OptionalLong.of(learned.get().mib()) : j.vramMib();
    }

    /**
     * @param j a job
     * @return whether the jobs this one runs after let it run, hold it back, or failed
     */
    public Dependencies.Verdict dependencies(JobSpec j) {
        return dependencies(j, table.owner(j.key()));
    }

    /**
     * @param j a job, queued or not
     * @param owner who it runs (or would run) for: its {@code after} names only that owner's jobs
     * @return whether the jobs this one runs after let it run, hold it back, or failed
     */
    public Dependencies.Verdict dependencies(JobSpec j, String owner) {
        return dependencies.check(owner, j.scheduling().after(), this::known);
    }

    /**
     * @param p a pending job
     * @return the requirement rule its next declaration comes from; empty when the line (or, after an
     *     OOM, the bump) decided it
     */
    public java.util.Optional<String> ruleOf(PendingJob p) {
        return p.learned().isEmpty() && p.spec().vramMib().equals(p.declaredMib()) ? source.ruleOf(p.spec().key())
                : java.util.Optional.empty();
    }

    /**
     * @param key a job's key
     * @return who the job of this key runs for
     */
    public String ownerOf(String key) {
        return table.owner(key);
    }

    /** Learns the names of these jobs (a submission's as soon as it is accepted, so the next may name it). */
    void learnNames(List<JobSpec> jobs) {
        for (JobSpec j : jobs) {
            // Not ifPresent(lambda): the lambda, capturing the job, was made for every job, named or not.
            Optional<String> name = j.scheduling().name();
            if (name.isPresent()) {
                dependencies.learn(table.owner(j.key()), name.get(), j.key(), this::live);
            }
        }
    }

    /**
     * Whether the job of a key may still be waited on: it has not ended, and the queue still holds it (a
     * submission the journal numbered; a line the jobs file still has, numbered or not yet). A line
     * deleted from the file, or a submission compacted away long after it ended, is not.
     */
    private boolean live(String key) {
        JobTable.Job r = table.job(key);
        if (r.terminal()) {
            return false;
        }
        return io.gpusched.model.JobId.of(key) instanceof io.gpusched.model.JobId.Submission ? r.numbered()
                : source.holdsLine(key);
    }

    /** @return the names a job of {@code owner}'s waits for that no job of theirs in the queue has */
    List<String> unknownDependencies(JobSpec job, String owner) {
        if (job.scheduling().after().isEmpty()) {
            return List.of(); // most jobs: no stream for nothing
        }
        List<String> unknown = List.of(); // asked of every submission that has after=: made only when one is unknown
        for (io.gpusched.jobs.Scheduling.Dependency d : job.scheduling().after()) {
            if (dependencies.keyOf(owner, d.name()).isEmpty()) {
                if (unknown.isEmpty()) {
                    unknown = new java.util.ArrayList<>();
                }
                unknown.add(d.name());
            }
        }
        return unknown;
    }

    private Dependencies.Known known(String key) {
        JobTable.Job r = table.job(key);
        return new Dependencies.Known(r.no(), r.terminal() ? Optional.of(r.state().journalName()) : Optional.empty());
    }
}

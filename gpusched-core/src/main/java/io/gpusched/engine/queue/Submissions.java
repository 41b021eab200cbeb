package io.gpusched.engine.queue;

import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.lease.Leases;
import io.gpusched.engine.loop.Durability;
import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.table.JobTable;
import io.gpusched.engine.table.JobsSource;

import io.gpusched.model.JobResult;
import io.gpusched.model.SubmitContext;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JournalEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Jobs submitted through the API, as a source of the queue beside the jobs file. Each gets the next
 * display number and a key of its own ({@code s<no>}), and is journaled with everything needed to queue
 * it again — a restarted scheduler rebuilds every submission that had not ended, running ones included
 * (they are then orphans like any other).
 */
public final class Submissions {
    /** What the journal names a submission's origin. */
    static final String API = "api";
    /** ... and a lease's: a client's {@code srun}, whose command the client runs. */
    static final String SRUN = "srun";
    private final Durability durability;
    private final JobsSource source;
    private final Outcomes outcomes;
    private final Reporter reporter;
    private final LoopClock clock;
    private final PendingQueue queue;
    private final Leases leases;
    private final JobTable table;
    private final int maxQueuedPerUser;
    /** How many MiB of commands and environments one owner's submissions not yet ended may hold. */
    private final long maxQueuedMibPerUser;
    /** Whether every submission but a lease is {@code unique} ({@code serve --dedup}). */
    private final boolean dedupAll;
    private final Duplicates duplicates;
    /** The most ended submissions of earlier runs the queue lists ({@code gpusched queue --all}). */
    public static final int ENDED_BEFORE_KEPT = 10_000;
    private List<JobResult> endedBefore = List.of();

    /**
     * @param table the jobs, each read from its row
     * @param maxQueuedPerUser how many submissions not yet ended one owner may have
     * @param maxQueuedMibPerUser how many MiB those may hold ({@link io.gpusched.journal.JournalState#size})
     * @param dedupAll whether every submission but an {@code srun} lease is {@code unique}
     *     ({@code serve --dedup}); an {@code srun} is only with its own {@code --unique}
     */
    public Submissions(Durability durability, JobsSource source, Outcomes outcomes, Reporter reporter, LoopClock clock, PendingQueue queue,
                Leases leases, JobTable table, int maxQueuedPerUser, long maxQueuedMibPerUser, boolean dedupAll) {
        this.maxQueuedMibPerUser = maxQueuedMibPerUser;
        this.dedupAll = dedupAll;
        this.table = table;
        this.duplicates = new Duplicates(durability::state, table, Submissions::spec);
        this.leases = leases;
        this.maxQueuedPerUser = maxQueuedPerUser;
        this.queue = queue;
        this.durability = durability;
        this.source = source;
        this.outcomes = outcomes;
        this.reporter = reporter;
        this.clock = clock;
    }

    /**
     * Queues again the journal's submissions that had not ended, in the order they were made, and learns
     * the names of all it holds (an ended one may still be waited for by name).
     */
    public void rebuild() {
        java.util.ArrayDeque<JobResult> before = new java.util.ArrayDeque<>();
        for (JournalEvent.Submitted s : durability.state().submissions()) {
            JobTable.Job r = table.job(s.key());
            JobSpec spec = spec(s);
            queue.learnNames(List.of(spec));
            if (r.terminal()) {
                before.addLast(JobTable.earlierResult(spec, r, s.no(), s.owner()));
                if (before.size() > ENDED_BEFORE_KEPT) {
                    before.removeFirst();
                }
                continue;
            }
            if (isLease(s) && r.session().isEmpty() && !r.launching()) {
                // Its client waited on a connection that died with the last scheduler; nobody takes the grant.
                reporter.warnOnce("job " + s.no() + " (srun) was still waiting when the scheduler stopped; cancelled, as"
                        + " its client no longer waits for it (gpusched srun asks again)");
                outcomes.cancelledBeforeStart(spec, s.no());
                continue;
            }
            source.submit(spec);
        }
        endedBefore = List.copyOf(before);
    }

    /**
     * @return the submissions that had ended before this run, as the journal holds them, by number: the
     *     queue's finished jobs of earlier runs (the newest {@value #ENDED_BEFORE_KEPT} at most)
     */
    public List<JobResult> endedBefore() {
        return endedBefore;
    }

    /**
     * Journals a submission and queues it. {@code accepted} gets its display number once the journal
     * line is forced. When the disk refuses the line, {@code accepted} and {@code result} fail with a
     * {@link io.gpusched.model.JournalUnwritableException} and nothing is queued: the number stays free.
     * A {@code unique} job (or any but a lease, with {@code dedupAll}) whose owner has the same job
     * queued, running or ended ok is not queued either: both fail with a
     * {@link io.gpusched.model.DuplicateJobException} naming that job.
     *
     * @return whether a new job joined the queue (false for a refusal or a request sent again)
     */
    public boolean accept(JobSpec spec, SubmitContext context, CompletableFuture<JobResult> result,
                CompletableFuture<Integer> accepted, Optional<CompletableFuture<io.gpusched.model.Grant>> lease) {
        Optional<JournalEvent.Submitted> first = context.requestId().flatMap(id -> submitted(context.owner(), id));
        if (first.isPresent()) {
            repeat(first.get(), result, accepted);
            return false;
        }
        // Computed once the index exists, so a daemon that never sees a unique job never hashes one.
        Optional<Duplicates.Fingerprint> content = Optional.empty();
        if (spec.unique() || (dedupAll && lease.isEmpty())) {
            Duplicates.Fingerprint f = duplicates.fingerprint(context.owner(), context.workDir().toString(), spec);
            Optional<io.gpusched.model.DuplicateJobException> same = duplicates.standing(f);
            if (same.isPresent()) {
                // Before the queue-full check: a job already there adds nothing to the queue.
                accepted.completeExceptionally(same.get());
                result.completeExceptionally(same.get());
                return false;
            }
            content = Optional.of(f);
        }
        if (durability.state().openSubmissions(context.owner()) >= maxQueuedPerUser) {
            // Before a number is taken: the refused submission leaves no trace.
            io.gpusched.model.QueueFullException e = new io.gpusched.model.QueueFullException(context.owner(), maxQueuedPerUser);
            accepted.completeExceptionally(e);
            result.completeExceptionally(e);
            return false;
        }
        List<String> unknown = queue.unknownDependencies(spec, context.owner());
        if (!unknown.isEmpty()) {
            // The file's names are learned each round; this may come before the first.
            queue.learnNames(source.jobs());
            unknown = queue.unknownDependencies(spec, context.owner());
        }
        if (!unknown.isEmpty()) {
            IllegalArgumentException e = new IllegalArgumentException("cannot submit '" + spec.command() + "': "
                    + unknownAfter(unknown));
            accepted.completeExceptionally(e);
            result.completeExceptionally(e);
            return false;
        }
        int no = durability.state().nextNo();
        String key = new io.gpusched.model.JobId.Submission(no).key();
        Instant at = clock.now();
        // The line is for a restart, which parses it to rebuild the job (rebuild); a journal never read
        // back (a simulation's, in memory) gets none: writing each submission back as a line was about
        // 3% of a simulated run's time, for nothing.
        Optional<String> line = durability.readBack() ? Optional.of(spec.toLine()) : Optional.empty();
        JournalEvent.Submitted event = new JournalEvent.Submitted(key, no, spec.command(), spec.vramMib(), spec.gpus(),
                spec.timeout().map(t -> OptionalLong.of(t.toNanos())).orElse(OptionalLong.empty()), spec.retries(), lease.isPresent() ? SRUN : API,
                context.owner(), context.workDir().toString(), at.toEpochMilli(), context.environment(),
                line, context.output().map(Path::toString), context.requestId(), context.umask());
        // What the journal and the fold would hold of it until it ends: checked before it is written, as the
        // count is, so a refused submission leaves no trace (its number is still free).
        long size = durability.state().size(event);
        long held = durability.state().openSubmissionBytes(context.owner());
        if (held + size > maxQueuedMibPerUser * 1024 * 1024) {
            io.gpusched.model.QueueFullException e = io.gpusched.model.QueueFullException.ofSize(context.owner(), held, size,
                    maxQueuedMibPerUser, durability.state().openSubmissions(context.owner()), maxQueuedPerUser);
            accepted.completeExceptionally(e);
            result.completeExceptionally(e);
            return false;
        }
        Optional<io.gpusched.model.JournalUnwritableException> refused = durability.recordSubmission(event);
        if (refused.isPresent()) {
            accepted.completeExceptionally(refused.get());
            result.completeExceptionally(refused.get());
            return false;
        }
        if (byRequest != null && byRequest.size() > 2 * durability.state().submissions().size() + 1024) {
            byRequest = null; // compaction forgot many: rebuilt from the journal at the next request id
        }
        if (byRequest != null) {
            context.requestId().ifPresent(id -> byRequest.put(new RequestKey(context.owner(), id), key));
        }
        if (content.isEmpty() && duplicates.built()) {
            content = Optional.of(duplicates.fingerprint(context.owner(), context.workDir().toString(), spec));
        }
        content.ifPresent(f -> duplicates.taken(f, key));
        JobSpec keyed = spec.withKey(key); // built once: a JobSpec's builder validates every field again
        source.submit(keyed);
        queue.learnNames(List.of(keyed));
        outcomes.awaited(key, result);
        lease.ifPresent(granted -> {
            Leases.Waiter w = new Leases.Waiter(granted, context.owner());
            leases.register(key, no, w, result);
        });
        durability.acknowledge(accepted, no);
        return true;
    }

    /**
     * Why a job naming jobs the queue does not know in {@code after} is refused, as a submission is.
     *
     * @param spec the job
     * @param owner who would submit it: its {@code after} names only their jobs
     * @return the reason; empty when every name is known
     */
    public Optional<String> unknownAfter(JobSpec spec, String owner) {
        List<String> unknown = queue.unknownDependencies(spec, owner);
        if (!unknown.isEmpty()) {
            queue.learnNames(source.jobs());
            unknown = queue.unknownDependencies(spec, owner);
        }
        return unknown.isEmpty() ? Optional.empty() : Optional.of(unknownAfter(unknown));
    }

    private static String unknownAfter(List<String> unknown) {
        return "after=" + String.join(",", unknown) + " names no job of the queue; give the job it means [name=...] first";
    }

    /**
     * The submission the journal holds with this owner's request id: looked up in an index of the
     * journal's submissions by owner and request id (built at the first request id, then kept with each
     * submission), checked against the journal, which compaction may have made forget it.
     */
    private Optional<JournalEvent.Submitted> submitted(String owner, String requestId) {
        if (byRequest == null) {
            byRequest = new java.util.HashMap<>();
            for (JournalEvent.Submitted s : durability.state().submissions()) {
                s.requestId().ifPresent(id -> byRequest.put(new RequestKey(s.owner(), id), s.key()));
            }
        }
        String key = byRequest.get(new RequestKey(owner, requestId));
        if (key == null) {
            return Optional.empty();
        }
        Optional<JournalEvent.Submitted> s = table.job(key).submission();
        if (s.isEmpty()) {
            byRequest.remove(new RequestKey(owner, requestId));
        }
        return s;
    }

    /** A client's name for a submission: unique per owner. */
    private record RequestKey(String owner, String requestId) {
    }

    /** The journal's submissions by request id; null until the first request id asks. */
    private java.util.Map<RequestKey, String> byRequest;

    /**
     * A submission its client sent again (it never got the answer, e.g. the daemon died first): nothing
     * new is queued; the answer is the first's number, once that is durable, and the first's result.
     */
    private void repeat(JournalEvent.Submitted first, CompletableFuture<JobResult> result,
                        CompletableFuture<Integer> accepted) {
        if (!table.job(first.key()).terminal()) {
            outcomes.awaited(first.key(), result);
        } else {
            outcomes.results().stream().filter(r -> r.key().equals(first.key())).findFirst().ifPresentOrElse(result::complete,
                    () -> result.completeExceptionally(new io.gpusched.model.GpuschedException("job " + first.no()
                            + " ended before this run started; the journal holds its outcome")));
        }
        durability.acknowledge(accepted, first.no());
    }

    /** @return whether a submission is a lease ({@code srun}): its command is its client's, never run here */
    public static boolean isLease(JournalEvent.Submitted s) {
        return SRUN.equals(s.source());
    }

    static JobSpec spec(JournalEvent.Submitted s) {
        if (s.line().isPresent()) {
            try {
                // Recorded, not typed: a command an earlier version accepted is not judged again by rules
                // that came later.
                return JobSpec.parseRecorded(s.line().get()).withKey(s.key());
            } catch (io.gpusched.jobs.JobSpecException e) {
                // Written by a version with attributes this one does not know: the fields still say what
                // it needs, without them.
            }
        }
        Optional<Duration> timeout = s.timeoutNanos().isPresent()
                ? Optional.of(Duration.ofNanos(s.timeoutNanos().getAsLong())) : Optional.empty();
        return JobSpec.builder(s.command()).vramMib(s.vramMib()).gpus(s.gpus()).timeout(timeout).retries(s.retries())
                .key(s.key()).build();
    }
}

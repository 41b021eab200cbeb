package io.gpusched.engine;

import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.table.JobTable;

import io.gpusched.jobs.Notes;
import io.gpusched.model.JobResult;
import io.gpusched.event.StatusBoard;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The status board as the loop hands it out every round. The pending, done and earlier lists are
 * rebuilt only when they change, and are then the same list objects until they change again, which
 * lets the board writer reuse its rendering too.
 */
final class BoardRows {
    private List<PendingQueue.PendingJob> pendingOf;
    /** The queue's counts of plans and of jobs joined alone, as the last rows saw them. */
    private long changesOf = -1;
    private long joinsOf = -1;
    /** The last board's pending jobs and their rows, index for index. */
    private PendingQueue.PendingJob[] jobsOf = new PendingQueue.PendingJob[0];
    private StatusBoard.Pending[] rowsOf = new StatusBoard.Pending[0];
    private List<StatusBoard.Pending> pending = List.of();
    private long doneCount = -1;
    private List<JobResult> done = List.of();
    private long earlierChanges = -1;
    private List<JobResult> earlier = List.of();
    /** Submissions that had ended before this run (they are in no source): listed first among the earlier. */
    private List<JobResult> endedBefore = List.of();
    /**
     * The last row's owner and GPUs asked, wrapped: rows in a row mostly repeat both, and share one
     * Optional each instead of two more objects per pending job (200,000 at 100,000 queued).
     */
    private java.util.Optional<String> ownerOf = java.util.Optional.empty();
    private java.util.Optional<String> askedOf = java.util.Optional.empty();

    /** @param results the submissions that had ended before this run, by number */
    void endedBefore(List<JobResult> results) {
        endedBefore = List.copyOf(results);
        earlierChanges = -1;
    }

    /**
     * Makes the pending rows again. Each row is made anew only when its job or its reason is another
     * object than the last board's; jobs are matched to the last board's by walking both lists in step
     * (a job that joined, or one that left, costs a pointer comparison), so no row is hashed. When only
     * jobs joined since (no plan replaced the reasons), the other rows' reasons are not looked up.
     */
    private void pendingRows(PendingQueue queue, io.gpusched.engine.loop.LoopClock clock) {
        List<PendingQueue.PendingJob> jobs = queue.pending();
        boolean onlyJoined = queue.changes() == changesOf;
        Map<String, String> reasons = queue.waitReasons();
        java.util.Set<String> held = new java.util.HashSet<>();
        queue.held().forEach(h -> held.add(h.spec().key()));
        int n = jobs.size();
        PendingQueue.PendingJob[] js = new PendingQueue.PendingJob[n];
        StatusBoard.Pending[] rows = new StatusBoard.Pending[n];
        java.util.Map<PendingQueue.PendingJob, Integer> lastAt = null; // built only if the lists part ways
        int k = 0;
        for (int i = 0; i < n; i++) {
            PendingQueue.PendingJob p = jobs.get(i);
            StatusBoard.Pending row = null;
            if (k < jobsOf.length && jobsOf[k] == p) {
                row = rowsOf[k++];
            } else if (k + 1 < jobsOf.length && jobsOf[k + 1] == p) {
                row = rowsOf[k + 1]; // the one before it left
                k += 2;
            } else if (k < jobsOf.length && !(i + 1 < n && jobs.get(i + 1) == jobsOf[k])) {
                // Neither one that joined here nor one past the last board's end (which joined at the end):
                // the lists parted ways (a plan reordered them), so look it up.
                if (lastAt == null) {
                    lastAt = new java.util.IdentityHashMap<>(jobsOf.length * 2);
                    for (int j = 0; j < jobsOf.length; j++) {
                        lastAt.put(jobsOf[j], j);
                    }
                }
                Integer j = lastAt.get(p);
                if (j != null) {
                    row = rowsOf[j];
                    k = j + 1;
                }
            }
            if (row == null || !onlyJoined) {
                String reason = reasons.getOrDefault(p.spec().key(), "");
                boolean isHeld = !held.isEmpty() && held.contains(p.spec().key());
                if (row == null || row.reason() != reason || row.held() != isHeld) {
                    row = new StatusBoard.Pending(p.no(), p.spec().command(), p.declaredMib(), p.attempts(), reason,
                            owner(p.owner()), isHeld, p.spec().scheduling().priority(), queue.ruleOf(p),
                            Notes.of(p.spec()), asked(asked(p.spec())), java.util.Optional.of(clock.wallOf(p.since())), // a date shown: the wall's
                            p.spec().environment().tty());
                }
            }
            js[i] = p;
            rows[i] = row;
        }
        jobsOf = js;
        rowsOf = rows;
        pending = List.copyOf(java.util.Arrays.asList(rows)); // immutable: the board keeps it as it is, by identity
        pendingOf = jobs;
        changesOf = queue.changes();
        joinsOf = queue.joins();
    }

    StatusBoard board(io.gpusched.engine.loop.LoopClock clock, JobTable table, PendingQueue queue, Outcomes outcomes) {
        long nanos = clock.nanos();
        List<StatusBoard.Running> rows = new ArrayList<>();
        // A run that ended and waits for its outcome (its output read as its owner) stays a running row until
        // its outcome is journaled: it is in no other list meanwhile.
        List<RunningJob> shown = new ArrayList<>(table.runs());
        shown.addAll(table.settlingRuns());
        for (RunningJob rj : shown) {
            // A cluster's job shows the GPUs the cluster gave it, once its command started there.
            List<Integer> gpus = rj.elsewhere.map(e -> e.running().getNow(List.of())).orElse(rj.gpusNow());
            // Where it runs now (the journal and its result keep where it started): a renumbering moves the row.
            rows.add(new StatusBoard.Running(rj.no, rj.spec.command(), gpus, rj.ran(nanos),
                    rj.currentMibNow(), rj.overallPeak(), rj.stopping, java.util.Optional.of(queue.ownerOf(rj.key())), rj.declaredMib,
                    rj.spec.scheduling().priority(), rj.rule, Notes.of(rj.spec),
                    rj.elsewhere.map(io.gpusched.cluster.ClusterRun::where), rj.spec.environment().tty()));
        }
        rows.sort(Comparator.comparingInt(StatusBoard.Running::no));
        if (queue.pending() != pendingOf || queue.changes() != changesOf || queue.joins() != joinsOf) {
            pendingRows(queue, clock);
        }
        if (table.earlierChanges() != earlierChanges) {
            List<JobResult> all = new ArrayList<>(endedBefore);
            all.addAll(table.earlierResults());
            all.sort(Comparator.comparingInt(JobResult::no));
            earlier = List.copyOf(all);
            earlierChanges = table.earlierChanges();
        }
        List<JobResult> results = outcomes.results();
        if (outcomes.endedCount() != doneCount) {
            List<JobResult> sorted = new ArrayList<>(results);
            sorted.sort(Comparator.comparingInt(JobResult::no));
            done = List.copyOf(sorted);
            doneCount = outcomes.endedCount();
        }
        return new StatusBoard(rows, pending, done, earlier, outcomes.interrupted());
    }

    private java.util.Optional<String> owner(String owner) {
        if (!ownerOf.isPresent() || !ownerOf.get().equals(owner)) {
            ownerOf = java.util.Optional.of(owner);
        }
        return ownerOf;
    }

    private java.util.Optional<String> asked(String asked) {
        if (!askedOf.isPresent() || !askedOf.get().equals(asked)) {
            askedOf = java.util.Optional.of(asked);
        }
        return askedOf;
    }

    /** The GPUs a job asks for, in its line's words: {@code 2}, {@code 0.5}, {@code 1 on 2-3} (pinned). */
    static String asked(io.gpusched.jobs.JobSpec s) {
        String count = io.gpusched.jobs.Attribute.GPUS.written(s).map(w -> w.substring(w.indexOf('=') + 1)).orElse("1");
        return io.gpusched.jobs.Attribute.GPU_IDS.written(s).map(w -> count + " on " + w.substring(w.indexOf('=') + 1))
                .orElse(count);
    }
}

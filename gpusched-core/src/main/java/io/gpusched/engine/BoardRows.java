package io.gpusched.engine;

import io.gpusched.engine.ending.EndedJobs;
import io.gpusched.engine.ending.Outcomes;
import io.gpusched.engine.queue.PendingQueue;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.engine.spawn.RunningJobs;

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
    private Map<String, String> reasonsOf;
    /** The reasons map is updated in place when jobs are planned alone: its size tells. */
    private int reasonsSize;
    /** The last board's row of each pending job. */
    private Map<PendingQueue.PendingJob, StatusBoard.Pending> pendingRows = new java.util.IdentityHashMap<>();
    private List<StatusBoard.Pending> pending = List.of();
    private long doneCount = -1;
    private List<JobResult> done = List.of();
    private long earlierChanges = -1;
    private List<JobResult> earlier = List.of();
    /** Submissions that had ended before this run (they are in no source): listed first among the earlier. */
    private List<JobResult> endedBefore = List.of();

    /** @param results the submissions that had ended before this run, by number */
    void endedBefore(List<JobResult> results) {
        endedBefore = List.copyOf(results);
        earlierChanges = -1;
    }

    StatusBoard board(Instant now, RunningJobs running, PendingQueue queue, Outcomes outcomes, EndedJobs ended) {
        List<StatusBoard.Running> rows = new ArrayList<>();
        for (RunningJob rj : running.all()) {
            // A cluster's job shows the GPUs the cluster gave it, once its command started there.
            List<Integer> gpus = rj.elsewhere.map(e -> e.running().getNow(List.of())).orElse(rj.gpus);
            rows.add(new StatusBoard.Running(rj.no, rj.spec.command(), gpus, Duration.between(rj.startedAt, now),
                    rj.currentMib, rj.overallPeak(), rj.stopping, java.util.Optional.of(queue.ownerOf(rj.key())), rj.declaredMib,
                    rj.spec.scheduling().priority(), rj.rule, rj.spec.comment(),
                    rj.elsewhere.map(io.gpusched.cluster.ClusterRun::where)));
        }
        rows.sort(Comparator.comparingInt(StatusBoard.Running::no));
        if (queue.pending() != pendingOf || queue.waitReasons() != reasonsOf || reasonsSize != queue.waitReasons().size()) {
            List<StatusBoard.Pending> waiting = new ArrayList<>(queue.pending().size());
            java.util.Set<String> held = new java.util.HashSet<>();
            queue.held().forEach(h -> held.add(h.spec().key()));
            // A job planned alone joins a list whose other rows are unchanged: each row is made again
            // only when its job or its reason is another object than the last board's.
            java.util.Map<PendingQueue.PendingJob, StatusBoard.Pending> made = new java.util.IdentityHashMap<>(
                    queue.pending().size() * 2);
            for (PendingQueue.PendingJob p : queue.pending()) {
                String reason = queue.waitReasons().getOrDefault(p.spec().key(), "");
                boolean isHeld = held.contains(p.spec().key());
                StatusBoard.Pending row = pendingRows.get(p);
                if (row == null || row.reason() != reason || row.held() != isHeld) {
                    row = new StatusBoard.Pending(p.no(), p.spec().command(), p.declaredMib(), p.attempts(), reason,
                            java.util.Optional.of(p.owner()), isHeld, p.spec().scheduling().priority(), queue.ruleOf(p),
                            p.spec().comment(), java.util.Optional.of(asked(p.spec())), java.util.Optional.of(p.since()));
                }
                made.put(p, row);
                waiting.add(row);
            }
            pendingRows = made;
            pending = List.copyOf(waiting); // immutable: the board keeps it as it is, by identity
            pendingOf = queue.pending();
            reasonsOf = queue.waitReasons();
            reasonsSize = reasonsOf.size();
        }
        if (ended.changes() != earlierChanges) {
            List<JobResult> all = new ArrayList<>(endedBefore);
            all.addAll(ended.earlierResults());
            all.sort(Comparator.comparingInt(JobResult::no));
            earlier = List.copyOf(all);
            earlierChanges = ended.changes();
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

    /** The GPUs a job asks for, in its line's words: {@code 2}, {@code 0.5}, {@code 1 on 2-3} (pinned). */
    static String asked(io.gpusched.jobs.JobSpec s) {
        String count = io.gpusched.jobs.Attribute.GPUS.written(s).map(w -> w.substring(w.indexOf('=') + 1)).orElse("1");
        return io.gpusched.jobs.Attribute.GPU_IDS.written(s).map(w -> count + " on " + w.substring(w.indexOf('=') + 1))
                .orElse(count);
    }
}

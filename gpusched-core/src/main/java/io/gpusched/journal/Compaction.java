package io.gpusched.journal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * The folded state of a journal written back as the fewest events that fold to it again: per job its
 * first sight (or submission) and, as it stands, its outcome, its OOM retry state, or its run in
 * flight (with its Slurm job and the stop asked of it); the paused GPUs; the peaks {@code vram=auto} learns from; and a first line that keeps the next
 * display and run numbers. Submissions
 * that ended are history, not queue: only the most recent {@code keepEndedSubmissions} are kept. Pure.
 */
public final class Compaction {
    /** How many commands' learned peaks a compaction keeps, the most recent: a bound for a scheduler that runs for months. */
    static final int KEEP_LEARNED_COMMANDS = 10_000;

    private Compaction() {
    }

    /**
     * @param state the folded journal
     * @param keepEndedSubmissions how many ended submissions to keep (the most recent)
     * @return events that fold to the same state, less the ended submissions left out
     * @throws IllegalStateException if a job's launch is in flight (compaction happens between rounds)
     */
    public static List<JournalEvent> of(JournalState state, int keepEndedSubmissions) {
        List<JournalEvent> out = new ArrayList<>();
        out.add(new JournalEvent.Compacted(JournalEvent.Compacted.KEY, state.nextNo(), state.nextRun()));
        out.addAll(state.pauses());
        Set<String> dropped = droppedSubmissions(state, keepEndedSubmissions);
        // Submissions first, in the order they were made (a restart queues them in it), then file jobs.
        Set<String> written = new HashSet<>(dropped);
        for (JournalEvent.Submitted s : state.submissions()) {
            if (written.add(s.key())) {
                out.add(s);
                out.addAll(job(s.key(), state.record(s.key()), s, state));
            }
        }
        List<Map.Entry<String, JobRecord>> records = new ArrayList<>(state.records().entrySet());
        records.sort(Comparator.comparingInt((Map.Entry<String, JobRecord> e) -> e.getValue().no().orElse(0))
                .thenComparing(Map.Entry::getKey));
        for (Map.Entry<String, JobRecord> e : records) {
            if (written.add(e.getKey())) {
                out.addAll(job(e.getKey(), e.getValue(), null, state));
            }
        }
        // Last, and whatever the jobs above say: the learned peaks outlive the submissions dropped here.
        out.addAll(state.peaks().lines(KEEP_LEARNED_COMMANDS));
        return out;
    }

    /** One job's events after its submission line, if it has one: its number, then where it stands. */
    private static List<JournalEvent> job(String key, JobRecord r, JournalEvent.Submitted submitted, JournalState state) {
        if (r.launching()) {
            throw new IllegalStateException("job " + key + " is being launched; compact between rounds");
        }
        List<JournalEvent> out = new ArrayList<>();
        boolean numbered = submitted != null && r.no().equals(java.util.OptionalInt.of(submitted.no()))
                && r.command().equals(submitted.command());
        if (!numbered && r.no().isPresent()) {
            out.add(new JournalEvent.Seen(key, r.no().getAsInt(), r.command()));
        }
        out.addAll(standing(key, r, state));
        return out;
    }

    /**
     * The events that bring a seen job to where its record stands: its attempts and OOM-raised
     * declaration, the GPUs of its last attempt, and its outcome or its run in flight (where it was handed
     * to Slurm, and the stop asked of it, as the journal says).
     */
    private static List<JournalEvent> standing(String key, JobRecord r, JournalState state) {
        List<JournalEvent> out = new ArrayList<>();
        // A done line counts one attempt itself.
        attempts(out, key, r.terminal() ? r.attempts() - 1 : r.attempts(), r);
        if (r.runningPgid().isPresent()) {
            if (r.run().isPresent()) {
                out.add(new JournalEvent.Launching(key, r.run().getAsLong(), r.gpus()));
            }
            // A restart finds the attempt on its cluster by this id instead of submitting it again.
            state.slurmSubmission(key).ifPresent(out::add);
            // The run's devices too: a restart after the GPUs were renumbered finds it where it runs.
            List<String> devices = state.devices(key);
            out.add(new JournalEvent.Started(key, r.runningPgid().getAsLong(), r.gpus(), java.util.OptionalLong.empty(),
                    java.util.Optional.empty(), devices.size() == r.gpus().size() ? devices : List.of(),
                    state.startedTicker(key)));
            // A stop asked of it goes on after a restart: a cancelled job must not be taken up as an ordinary run.
            state.stopping(key).ifPresent(out::add);
            return out;
        }
        if (!r.gpus().isEmpty()) {
            out.add(new JournalEvent.Started(key, JournalEvent.Started.NO_SESSION, r.gpus()));
            if (!r.terminal()) {
                out.add(new JournalEvent.Interrupted(key));
            }
        }
        if (r.terminal()) {
            out.add(new JournalEvent.Done(key, r.status(), r.returncode().orElse(0), r.peakMib(), OptionalDouble.empty()));
        }
        return out;
    }

    /** An oom line sets both attempts and the raised declaration; a retry line then zeroes the attempts. */
    private static void attempts(List<JournalEvent> out, String key, int attempts, JobRecord r) {
        if (attempts > 0) {
            out.add(new JournalEvent.Oom(key, Math.min(attempts, JournalCodec.MAX_ATTEMPTS), r.nextVramMib()));
        } else if (r.nextVramMib().isPresent()) {
            out.add(new JournalEvent.Oom(key, 1, r.nextVramMib()));
            out.add(new JournalEvent.Retry(key));
        }
    }

    private static Set<String> droppedSubmissions(JournalState state, int keep) {
        List<JournalEvent.Submitted> ended = state.submissions().stream()
                .filter(s -> state.record(s.key()).terminal())
                .sorted(Comparator.comparingInt(JournalEvent.Submitted::no).reversed()).toList();
        Set<String> dropped = new HashSet<>();
        for (int i = keep; i < ended.size(); i++) {
            dropped.add(ended.get(i).key());
        }
        return dropped;
    }
}

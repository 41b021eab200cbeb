package io.gpusched.journal;

import io.gpusched.jobs.JobKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The peaks {@code vram=auto} learns from, folded from the journal: for each command (by its hash) and
 * each requirement rule, the peak of its latest job that really ran to an end ({@code ok}, or
 * {@code timeout}: it ran at full size until stopped). "Latest" is the highest display number, a rerun of
 * the same number replacing its own; so the order of lines does not matter, and a compacted journal
 * learns the same. Failures, cancellations and OOMs teach nothing (a job that crashed early peaked low).
 * Pure: no files, no clock; owned by the thread that owns the {@link JournalState}.
 */
public final class PeakHistory {
    /** Outcomes whose peak is the job's real need. */
    private static final Set<String> TEACHING = Set.of("ok", "timeout");

    private final Map<String, Peak> peaks = new HashMap<>();
    /** The rule of each attempt in flight, from its {@code started} line, until its outcome. */
    private final Map<String, String> ruleOfRun = new HashMap<>();

    /** An empty history: nothing learned yet. */
    public PeakHistory() {
    }

    /**
     * A peak to learn from.
     *
     * @param no the display number of the job that peaked
     * @param mib its peak, the largest over its GPUs, in MiB (at least 1)
     */
    public record Peak(int no, long mib) {
    }

    /**
     * @param command a job's command
     * @return the peak of its latest teaching run, if any
     */
    public Optional<Peak> ofCommand(String command) {
        return Optional.ofNullable(peaks.get(JournalEvent.Learned.COMMAND + JobKeys.hash(command)));
    }

    /**
     * @param rule a requirement rule's name
     * @return the peak of the latest teaching run of any job that matched it, if any
     */
    public Optional<Peak> ofRule(String rule) {
        return Optional.ofNullable(peaks.get(JournalEvent.Learned.RULE + rule));
    }

    /** @return how many commands and rules have a peak */
    public int size() {
        return peaks.size();
    }

    /**
     * @return every peak held, by subject: {@code cmd:} and a command's hash, or {@code rule:} and a
     *     rule's name (a sorted copy)
     */
    public java.util.SortedMap<String, Peak> snapshot() {
        return java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(peaks));
    }

    /**
     * Folds one event in, after the job's record took it.
     *
     * @param e the event
     * @param record the job's record after {@code e} (for its number and command)
     */
    void apply(JournalEvent e, JobRecord record) {
        if (e instanceof JournalEvent.Started s) {
            if (s.rule().isPresent()) {
                ruleOfRun.put(s.key(), s.rule().get());
            } else {
                ruleOfRun.remove(s.key());
            }
        } else if (e instanceof JournalEvent.Done d) {
            String rule = ruleOfRun.remove(d.key());
            if (!TEACHING.contains(d.status())) {
                return;
            }
            long peak = 0;
            for (long mib : d.peakMib().values()) {
                peak = Math.max(peak, mib);
            }
            if (peak < 1 || record.no().isEmpty() || record.command().isEmpty()) {
                return;
            }
            int no = record.no().getAsInt();
            learn(JournalEvent.Learned.COMMAND + JobKeys.hash(record.command()), no, peak);
            if (rule != null) {
                learn(JournalEvent.Learned.RULE + rule, no, peak);
            }
        } else if (e instanceof JournalEvent.Interrupted || e instanceof JournalEvent.Requeued
                || e instanceof JournalEvent.Oom) {
            ruleOfRun.remove(e.key());
        }
    }

    /**
     * Folds a compacted journal's {@link JournalEvent.Learned} line in.
     *
     * @param l the line
     */
    void apply(JournalEvent.Learned l) {
        learn(l.key(), l.no(), l.peakMib());
    }

    private void learn(String subject, int no, long mib) {
        Peak had = peaks.get(subject);
        if (had == null || no >= had.no()) {
            peaks.put(subject, new Peak(no, mib));
        }
    }

    /**
     * @param keepCommands at most how many commands' peaks to keep: the most recent (by job number); rules'
     *     are all kept (a file holds a few)
     * @return the lines a compacted journal keeps of this history, in a stable order
     */
    List<JournalEvent.Learned> lines(int keepCommands) {
        List<JournalEvent.Learned> out = new ArrayList<>();
        peaks.entrySet().stream().filter(p -> p.getKey().startsWith(JournalEvent.Learned.COMMAND))
                .sorted(Map.Entry.<String, Peak>comparingByValue(java.util.Comparator.comparingInt(Peak::no)).reversed()
                        .thenComparing(Map.Entry.comparingByKey()))
                .limit(keepCommands)
                .forEach(p -> out.add(new JournalEvent.Learned(p.getKey(), p.getValue().no(), p.getValue().mib())));
        peaks.entrySet().stream().filter(p -> p.getKey().startsWith(JournalEvent.Learned.RULE))
                .sorted(Map.Entry.comparingByKey())
                .forEach(p -> out.add(new JournalEvent.Learned(p.getKey(), p.getValue().no(), p.getValue().mib())));
        return out;
    }
}

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
 * Each owner's jobs teach only that owner's: on a daemon shared by many users, another user's job of
 * the same command text (her own {@code train.py}, or one made to peak low) must not set what a user's
 * next job declares. The daemon's own user's peaks (jobs-file lines, and a user's own daemon) keep the
 * keys they always had; another owner's are keyed with the owner too.
 * Pure: no files, no clock; owned by the thread that owns the {@link JournalState}.
 */
public final class PeakHistory {
    /** Outcomes whose peak is the job's real need. */
    private static final Set<String> TEACHING = Set.of("ok", "timeout");

    private final Map<String, Peak> peaks = new HashMap<>();
    /** The rule of each attempt in flight, from its {@code started} line, until its outcome. */
    private final Map<String, String> ruleOfRun = new HashMap<>();
    /** The user this process runs as, whom a job without a submission (a jobs-file line) runs for. */
    private final String self = System.getProperty("user.name", "?");

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
     * @return the peak of its latest teaching run for this process's own user, if any
     */
    public Optional<Peak> ofCommand(String command) {
        return ofCommand(self, command);
    }

    /**
     * @param owner whom the job runs for
     * @param command a job's command
     * @return the peak of the latest teaching run of that owner's with that command, if any
     */
    public Optional<Peak> ofCommand(String owner, String command) {
        return Optional.ofNullable(peaks.get(commandKey(owner, command)));
    }

    /**
     * @param rule a requirement rule's name
     * @return the peak of the latest teaching run of any job of this process's own user that matched it, if any
     */
    public Optional<Peak> ofRule(String rule) {
        return ofRule(self, rule);
    }

    /**
     * @param owner whom the job runs for
     * @param rule a requirement rule's name
     * @return the peak of the latest teaching run of any job of that owner's that matched it, if any
     */
    public Optional<Peak> ofRule(String owner, String rule) {
        return Optional.ofNullable(peaks.get(ruleKey(owner, rule)));
    }

    /** A command's subject: its hash (fixed length, so the owner after it reads one way), and another owner's name. */
    private String commandKey(String owner, String command) {
        return JournalEvent.Learned.COMMAND + JobKeys.hash(command) + (owner.equals(self) ? "" : "@" + owner);
    }

    /** A rule's subject: its name, and another owner's name after a NUL (which no user name, and no sane rule name, holds). */
    private String ruleKey(String owner, String rule) {
        return JournalEvent.Learned.RULE + rule + (owner.equals(self) ? "" : "\0" + owner);
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
     * @param owner whom the job was submitted by; empty for a jobs-file line (this process's own user)
     */
    void apply(JournalEvent e, JobRecord record, Optional<String> owner) {
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
            String who = owner.orElse(self);
            learn(commandKey(who, record.command()), no, peak);
            if (rule != null) {
                learn(ruleKey(who, rule), no, peak);
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

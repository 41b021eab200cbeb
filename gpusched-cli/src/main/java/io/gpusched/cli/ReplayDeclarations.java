package io.gpusched.cli;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Requirements;
import io.gpusched.journal.JournalCodec;
import io.gpusched.journal.JournalEntries;
import io.gpusched.journal.JournalEntry;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.journal.LearnedVram;
import io.gpusched.journal.PeakHistory;
import io.gpusched.testkit.replay.ReplayJob;
import io.gpusched.testkit.replay.ReplayResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What {@code gpusched simulate} declares for each job, as a run would: the line's own attributes, then
 * what a learning line ({@code vram=auto}, or every undeclared line under {@code --auto-vram}) learned
 * from a journal's peaks, then its requirement rule's figure. And the journal a replay leaves, so the
 * next replay of the same sweep learns from this one.
 */
final class ReplayDeclarations {
    private final Requirements rules;
    private final boolean autoVram;
    private final PeakHistory history;
    private final double buffer;
    private final Map<Integer, String> ruleOf = new HashMap<>();
    private int learned;
    private int learning;

    /**
     * @param rules the requirement rules ({@link Requirements#NONE} without a file)
     * @param autoVram whether every undeclared line learns ({@code --auto-vram})
     * @param history the peaks to learn from (empty without {@code --learn-from})
     * @param buffer the spike buffer added to a learned peak
     */
    ReplayDeclarations(Requirements rules, boolean autoVram, PeakHistory history, double buffer) {
        this.rules = rules;
        this.autoVram = autoVram;
        this.history = history;
        this.buffer = buffer;
    }

    /**
     * @param journal a gpusched journal, a real run's or a replay's
     * @param warn takes one line per kind of line skipped (not a journal's, damaged), as {@code gpusched stats}
     *     says them: a file named by mistake would otherwise teach nothing, unsaid
     * @return the peaks it teaches
     * @throws UncheckedIOException when it cannot be read
     */
    static PeakHistory learnFrom(Path journal, java.util.function.Consumer<String> warn) {
        JournalState state = new JournalState();
        try {
            JournalEntries read = JournalEntries.read(journal);
            read.warnings().forEach(warn);
            for (JournalEntry e : read.entries()) {
                state.apply(e.event());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read --learn-from " + journal + ": " + e.getMessage(), e);
        }
        return state.peaks();
    }

    /**
     * @param jobs the replay's jobs as their lines declare them
     * @param specs the jobs file's lines, in order ({@code jobs} are numbered by them, from 1)
     * @return the jobs with what a run would declare for them
     */
    List<ReplayJob> declare(List<ReplayJob> jobs, List<JobSpec> specs) {
        List<ReplayJob> out = new ArrayList<>();
        for (ReplayJob j : jobs) {
            JobSpec line = specs.get(j.no() - 1);
            Requirements.Applied a = rules.apply(line, autoVram);
            JobSpec spec = a.spec();
            a.rule().ifPresent(r -> ruleOf.put(j.no(), r));
            java.util.OptionalLong vram = spec.vramMib();
            if (spec.learnVram()) {
                learning++;
                Optional<LearnedVram> l = LearnedVram.learn(spec.command(), a.rule(), history, buffer);
                if (l.isPresent()) {
                    learned++;
                    vram = java.util.OptionalLong.of(l.get().mib());
                }
            }
            out.add(new ReplayJob(j.no(), j.command(), vram, spec.gpus(), j.duration(), j.peakMib(), spec.timeout(),
                    j.arrival(), j.scheduling(), vram.isPresent() ? Optional.empty() : spec.share()));
        }
        return out;
    }

    /** @return e.g. {@code 40 of 40 learning jobs learned their declaration}; empty when no line learns */
    Optional<String> summary() {
        if (learning == 0) {
            return Optional.empty();
        }
        return Optional.of("vram=auto: " + learned + " of " + learning + " learning jobs declared what an earlier run"
                + " taught (peak + " + Math.round(buffer * 100) + "%)" + (learned < learning
                ? "; the rest asked for their rule's figure or ran alone" : ""));
    }

    /**
     * Writes the replay as a journal: each job that ran, with its actual peak on each of its GPUs, as a
     * run would have recorded it. Never over an existing file.
     *
     * @param file a new file
     * @param result the replay's result
     * @throws UsageException when the file exists
     * @throws UncheckedIOException when it cannot be written
     */
    void save(Path file, ReplayResult result) throws UsageException {
        JournalCodec codec = new JournalCodec();
        StringBuilder text = new StringBuilder();
        for (ReplayResult.Run run : result.runs()) {
            if (run.preempted()) {
                continue;
            }
            ReplayJob j = run.job();
            String key = io.gpusched.jobs.JobKeys.key(j.command(), j.no());
            Map<Integer, Long> peaks = new HashMap<>();
            j.peakMib().ifPresent(p -> run.gpus().forEach(g -> peaks.put(g, p)));
            for (JournalEvent e : List.of(new JournalEvent.Seen(key, j.no(), j.command()),
                    new JournalEvent.Started(key, JournalEvent.Started.NO_SESSION, run.gpus(), j.declaredMib(),
                            Optional.ofNullable(ruleOf.get(j.no()))),
                    new JournalEvent.Done(key, run.status().orElseThrow().journalName(), run.timedOut() ? 143 : 0, peaks,
                            OptionalDouble.empty()))) {
                text.append(codec.encode(e)).append('\n');
            }
        }
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw new UsageException("--save-journal " + file + " exists; give a new path (a replay never writes over a journal)");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write --save-journal " + file + ": " + e.getMessage(), e);
        }
    }
}

package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.jobs.JobKeys;
import io.gpusched.journal.Compaction;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.JournalCodec;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.journal.PeakHistory;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What {@code vram=auto} learns from ({@link PeakHistory}): the peak of the latest job (highest number) of
 * a command or rule that ended {@code ok} or {@code timeout} with memory seen, whatever the order of the
 * lines; and all of it survives compaction, the dropped submissions' peaks included, and the codec.
 */
class PeakHistoryPropertiesTest {
    private static final int TRIES = 1000;
    private static final List<String> STATUSES = List.of("ok", "failed", "timeout", "infeasible", "failed_oom", "cancelled");
    private static final List<String> RULES = List.of("qwen-7b", "llama-8b");

    /** A job's fixed identity, as in a real journal: its key, number and command never change. */
    private record Job(String key, int no, String command) {
    }

    /** Two commands, each run by a file line and a submission, with numbers that do not follow the lines' order. */
    private static final List<Job> JOBS = List.of(
            new Job(JobKeys.key("train a", 0), 4, "train a"),
            new Job(JobKeys.key("train a", 1), 2, "train a"),
            new Job("s7", 7, "train a"),
            new Job(JobKeys.key("eval b", 0), 1, "eval b"),
            new Job("s9", 9, "eval b"));

    /** Journals in which each job is seen (or submitted) once, first, then runs any number of times in any order. */
    static Gen<List<JournalEvent>> journals() {
        Gen<JournalEvent> run = (r, size) -> {
            Job j = JOBS.get(r.nextInt(JOBS.size()));
            return switch (r.nextInt(6)) {
                case 0 -> new JournalEvent.Started(j.key(), 2 + r.nextInt(90), List.of(r.nextInt(2)), OptionalLong.empty(),
                        r.nextBoolean() ? Optional.empty() : Optional.of(RULES.get(r.nextInt(RULES.size()))));
                case 1 -> new JournalEvent.Interrupted(j.key());
                case 2 -> new JournalEvent.Retry(j.key());
                case 3 -> new JournalEvent.Oom(j.key(), 1, OptionalLong.of(1000));
                default -> new JournalEvent.Done(j.key(), STATUSES.get(r.nextInt(STATUSES.size())), 0,
                        r.nextInt(4) == 0 ? Map.of() : peaks(r), OptionalDouble.empty());
            };
        };
        return (r, size) -> {
            List<JournalEvent> out = new ArrayList<>();
            for (Job j : JOBS) {
                // Submitted by the daemon's own user, whose submissions and jobs-file lines share one history.
                out.add(j.key().startsWith("s")
                        ? new JournalEvent.Submitted(j.key(), j.no(), j.command(), OptionalLong.empty(), 1, OptionalLong.empty(),
                        0, "api", System.getProperty("user.name", "?"), "/w", 7L, Optional.empty(), Optional.empty())
                        : new JournalEvent.Seen(j.key(), j.no(), j.command()));
            }
            out.addAll(Gen.listOf(run, 0, 40).next(r, size));
            return out;
        };
    }

    private static Map<Integer, Long> peaks(java.util.random.RandomGenerator r) {
        Map<Integer, Long> m = new HashMap<>();
        for (int gpu = 0; gpu <= r.nextInt(2); gpu++) {
            m.put(gpu, (long) r.nextInt(9000));
        }
        return m;
    }

    private static JournalState fold(List<? extends JournalEvent> events) {
        JournalState s = new JournalState();
        events.forEach(s::apply);
        return s;
    }

    /**
     * The oracle, written from the rule in the issue rather than from the fold: walk the lines, remember
     * each run's rule from its start, and let a teaching outcome replace a subject's peak unless a job of
     * a higher number taught it already.
     */
    private static Map<String, PeakHistory.Peak> expected(List<JournalEvent> events) {
        Map<String, Job> byKey = new HashMap<>();
        JOBS.forEach(j -> byKey.put(j.key(), j));
        Map<String, String> ruleOfRun = new HashMap<>();
        Map<String, PeakHistory.Peak> out = new TreeMap<>();
        for (JournalEvent e : events) {
            if (e instanceof JournalEvent.Started s) {
                s.rule().ifPresentOrElse(rule -> ruleOfRun.put(s.key(), rule), () -> ruleOfRun.remove(s.key()));
            } else if (e instanceof JournalEvent.Done d) {
                String rule = ruleOfRun.remove(d.key());
                long peak = d.peakMib().values().stream().mapToLong(Long::longValue).max().orElse(0);
                if (!Set.of("ok", "timeout").contains(d.status()) || peak < 1) {
                    continue;
                }
                Job j = byKey.get(d.key());
                List<String> subjects = new ArrayList<>(List.of("cmd:" + JobKeys.hash(j.command())));
                if (rule != null) {
                    subjects.add("rule:" + rule);
                }
                for (String subject : subjects) {
                    PeakHistory.Peak had = out.get(subject);
                    if (had == null || j.no() >= had.no()) {
                        out.put(subject, new PeakHistory.Peak(j.no(), peak));
                    }
                }
            } else if (e instanceof JournalEvent.Interrupted || e instanceof JournalEvent.Requeued
                    || e instanceof JournalEvent.Oom) {
                // The run ended without an outcome: the next start says its own rule.
                ruleOfRun.remove(e.key());
            }
        }
        return out;
    }

    private static boolean launching(JournalState s) {
        return s.records().values().stream().anyMatch(JobRecord::launching);
    }

    @Test
    void theLatestJobThatRanToAnEndTeachesItsCommandAndRule() {
        Property.forAll(journals()).tries(TRIES).check(events ->
                assertEquals(expected(events), fold(events).peaks().snapshot()));
    }

    @Test
    void compactionKeepsEveryLearnedPeak_evenOfTheSubmissionsItDrops() {
        Property.forAll(journals().filter(j -> !launching(fold(j))).with(Gen.ints(0, 2), Map::entry)).tries(TRIES)
                .check(c -> {
                    JournalState a = fold(c.getKey());
                    JournalState b = fold(Compaction.of(a, c.getValue()));
                    assertEquals(a.peaks().snapshot(), b.peaks().snapshot());
                });
    }

    @Test
    void learnedPeaksReadBackThroughTheCodec() {
        JournalCodec codec = new JournalCodec();
        Property.forAll(journals().filter(j -> !launching(fold(j)))).tries(300).check(events -> {
            JournalState a = fold(events);
            List<JournalEvent> lines = new ArrayList<>();
            for (JournalEvent e : Compaction.of(a, 0)) {
                lines.add(codec.decode(codec.encode(e)).orElseThrow());
            }
            assertEquals(a.peaks().snapshot(), fold(lines).peaks().snapshot());
        });
    }
}

package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.journal.Compaction;
import io.gpusched.journal.JobRecord;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journal compaction: the compacted events fold to the same state — every job's number, status,
 * attempts, raised declaration, run in flight, last GPUs and outcome, the next numbers, the paused
 * GPUs — less only the ended submissions beyond the history kept; and through the real file too.
 */
class JournalCompactionPropertiesTest {
    private static final int TRIES = 1000;
    private static final List<String> KEYS = List.of("aaaaaaaaaaaa#0", "bbbbbbbbbbbb#1", "s1", "s2");
    private static final List<String> STATUSES = List.of("ok", "failed", "timeout", "infeasible", "failed_oom", "cancelled");

    @TempDir
    Path dir;

    /** Journals over a few keys, so each job goes through many events in any order. */
    static Gen<List<JournalEvent>> journals() {
        Gen<String> key = Gen.elements(KEYS.toArray(String[]::new));
        Gen<List<Integer>> gpus = Gen.listOf(Gen.ints(0, 3), 0, 3);
        Gen<JournalEvent> event = (r, size) -> {
            String k = key.next(r, size);
            switch (r.nextInt(10)) {
                case 0:
                    return new JournalEvent.Seen(k, Gen.ints(1, 6).next(r, size), r.nextBoolean() ? "a" : "b");
                case 1:
                    return k.startsWith("s") ? new JournalEvent.Submitted(k, Integer.parseInt(k.substring(1)), "cmd " + k,
                            r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(1 + r.nextInt(9000)), 1 + r.nextInt(2),
                            OptionalLong.empty(), r.nextInt(3), "api", "u", "/w", 7L,
                            r.nextBoolean() ? java.util.Optional.empty() : java.util.Optional.of(java.util.Map.of("HOME", "/h")), java.util.Optional.empty())
                            : new JournalEvent.Interrupted(k);
                case 2:
                    return new JournalEvent.Launching(k, Gen.longs(1, 9).next(r, size), gpus.next(r, size));
                case 3:
                    return new JournalEvent.Started(k, Gen.longs(2, 99).next(r, size), gpus.next(r, size));
                case 4:
                    return new JournalEvent.Interrupted(k);
                case 5:
                    return new JournalEvent.Retry(k);
                case 6:
                    return new JournalEvent.Oom(k, Gen.ints(1, 3).next(r, size),
                            r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(1 + r.nextInt(9000)));
                case 7:
                    int gpu = r.nextInt(3);
                    // Few devices over few indices: a device paused at one index and resumed at another, an
                    // index paused beside a device journaled there, as renumberings leave them.
                    java.util.Optional<String> device = r.nextBoolean() ? java.util.Optional.empty()
                            : java.util.Optional.of("GPU-" + "abc".charAt(r.nextInt(3)));
                    return new JournalEvent.GpuPaused(JournalEvent.GpuPaused.keyOf(gpu), gpu, device, r.nextBoolean());
                default:
                    return new JournalEvent.Done(k, STATUSES.get(r.nextInt(STATUSES.size())), r.nextInt(300) - 5,
                            r.nextBoolean() ? Map.of() : Map.of(r.nextInt(3), (long) r.nextInt(9000)), OptionalDouble.empty());
            }
        };
        return Gen.listOf(event, 0, 30);
    }

    private static JournalState fold(List<? extends JournalEvent> events) {
        JournalState s = new JournalState();
        events.forEach(s::apply);
        return s;
    }

    private static boolean launching(JournalState s) {
        return s.records().values().stream().anyMatch(JobRecord::launching);
    }

    /** What the scheduler acts on; the exit code and peaks only once a job has ended. */
    private static String essence(JobRecord r) {
        return r.no() + " " + r.command() + " " + r.status() + " attempts=" + r.attempts() + " next=" + r.nextVramMib()
                + " pgid=" + r.runningPgid() + " run=" + r.run() + " gpus=" + r.gpus()
                + (r.terminal() ? " rc=" + r.returncode() + " peaks=" + r.peakMib() : "");
    }

    private static void assertSameState(JournalState a, JournalState b, Set<String> dropped) {
        for (Map.Entry<String, JobRecord> e : a.records().entrySet()) {
            if (!dropped.contains(e.getKey())) {
                assertEquals(essence(e.getValue()), essence(b.record(e.getKey())), e.getKey());
            }
        }
        assertEquals(a.nextNo(), b.nextNo(), "next number");
        assertEquals(a.nextRun(), b.nextRun(), "next run");
        assertEquals(a.pausedGpus(), b.pausedGpus(), "paused GPUs");
        assertEquals(a.pauses(), b.pauses(), "pauses, each of a device or of an index");
        assertEquals(a.submissions().stream().filter(s -> !dropped.contains(s.key())).toList(),
                List.copyOf(b.submissions()), "submissions");
    }

    @Test
    void compactedEventsFoldToTheSameState() {
        Property.forAll(journals().filter(j -> !launching(fold(j)))).tries(TRIES).check(events -> {
            JournalState a = fold(events);
            assertSameState(a, fold(Compaction.of(a, Integer.MAX_VALUE)), Set.of());
        });
    }

    @Test
    void onlyEndedSubmissionsBeyondTheKeptHistoryAreDropped_theNewestKept() {
        Property.forAll(journals().filter(j -> !launching(fold(j))).with(Gen.ints(0, 2), Map::entry)).tries(TRIES)
                .check(c -> {
                    JournalState a = fold(c.getKey());
                    int keep = c.getValue();
                    List<String> ended = a.submissions().stream().filter(s -> a.record(s.key()).terminal())
                            .sorted((x, y) -> Integer.compare(y.no(), x.no())).map(JournalEvent.Submitted::key).toList();
                    Set<String> dropped = ended.stream().skip(keep).collect(Collectors.toSet());
                    JournalState b = fold(Compaction.of(a, keep));
                    assertSameState(a, b, dropped);
                    assertTrue(dropped.stream().noneMatch(b.records()::containsKey), "dropped submissions are gone");
                });
    }

    @Test
    void aJournalRewrittenOnDiskReadsBackAsTheSameState() {
        Property.forAll(journals().filter(j -> !launching(fold(j)))).tries(200).check(events -> {
            Path file;
            try {
                file = Files.createTempDirectory(dir, "j").resolve("journal.jsonl");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            JournalState before = fold(events);
            JournalEvent after = new JournalEvent.Seen("cccccccccccc#0", 99, "after");
            try (Journal j = Journal.open(file, false)) {
                j.append(events);
                j.rewrite(Compaction.of(j.state(), Integer.MAX_VALUE));
                assertSameState(before, j.state(), Set.of());
                j.append(after);
            }
            before.apply(after);
            try (Journal again = Journal.open(file, false)) {
                assertEquals(List.of(), again.loadWarnings());
                assertSameState(before, again.state(), Set.of());
                assertEquals("after", again.state().record("cccccccccccc#0").command(), "appends go to the new file");
                assertTrue(!Files.exists(file.resolveSibling("journal.jsonl.compact")));
            }
        });
    }
}

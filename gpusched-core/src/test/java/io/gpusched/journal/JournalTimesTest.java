package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The times a scheduler's journal lines carry ({@code at_ms}) for {@code gpusched stats}, and reading a
 * journal back without touching it.
 */
class JournalTimesTest {
    @TempDir
    Path dir;

    private static final JournalEvent.Started STARTED = new JournalEvent.Started("k#0", 4242, List.of(0), OptionalLong.of(8000));
    private static final JournalEvent.Done DONE = new JournalEvent.Done("k#0", "ok", 0, Map.of(0, 7800L), OptionalDouble.empty());

    @Test
    void aClockedJournalDatesEveryLine_fromItsClock_andTheDatesReadBack() throws Exception {
        AtomicLong now = new AtomicLong(1_000);
        InstantSource clock = () -> Instant.ofEpochMilli(now.get());
        Path f = dir.resolve("journal.jsonl");
        try (Journal j = Journal.open(f, false, clock)) {
            j.append(new JournalEvent.Seen("k#0", 1, "python train.py"));
            now.set(2_500);
            j.append(List.of(STARTED, new JournalEvent.Oom("k#0", 1, OptionalLong.of(10000))));
            now.set(4_000);
            j.append(DONE);
        }
        List<String> lines = Files.readAllLines(f);
        assertEquals("{\"key\":\"k#0\",\"event\":\"seen\",\"no\":1,\"command\":\"python train.py\",\"at_ms\":1000}", lines.get(0));
        assertEquals("{\"key\":\"k#0\",\"event\":\"started\",\"pgid\":4242,\"gpus\":[0],\"vram\":8000,\"at_ms\":2500}", lines.get(1));
        JournalEntries read = JournalEntries.read(f);
        assertEquals(List.of(JournalEntry.at(new JournalEvent.Seen("k#0", 1, "python train.py"), 1_000),
                JournalEntry.at(STARTED, 2_500), JournalEntry.at(new JournalEvent.Oom("k#0", 1, OptionalLong.of(10000)), 2_500),
                JournalEntry.at(DONE, 4_000)), read.entries());
        assertEquals(List.of(), read.warnings());
        // The scheduler's fold is the same with or without times.
        try (Journal j = Journal.open(f, false)) {
            assertEquals("ok", j.state().record("k#0").status());
        }
    }

    @Test
    void aJournalOpenedWithoutAClockWritesNoTimes_andACompactionDropsThem() throws Exception {
        Path f = dir.resolve("journal.jsonl");
        try (Journal j = Journal.open(f, false)) {
            j.append(STARTED);
        }
        assertEquals(OptionalLong.empty(), JournalEntries.read(f).entries().get(0).atMillis());
        try (Journal j = Journal.open(f, false, () -> Instant.ofEpochMilli(7))) {
            j.append(DONE);
            assertEquals(OptionalLong.of(7), JournalEntries.read(f).entries().get(1).atMillis());
            // A compaction's lines stand for many moments: none is claimed.
            j.rewrite(Compaction.of(j.state(), 1000));
        }
        assertTrue(JournalEntries.read(f).entries().stream().allMatch(e -> e.atMillis().isEmpty()));
    }

    @Test
    void readingBackLeavesATornLastLineOutSilently_butWarnsOfDamageInside() throws Exception {
        JournalCodec codec = new JournalCodec();
        Path f = Files.writeString(dir.resolve("journal.jsonl"), codec.encode(JournalEntry.at(STARTED, 5)) + "\n"
                + "garbage\n" + codec.encode(DONE) + "\n" + "{\"key\":\"k#0\",\"event\":\"do");
        byte[] before = Files.readAllBytes(f);
        JournalEntries read = JournalEntries.read(f);
        assertEquals(List.of(JournalEntry.at(STARTED, 5), JournalEntry.untimed(DONE)), read.entries());
        assertEquals(1, read.warnings().size(), read.warnings().toString());
        assertTrue(read.warnings().get(0).contains("skipped 1 unreadable line (first at line 2)"), read.warnings().get(0));
        assertEquals(new String(before), Files.readString(f), "only read: not completed, not cut");
        assertEquals(List.of("journal.jsonl"), Files.list(dir).map(p -> p.getFileName().toString()).toList(),
                "no lock file, nothing beside it");
    }
}

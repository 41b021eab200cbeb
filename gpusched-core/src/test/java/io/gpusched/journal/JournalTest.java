package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalTest {
    @TempDir
    Path dir;

    /** Lines exactly as the Python original writes them (json.dumps with its default separators). */
    private static final String ORIGINAL = String.join("\n",
            "{\"key\": \"e855ec027199#0\", \"event\": \"seen\", \"no\": 1, \"command\": \"python train.py\"}",
            "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"seen\", \"no\": 2, \"command\": \"python eval.py\"}",
            "{\"key\": \"e855ec027199#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": [0]}",
            "{\"key\": \"e855ec027199#0\", \"event\": \"oom\", \"attempts\": 1, \"next_vram\": 9750}",
            "{\"key\": \"e855ec027199#0\", \"event\": \"started\", \"pgid\": 4243, \"gpus\": [1]}",
            "{\"key\": \"e855ec027199#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"1\": 7800}, \"avg_util\": 84.0}",
            "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"started\", \"pgid\": 5000, \"gpus\": [0, 1]}",
            "");

    @Test
    void aJournalFileIsReadBack_aJournalInMemoryNever() throws Exception {
        // What the engine leaves out of events nobody reads back (a submission's line) hangs on this.
        try (Journal j = Journal.open(dir.resolve("journal.jsonl"), false)) {
            assertTrue(j.readBack(), "a restart parses the file's lines");
        }
        MemoryJournal m = new MemoryJournal(dir.resolve("never.jsonl"));
        assertFalse(m.readBack(), "only the state of a journal in memory is read");
        assertFalse(Files.exists(dir.resolve("never.jsonl")));
    }

    @Test
    void journalWrittenByTheOriginalToolLoads() throws Exception {
        Path f = Files.writeString(dir.resolve("journal.jsonl"), ORIGINAL);
        try (Journal j = Journal.open(f, false)) {
            JobRecord train = j.state().record("e855ec027199#0");
            assertEquals("ok", train.status());
            assertTrue(train.terminal());
            assertEquals(2, train.attempts());
            assertEquals(OptionalLong.of(9750), train.nextVramMib());
            assertEquals(Map.of(1, 7800L), train.peakMib());
            JobRecord eval = j.state().record("aaaaaaaaaaaa#0");
            assertEquals(OptionalLong.of(5000), eval.runningPgid(), "started without outcome: an orphan candidate");
            assertEquals(3, j.state().nextNo());
            assertTrue(j.loadWarnings().isEmpty());
        }
    }

    @Test
    void tornLastLineAndGarbageAreSkippedWithOneWarningAndGoodEventsKept() throws Exception {
        String text = ORIGINAL.lines().limit(2).reduce("", (a, b) -> a + b + "\n")
                + "\u0000\u00ff garbage {]\n"
                + ORIGINAL.lines().skip(2).limit(3).reduce("", (a, b) -> a + b + "\n")
                + "{\"key\": \"e855ec027199#0\", \"event\": \"do";   // torn by a crash mid-write
        Path f = Files.writeString(dir.resolve("journal.jsonl"), text);
        try (Journal j = Journal.open(f, false)) {
            assertEquals("running", j.state().record("e855ec027199#0").status());
            assertEquals(1, j.loadWarnings().size());
            assertTrue(j.loadWarnings().get(0).contains("skipped 2 unreadable lines (first at line 3)"), j.loadWarnings().toString());
            // The next append starts on a fresh line, not glued to the torn fragment.
            j.append(new JournalEvent.Interrupted("e855ec027199#0"));
        }
        try (Journal again = Journal.open(f, false)) {
            assertEquals("pending", again.state().record("e855ec027199#0").status());
        }
    }

    @Test
    void unknownEventTypeFromANewerVersionIsIgnoredWithAWarning() throws Exception {
        Path f = Files.writeString(dir.resolve("journal.jsonl"),
                ORIGINAL + "{\"key\": \"e855ec027199#0\", \"event\": \"paused\", \"by\": \"someone\"}\n");
        try (Journal j = Journal.open(f, false)) {
            assertEquals("ok", j.state().record("e855ec027199#0").status());
            assertTrue(j.loadWarnings().get(0).contains("ignored 1 event of a type this version does not know"));
        }
    }

    @Test
    void appendedEventsRoundTripThroughTheFile() throws Exception {
        Path f = dir.resolve("logs/journal.jsonl");
        List<JournalEvent> events = List.of(
                new JournalEvent.Seen("k#0", 1, "echo \"quoted\" $HOME ü"),
                new JournalEvent.Started("k#0", 77, List.of(0, 2)),
                new JournalEvent.Oom("k#0", 1, OptionalLong.empty()),
                new JournalEvent.Done("k#0", "failed_oom", 1, Map.of(0, 10L, 2, 12L), OptionalDouble.of(55.5)));
        try (Journal j = Journal.open(f, false)) {
            j.append(events);
        }
        JournalCodec codec = new JournalCodec();
        List<String> lines = Files.readAllLines(f);
        assertEquals(4, lines.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(events.get(i), codec.decode(lines.get(i)).orElseThrow());
        }
        try (Journal j = Journal.open(f, false)) {
            assertEquals("failed_oom", j.state().record("k#0").status());
        }
    }

    @Test
    void freshRemovesTheJournal() throws Exception {
        Path f = Files.writeString(dir.resolve("journal.jsonl"), ORIGINAL);
        try (Journal j = Journal.open(f, true)) {
            assertTrue(j.state().records().isEmpty());
        }
        assertFalse(Files.readString(f).contains("seen"));
    }
}

package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalGroupedForceTest {
    @TempDir
    Path dir;

    @Test
    void appendUnforced_foldsAtOnceAndForceClearsTheFlag() throws Exception {
        Path file = dir.resolve("journal.jsonl");
        try (Journal j = Journal.open(file, true)) {
            j.appendUnforced(List.of(new JournalEvent.Seen("a#0", 1, "a")));
            j.appendUnforced(List.of(new JournalEvent.Seen("b#0", 2, "b")));
            assertTrue(j.hasUnforced());
            assertTrue(j.state().record("b#0").no().isPresent(), "folded before the force");
            j.force();
            assertFalse(j.hasUnforced());
            j.force(); // nothing to do
        }
        assertEquals(2, Files.readAllLines(file).size());
        try (Journal again = Journal.open(file, false)) {
            assertEquals(3, again.state().nextNo());
        }
    }

    @Test
    void append_forcesEarlierUnforcedWritesToo() throws Exception {
        Path file = dir.resolve("journal.jsonl");
        try (Journal j = Journal.open(file, true)) {
            j.appendUnforced(List.of(new JournalEvent.Seen("a#0", 1, "a")));
            j.append(List.of(new JournalEvent.Seen("b#0", 2, "b")));
            assertFalse(j.hasUnforced());
        }
        assertEquals(2, Files.readAllLines(file).size());
    }
}

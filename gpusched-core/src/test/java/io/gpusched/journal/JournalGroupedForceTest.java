package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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

    @Test
    void aForceHandedOver_keepsTheLinesUnforcedUntilItEnds_andCountsOnce() throws Exception {
        Path file = dir.resolve("journal.jsonl");
        try (Journal j = Journal.open(file, true)) {
            j.appendUnforced(List.of(new JournalEvent.Seen("a#0", 1, "a")));
            JournalStore.PendingForce f = j.beginForce().orElseThrow();
            assertTrue(j.hasUnforced(), "not forced until its fsync ran and ended");
            // Writes go on while it is handed over; they need a force of their own.
            j.appendUnforced(List.of(new JournalEvent.Seen("b#0", 2, "b")));
            Thread other = new Thread(f::sync);
            other.start();
            other.join();
            assertEquals(0, j.forces());
            j.endForce(f);
            assertEquals(1, j.forces());
            assertTrue(j.hasUnforced(), "b came after the force was begun");
            JournalStore.PendingForce g = j.beginForce().orElseThrow();
            g.sync();
            j.endForce(g);
            assertFalse(j.hasUnforced());
            assertTrue(j.beginForce().isEmpty(), "nothing left to force");
            assertThrows(IllegalStateException.class, () -> j.endForce(g), "ended twice");
        }
        assertEquals(2, Files.readAllLines(file).size());
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** {@code queue --format}'s two spellings, its widths and its refusals; the table's time and memory words. */
class QueueFormatTest {
    @Test
    void percentFieldsAndNamesSpellTheSameColumns() {
        QueueFormat percent = QueueFormat.parse("%i %u|%.6M %30c");
        assertEquals(List.of(new QueueFormat.Column(QueueFormat.Field.JOB, OptionalInt.empty(), false),
                new QueueFormat.Column(QueueFormat.Field.USER, OptionalInt.empty(), false),
                new QueueFormat.Column(QueueFormat.Field.TIME, OptionalInt.of(6), true),
                new QueueFormat.Column(QueueFormat.Field.COMMAND, OptionalInt.of(30), false)), percent.columns());
        assertEquals(percent, QueueFormat.parse("job, user, time:.6, COMMAND:30"));
    }

    @Test
    void percentKIsTitledCommentAsInSqueue_whileCommentIsTheOneShownAttribute() {
        assertEquals(List.of(io.gpusched.jobs.Attribute.COMMENT), io.gpusched.jobs.Attribute.SHOWN);
        assertEquals("COMMENT", QueueFormat.parse("%k").columns().get(0).title());
        assertEquals("COMMENT", QueueFormat.parse("comment").columns().get(0).title());
        assertEquals("JOB", QueueFormat.parse("%i").columns().get(0).title());
    }

    @Test
    void aBadSpecIsOneLineNamingTheFields() {
        UsageException e = assertThrows(UsageException.class, () -> QueueFormat.parse("%i %q"));
        assertEquals("--format: unknown field %q; " + QueueFormat.known(), e.getMessage());
        assertTrue(e.getMessage().contains("%r reason") && e.getMessage().contains("%x exit"), e.getMessage());
        assertThrows(UsageException.class, () -> QueueFormat.parse("%i %"));
        assertThrows(UsageException.class, () -> QueueFormat.parse("%0c"));
        assertThrows(UsageException.class, () -> QueueFormat.parse("%99999999999c"));
        assertThrows(UsageException.class, () -> QueueFormat.parse("job:x"));
        assertThrows(UsageException.class, () -> QueueFormat.parse(""));
        assertThrows(UsageException.class, () -> QueueFormat.parse("no percent here"));
    }

    @Test
    void timeReadsLikeSqueue_andMemoryInMiBOrGiB() {
        assertEquals(List.of("0s", "59s", "1m00s", "6m16s", "1h02m", "23h59m", "1d00h", "2d04h"),
                List.of(0L, 59L, 60L, 376L, 3720L, 86_399L, 86_400L, 187_200L).stream().map(QueueTable::duration).toList());
        assertEquals(List.of("0M", "512M", "1G", "7.5G", "24G", "23.4G", "141G"),
                List.of(0L, 512L, 1024L, 7680L, 24_576L, 24_000L, 144_384L).stream().map(QueueTable::mib).toList());
    }

    @Test
    void asciiSpellsOutTheSymbols_andQuestionMarksTheRest() {
        assertEquals("needs >= 1536 MiB - x job 2 ... naive ?", QueueTable.ascii("needs ≥ 1536 MiB — ✗ job 2 … naive 日"));
    }
}

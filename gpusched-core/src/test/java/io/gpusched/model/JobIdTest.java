package io.gpusched.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Job ids and states read from the journal's spellings, and spelled back the same. */
class JobIdTest {
    @Test
    void aSubmissionKeyIsItsNumber_andEveryOtherKeyAFileLine() {
        assertEquals(new JobId.Submission(7), JobId.of("s7"));
        assertEquals("s7", JobId.of("s7").key());
        for (String key : List.of("e855ec027199#0", "k#0", "s", "s0", "s07", "sleep", "s-1", "s99999999999")) {
            JobId id = JobId.of(key);
            assertInstanceOf(JobId.FileLine.class, id, key);
            assertEquals(key, id.key());
        }
        assertThrows(IllegalArgumentException.class, () -> new JobId.Submission(0));
    }

    @Test
    void everyStateSpellsAsTheJournalDoes_andOnlyOutcomesAreTerminal() {
        for (JobState s : JobState.values()) {
            assertEquals(s, JobState.fromJournal(s.journalName()));
            assertEquals(s.outcome().isPresent(), s.terminal());
        }
        assertEquals("pending", JobState.PENDING.journalName());
        assertEquals("launching", JobState.LAUNCHING.journalName());
        assertEquals("dependency_failed", JobState.of(JobStatus.DEPENDENCY_FAILED).journalName());
        assertFalse(JobState.RUNNING.terminal());
        assertTrue(JobState.CANCELLED.terminal());
        assertThrows(IllegalArgumentException.class, () -> JobState.fromJournal("done"));
    }
}

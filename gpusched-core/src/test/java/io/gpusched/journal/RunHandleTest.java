package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The one number a started line holds, read as what runs: a session, a lease, or an unknown session. */
class RunHandleTest {
    @Test
    void aStartedLinesPgidDecodesToItsKind_andEncodesBackToTheSameNumber() {
        assertEquals(new RunHandle.Session(4242), RunHandle.ofPgid(4242));
        assertEquals(new RunHandle.Lease(3), RunHandle.ofPgid((1L << 29) + 3));
        assertEquals(new RunHandle.Unknown(), RunHandle.ofPgid(Integer.MAX_VALUE));
        for (long pgid : List.of(2L, 4242L, (1L << 29), (1L << 29) + 3, (1L << 30) - 1, 1L << 30, (long) Integer.MAX_VALUE)) {
            assertEquals(pgid, RunHandle.ofPgid(pgid).pgid(), "pgid " + pgid);
        }
        assertEquals(JournalEvent.Started.NO_SESSION, new RunHandle.Unknown().pgid());
    }

    @Test
    void aFoldedRecordCarriesItsStateAndHandle_andSpellsItsStatusAsBefore() {
        JournalState s = new JournalState();
        s.apply(new JournalEvent.Seen("k#0", 1, "train"));
        assertEquals("pending", s.record("k#0").status());
        assertTrue(s.record("k#0").handle().isEmpty());
        s.apply(new JournalEvent.Launching("k#0", 5, List.of(0)));
        assertEquals(io.gpusched.model.JobState.LAUNCHING, s.record("k#0").state());
        s.apply(new JournalEvent.Started("k#0", (1L << 29) + 5, List.of(0)));
        assertEquals("running", s.record("k#0").status());
        assertEquals(new RunHandle.Lease(5), s.record("k#0").handle().orElseThrow());
        s.apply(new JournalEvent.Done("k#0", "failed_oom", 1, Map.of(), OptionalDouble.empty()));
        assertEquals("failed_oom", s.record("k#0").status());
        assertTrue(s.record("k#0").terminal());
        assertEquals(Set.of("ok", "failed", "timeout", "infeasible", "failed_oom", "cancelled", "dependency_failed"),
                JobRecord.TERMINAL);
        assertEquals(OptionalLong.empty(), s.record("k#0").runningPgid());
    }
}

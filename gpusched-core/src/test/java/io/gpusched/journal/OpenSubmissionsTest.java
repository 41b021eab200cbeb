package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Each owner's submissions that have not ended, as the journal folds: what the per-user cap counts. */
class OpenSubmissionsTest {
    private static JournalEvent.Submitted submitted(int no, String owner) {
        return new JournalEvent.Submitted("s" + no, no, "true", OptionalLong.empty(), 1, OptionalLong.empty(), 0, "api",
                owner, "/w", 7L, Optional.empty(), Optional.empty());
    }

    @Test
    void aSubmissionCountsForItsOwnerUntilItEnds_andAgainWhenAFailedOneIsRetried() {
        JournalState state = new JournalState();
        state.apply(submitted(1, "ada"));
        state.apply(submitted(2, "ada"));
        state.apply(submitted(3, "bob"));
        state.apply(new JournalEvent.Seen("f#0", 4, "file line"));
        assertEquals(2, state.openSubmissions("ada"));
        assertEquals(1, state.openSubmissions("bob"));
        assertEquals(0, state.openSubmissions("eve"));

        state.apply(new JournalEvent.Started("s1", 50, java.util.List.of(0), OptionalLong.empty(), Optional.empty()));
        assertEquals(2, state.openSubmissions("ada"), "running has not ended");
        state.apply(new JournalEvent.Done("s1", "failed", 1, Map.of(), OptionalDouble.empty()));
        assertEquals(1, state.openSubmissions("ada"));
        state.apply(new JournalEvent.Done("s2", "cancelled", 0, Map.of(), OptionalDouble.empty()));
        assertEquals(0, state.openSubmissions("ada"));
        state.apply(new JournalEvent.Retry("s1"));
        assertEquals(1, state.openSubmissions("ada"), "a failed job run again is queued again");
        assertEquals(1, state.openSubmissions("bob"));
    }
}

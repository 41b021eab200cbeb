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

    @Test
    void everyDisplayNumberNamesItsJob_aNumberFarPastTheOthersToo_andALaterLineForANumberWins() {
        JournalState state = new JournalState();
        for (int no = 1; no <= 5_000; no++) {
            state.apply(no % 2 == 0 ? submitted(no, "ada") : new JournalEvent.Seen("f#" + no, no, "line " + no));
        }
        state.apply(new JournalEvent.Seen("far", Integer.MAX_VALUE - 1, "hand-edited")); // no array that long
        state.apply(new JournalEvent.Seen("near-far", 9_000, "past the array's end"));
        assertEquals(Optional.of("f#1"), state.keyOf(1));
        assertEquals(Optional.of("s4998"), state.keyOf(4_998));
        assertEquals(Optional.of("far"), state.keyOf(Integer.MAX_VALUE - 1));
        assertEquals(Optional.of("near-far"), state.keyOf(9_000));
        assertEquals(Optional.empty(), state.keyOf(5_001));
        assertEquals(Optional.empty(), state.keyOf(0));
        assertEquals(Optional.empty(), state.keyOf(-1));
        state.apply(new JournalEvent.Seen("again", 9_000, "the same number written again"));
        assertEquals(Optional.of("again"), state.keyOf(9_000));
        for (int no = 5_001; no <= 20_000; no++) { // the array grows past 9,000 and the far one
            state.apply(new JournalEvent.Seen("g#" + no, no, "line " + no));
        }
        assertEquals(Optional.of("g#9000"), state.keyOf(9_000), "the later line for a number wins");
        assertEquals(Optional.of("far"), state.keyOf(Integer.MAX_VALUE - 1));
    }
}

package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The slurm_submitted line: its codec, and what the fold keeps of it (the attempt in flight, nothing else). */
class SlurmSubmittedTest {
    private final JournalCodec codec = new JournalCodec();

    @Test
    void aSlurmSubmissionRoundTrips_andItsFieldsAreCheckedLikeEveryOthers() {
        JournalEvent.SlurmSubmitted s = new JournalEvent.SlurmSubmitted("k#0", 4_294_967_295L, "shard:2");
        String line = codec.encode(s);
        assertEquals("{\"key\":\"k#0\",\"event\":\"slurm_submitted\",\"slurm_job\":4294967295,\"gres\":\"shard:2\"}", line);
        assertEquals(s, codec.decode(line).orElseThrow());
        for (String bad : List.of("\"slurm_job\":0,\"gres\":\"gpu:1\"", "\"slurm_job\":4294967296,\"gres\":\"gpu:1\"",
                "\"slurm_job\":1.5,\"gres\":\"gpu:1\"", "\"slurm_job\":7", "\"gres\":\"gpu:1\"", "\"slurm_job\":7,\"gres\":3")) {
            assertThrows(IllegalArgumentException.class,
                    () -> codec.decode("{\"key\":\"k#0\",\"event\":\"slurm_submitted\"," + bad + "}"), bad);
        }
    }

    @Test
    void theFoldNamesTheAttemptInFlightUntilItsOutcome_andLeavesTheJobsRecordAsItWas() {
        JournalState state = new JournalState();
        state.apply(new JournalEvent.Seen("k#0", 1, "train"));
        JobRecord before = state.record("k#0");
        state.apply(new JournalEvent.SlurmSubmitted("k#0", 41, "shard:2"));
        assertEquals(before, state.record("k#0"), "not an outcome, not a start");
        assertEquals(OptionalLong.of(41), state.slurmJob("k#0"));
        state.apply(new JournalEvent.Oom("k#0", 1, OptionalLong.of(2500)));
        assertTrue(state.slurmJob("k#0").isEmpty(), "an OOM ends the attempt");
        state.apply(new JournalEvent.SlurmSubmitted("k#0", 42, "shard:3"));
        assertEquals(OptionalLong.of(42), state.slurmJob("k#0"), "the retry's");
        state.apply(new JournalEvent.Done("k#0", "ok", 0, Map.of(0, 2400L), OptionalDouble.empty()));
        assertTrue(state.slurmJob("k#0").isEmpty());
        assertTrue(new JournalState().slurmJob("k#0").isEmpty(), "never submitted");
    }
}

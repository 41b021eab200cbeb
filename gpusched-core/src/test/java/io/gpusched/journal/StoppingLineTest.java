package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The {@code stopping} line, which makes a cancel (a timeout, a preemption) outlive the scheduler that
 * asked it: its codec, what the fold keeps of it (the attempt in flight's stop, until that attempt ends),
 * and that a compaction keeps it with the run in flight.
 */
class StoppingLineTest {
    private final JournalCodec codec = new JournalCodec();

    @Test
    void aStoppingLineRoundTrips_andItsFieldsAreChecked() {
        JournalEvent.Stopping s = new JournalEvent.Stopping("s4", "time_slice", true, OptionalLong.of(812_345_678_901L));
        String line = codec.encode(s);
        assertEquals("{\"key\":\"s4\",\"event\":\"stopping\",\"reason\":\"time_slice\",\"max_job_time\":true,"
                + "\"ticker_ns\":812345678901}", line);
        assertEquals(s, codec.decode(line).orElseThrow());
        JournalEvent.Stopping plain = new JournalEvent.Stopping("s4", "cancelled", false, OptionalLong.empty());
        assertEquals("{\"key\":\"s4\",\"event\":\"stopping\",\"reason\":\"cancelled\"}", codec.encode(plain));
        assertEquals(plain, codec.decode(codec.encode(plain)).orElseThrow());
        for (String bad : List.of("\"reason\":\"shutdown\"", "\"reason\":\"CANCELLED\"", "\"reason\":7", "",
                "\"reason\":\"timeout\",\"ticker_ns\":-1", "\"reason\":\"timeout\",\"ticker_ns\":1.5",
                "\"reason\":\"timeout\",\"max_job_time\":\"yes\"")) {
            assertThrows(IllegalArgumentException.class,
                    () -> codec.decode("{\"key\":\"s4\",\"event\":\"stopping\"" + (bad.isEmpty() ? "" : "," + bad) + "}"), bad);
        }
    }

    @Test
    void theFoldKeepsTheStopOfTheAttemptInFlight_untilThatAttemptEnds_andLeavesTheRecordAsItWas() {
        JournalState state = new JournalState();
        state.apply(new JournalEvent.Seen("k#0", 1, "train"));
        state.apply(new JournalEvent.Launching("k#0", 1, List.of(0)));
        state.apply(new JournalEvent.Started("k#0", 4242, List.of(0)));
        JobRecord running = state.record("k#0");
        JournalEvent.Stopping cancel = new JournalEvent.Stopping("k#0", "cancelled", false, OptionalLong.of(9));
        state.apply(cancel);
        assertEquals(running, state.record("k#0"), "not an outcome: still running until it ends");
        assertEquals(Optional.of(cancel), state.stopping("k#0"));
        state.apply(new JournalEvent.Done("k#0", "cancelled", 143, Map.of(), OptionalDouble.empty()));
        assertTrue(state.stopping("k#0").isEmpty(), "its outcome ends it");

        for (JournalEvent end : List.<JournalEvent>of(new JournalEvent.Interrupted("k#0"),
                new JournalEvent.Requeued("k#0", "preempted"), new JournalEvent.Oom("k#0", 1, OptionalLong.of(2000)),
                new JournalEvent.Retry("k#0"), new JournalEvent.Launching("k#0", 3, List.of(1)))) {
            state.apply(new JournalEvent.Launching("k#0", 2, List.of(0)));
            state.apply(new JournalEvent.Started("k#0", 4243, List.of(0)));
            state.apply(new JournalEvent.Stopping("k#0", "preempted", false, OptionalLong.empty()));
            state.apply(end);
            assertTrue(state.stopping("k#0").isEmpty(), "a stop is the attempt's, not the job's: " + end);
        }
        assertTrue(new JournalState().stopping("k#0").isEmpty(), "never stopped");
    }

    @Test
    void aCompactionKeepsTheStopAndTheSlurmJobOfARunInFlight_soARestartAfterItGoesOnWithBoth() {
        JournalState state = new JournalState();
        state.apply(new JournalEvent.Seen("k#0", 1, "train"));
        state.apply(new JournalEvent.Launching("k#0", 1, List.of(0)));
        state.apply(new JournalEvent.SlurmSubmitted("k#0", 77, "gpu:1"));
        state.apply(new JournalEvent.Started("k#0", 4242, List.of(0)));
        JournalEvent.Stopping cancel = new JournalEvent.Stopping("k#0", "cancelled", false, OptionalLong.of(5));
        state.apply(cancel);
        state.apply(new JournalEvent.Seen("k#1", 2, "eval"));
        state.apply(new JournalEvent.Launching("k#1", 2, List.of(1)));
        state.apply(new JournalEvent.Started("k#1", 4343, List.of(1)));
        state.apply(new JournalEvent.Stopping("k#1", "timeout", false, OptionalLong.empty()));
        state.apply(new JournalEvent.Done("k#1", "timeout", 143, Map.of(), OptionalDouble.empty()));

        JournalState again = new JournalState();
        Compaction.of(state, 100).forEach(again::apply);

        assertEquals(Optional.of(cancel), again.stopping("k#0"));
        assertEquals(OptionalLong.of(77), again.slurmJob("k#0"), "before: dropped, and a restart submitted it again");
        assertEquals(state.record("k#0"), again.record("k#0"));
        assertTrue(again.stopping("k#1").isEmpty(), "an ended run's stop is history");
        assertEquals(state.record("k#1"), again.record("k#1"));
    }
}

package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobKeys;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What {@code vram=auto} declares from a journal's history, and how that history reads and writes. */
class LearnedVramTest {
    private final JournalState state = new JournalState();
    private final JournalCodec codec = new JournalCodec();

    /** Job {@code no} ran {@code command} under {@code rule} and ended {@code status} with {@code peak} MiB on gpu0. */
    private void ran(int no, String command, Optional<String> rule, String status, long peak) {
        String key = JobKeys.key(command, no);
        state.apply(new JournalEvent.Seen(key, no, command));
        state.apply(new JournalEvent.Started(key, 100 + no, List.of(0), OptionalLong.empty(), rule));
        state.apply(new JournalEvent.Done(key, status, 0, peak == 0 ? Map.of() : Map.of(0, peak), OptionalDouble.empty()));
    }

    private Optional<LearnedVram> learn(String command, Optional<String> rule) {
        return LearnedVram.learn(command, rule, state.peaks(), 0.10);
    }

    @Test
    void theSameCommandsLatestPeakPlusTheSpikeBufferRoundedUpIsTheDeclaration() {
        ran(1, "python train.py", Optional.empty(), "ok", 1200);
        ran(2, "python train.py", Optional.empty(), "ok", 1500);
        LearnedVram l = learn("python train.py", Optional.empty()).orElseThrow();
        assertEquals(1650, l.mib(), "1500 + 10%, not 1651 from binary rounding");
        assertEquals("learned: job 2 peaked at 1500 MiB, +10%", l.describe());
        assertEquals(1101, LearnedVram.learn("python train.py", Optional.empty(), state.peaks(), 0.0001)
                .map(x -> x.mib() - 400).orElseThrow(), "any buffer rounds up to a whole MiB");
    }

    @Test
    void failuresCancellationsAndRunsWithoutMemoryTeachNothing() {
        ran(1, "x", Optional.empty(), "ok", 900);
        ran(2, "x", Optional.empty(), "failed", 100);
        ran(3, "x", Optional.empty(), "cancelled", 50);
        ran(4, "x", Optional.empty(), "failed_oom", 20000);
        ran(5, "x", Optional.empty(), "ok", 0);
        assertEquals(1, learn("x", Optional.empty()).orElseThrow().fromNo());
        ran(6, "x", Optional.empty(), "timeout", 4000);
        assertEquals(4000, learn("x", Optional.empty()).orElseThrow().peakMib(), "a timeout ran at full size until stopped");
    }

    @Test
    void theCommandsOwnHistoryBeatsItsRules_andTheRulesHistoryServesANewCommand() {
        ran(1, "eval --llm 7b --task a", Optional.of("7b"), "ok", 15000);
        ran(2, "eval --llm 7b --task b", Optional.of("7b"), "ok", 15900);
        assertEquals(15000, learn("eval --llm 7b --task a", Optional.of("7b")).orElseThrow().peakMib());
        LearnedVram fromRule = learn("eval --llm 7b --task c", Optional.of("7b")).orElseThrow();
        assertEquals(15900, fromRule.peakMib());
        assertEquals("learned from rule \"7b\": job 2 peaked at 15900 MiB, +10%", fromRule.describe());
        assertEquals(Optional.empty(), learn("eval --llm 70b", Optional.of("70b")), "nothing to learn: the rule's figure or alone");
        assertEquals(Optional.empty(), learn("eval --llm 7b --task c", Optional.empty()));
    }

    @Test
    void aStartedLinesRuleAndALearnedLineReadBackThroughTheCodec() {
        JournalEvent started = new JournalEvent.Started("k#0", 42, List.of(0), OptionalLong.of(1000), Optional.of("qwen 7b"));
        assertEquals("{\"key\":\"k#0\",\"event\":\"started\",\"pgid\":42,\"gpus\":[0],\"vram\":1000,\"rule\":\"qwen 7b\"}",
                codec.encode(started));
        assertEquals(Optional.of(started), codec.decode(codec.encode(started)));
        JournalEvent learned = new JournalEvent.Learned("cmd:0123456789ab", 7, 1500);
        assertEquals("{\"key\":\"cmd:0123456789ab\",\"event\":\"learned\",\"no\":7,\"peak_mib\":1500}", codec.encode(learned));
        assertEquals(Optional.of(learned), codec.decode(codec.encode(learned)));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> codec.decode("{\"key\":\"k#0\",\"event\":\"learned\",\"no\":7,\"peak_mib\":1500}"));
        assertTrue(bad.getMessage().contains("cmd:<hash> or rule:<name>"), bad.getMessage());
    }

    @Test
    void aCompactedJournalStillTeachesWhatItsDroppedSubmissionsPeaked() {
        state.apply(new JournalEvent.Submitted("s1", 1, "python sweep.py --lr 1e-3", OptionalLong.empty(), 1, OptionalLong.empty(),
                0, "api", "u", "/w", 7L, Optional.empty(), Optional.empty()));
        state.apply(new JournalEvent.Started("s1", 50, List.of(0), OptionalLong.empty(), Optional.of("sweep")));
        state.apply(new JournalEvent.Done("s1", "ok", 0, Map.of(0, 7000L), OptionalDouble.empty()));
        JournalState compacted = new JournalState();
        Compaction.of(state, 0).forEach(compacted::apply);
        assertTrue(compacted.submission("s1").isEmpty(), "the ended submission itself is dropped");
        assertEquals(7000, LearnedVram.learn("u", "python sweep.py --lr 1e-3", Optional.empty(), compacted.peaks(), 0.1)
                .orElseThrow().peakMib());
        assertEquals(7000, LearnedVram.learn("u", "python sweep.py --lr 3e-4", Optional.of("sweep"), compacted.peaks(), 0.1)
                .orElseThrow().peakMib());
    }

    /** Job {@code no}, submitted by {@code owner}, ran {@code command} under {@code rule} and ended ok with {@code peak} MiB. */
    private void submittedRan(JournalState s, String owner, int no, String command, Optional<String> rule, long peak) {
        String key = "s" + no;
        s.apply(new JournalEvent.Submitted(key, no, command, OptionalLong.empty(), 1, OptionalLong.empty(), 0, "api", owner,
                "/home/" + owner, 7L, Optional.empty(), Optional.empty()));
        s.apply(new JournalEvent.Started(key, 100 + no, List.of(0), OptionalLong.empty(), rule));
        s.apply(new JournalEvent.Done(key, "ok", 0, Map.of(0, peak), OptionalDouble.empty()));
    }

    @Test
    void anotherUsersJobOfTheSameCommandOrRule_teachesNothingToMine_evenAfterACompaction() {
        // Bob runs his own ./train.sh (or one made to peak at 10 MiB) after alice's: her next vram=auto job
        // was declared 11 MiB, placed as such beside others, and told it was under-declared.
        submittedRan(state, "alice", 1, "./train.sh", Optional.empty(), 8000);
        submittedRan(state, "alice", 2, "eval --llm 7b --task a", Optional.of("7b"), 15000);
        submittedRan(state, "bob", 3, "./train.sh", Optional.empty(), 10);
        submittedRan(state, "bob", 4, "true --llm 7b", Optional.of("7b"), 10);
        JournalState compacted = new JournalState();
        Compaction.of(state, 0).forEach(compacted::apply);
        for (JournalState s : List.of(state, compacted)) {
            assertEquals(1, LearnedVram.learn("alice", "./train.sh", Optional.empty(), s.peaks(), 0.1).orElseThrow().fromNo());
            assertEquals(2, LearnedVram.learn("alice", "eval --llm 7b --task b", Optional.of("7b"), s.peaks(), 0.1)
                    .orElseThrow().fromNo());
            assertEquals(3, LearnedVram.learn("bob", "./train.sh", Optional.empty(), s.peaks(), 0.1).orElseThrow().fromNo(),
                    "bob's own history is his");
            assertEquals(Optional.empty(), LearnedVram.learn("carol", "./train.sh", Optional.of("7b"), s.peaks(), 0.1),
                    "a third user has learned nothing yet");
            assertEquals(Optional.empty(), LearnedVram.learn("./train.sh", Optional.empty(), s.peaks(), 0.1),
                    "nor has the daemon's own user (jobs-file lines)");
        }
    }
}

package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class StatusBoardWriterTest {
    private static JobResult done(int no, JobStatus status, Verdict verdict) {
        return new JobResult("k" + no + "#0", no, "cmd " + no, List.of(0), status, status == JobStatus.OK ? 0 : 3,
                OptionalLong.of(1000), Map.of(0, 1500L), verdict, OptionalDouble.empty(), Duration.ofSeconds(2));
    }

    @Test
    void doneRowsSayDeclarationVerdictsInTheLogsWords() {
        StatusBoard board = new StatusBoard(List.of(), List.of(StatusBoard.Pending.builder(4, "big")
                .declaredMib(OptionalLong.of(16384)).attempts(1)
                .reason("needs 1 GPU with ≥ 16896 MiB headroom; best is gpu0 with 4000 MiB").build()),
                List.of(done(1, JobStatus.OK, Verdict.OVER), done(2, JobStatus.OK, Verdict.UNDER), done(3, JobStatus.FAILED, Verdict.NOT_JUDGED)));
        String text = StatusBoardWriter.render(new SchedulerEvent.StatusUpdated(Instant.EPOCH, board));
        assertTrue(text.contains("✓ job 1   ok, under-declared (exit 0, peak 1500 MiB) — cmd 1"), text);
        assertTrue(text.contains("✓ job 2   ok, over-declared (exit 0"), text);
        assertTrue(text.contains("✗ job 3   failed (exit 3"), text);
        assertTrue(text.contains("↻ job 4   pending vram 16384 retry 1 [needs 1 GPU with ≥ 16896 MiB headroom; best is gpu0 with 4000 MiB] — big"), text);
    }

    @Test
    void runningRowsKeepTheirColumnsForNarrowAndWideValues() {
        List<StatusBoard.Running> running = List.of(
                StatusBoard.Running.builder(7, "python train.py").gpus(List.of(0)).elapsed(Duration.ofSeconds(5))
                        .currentMib(Map.of(0, 1200L)).peakMib(1300).build(),
                StatusBoard.Running.builder(1234, "torchrun x").gpus(List.of(3, 1)).elapsed(Duration.ofSeconds(123456))
                        .currentMib(Map.of(3, 10L, 1, 20L)).peakMib(25)
                        .stopping(java.util.Optional.of(io.gpusched.event.SchedulerEvent.StopReason.TIMEOUT)).build(),
                StatusBoard.Running.builder(42, "idle").gpus(List.of(2))
                        .stopping(java.util.Optional.of(io.gpusched.event.SchedulerEvent.StopReason.CANCELLED))
                        .build());
        String text = StatusBoardWriter.render(new SchedulerEvent.StatusUpdated(Instant.EPOCH,
                new StatusBoard(running, List.of(), List.of())));
        String nl = System.lineSeparator();
        assertTrue(text.contains(nl + "▶ job 7   gpu[0]     5s  gpu0:1200 MiB (peak 1300) — python train.py" + nl), text);
        assertTrue(text.contains(nl + "▶ job 1234 gpu[3,1] 123456s  gpu1:20, gpu3:10 MiB (peak 25) (timing out…) — torchrun x"
                + nl), text);
        assertTrue(text.contains(nl + "▶ job 42  gpu[2]     0s   MiB (peak 0) (cancelling…) — idle" + nl), text);
    }
    /** A command with an OSC 52 clipboard write, a screen clear, a carriage return and a bidi override. */
    private static final String HOSTILE = "sleep 1 # \u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J\rfake line \u202Egnp.exe";
    private static final String SHOWN = "sleep 1 # \\e]52;c;cm0gLXJmIH4K\\x07\\e[2J\\rfake line \\u202egnp.exe";

    @Test
    void anotherUsersCommandReasonRuleAndCause_reachWatchCatOfTheBoardEscaped() {
        JobResult failed = new JobResult("k5#0", 5, HOSTILE, List.of(0), JobStatus.FAILED, 1, OptionalLong.empty(), Map.of(),
                Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ofSeconds(1), io.gpusched.model.Measurement.NONE_SEEN,
                java.util.Optional.of("cannot enter " + HOSTILE), java.util.Optional.empty());
        JobResult never = new JobResult("k6#0", 6, HOSTILE, List.of(), JobStatus.CANCELLED, 0, OptionalLong.empty(), Map.of(),
                Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO);
        StatusBoard board = new StatusBoard(
                List.of(StatusBoard.Running.builder(7, HOSTILE).gpus(List.of(0)).declaredMib(OptionalLong.of(100))
                        .rule(java.util.Optional.of(HOSTILE)).build()),
                List.of(StatusBoard.Pending.builder(4, HOSTILE).declaredMib(OptionalLong.of(100))
                        .rule(java.util.Optional.of(HOSTILE)).reason("after job 3 (" + HOSTILE + ")").build()),
                List.of(failed, never), List.of(failed),
                List.of(new StatusBoard.Interrupted(8, HOSTILE, List.of(1), Duration.ofSeconds(3))));
        String text = StatusBoardWriter.render(new SchedulerEvent.StatusUpdated(Instant.EPOCH, board));
        String nl = System.lineSeparator();
        for (String line : text.split(nl)) {
            assertTrue(line.codePoints().noneMatch(c -> c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x202E), line);
        }
        assertTrue(text.contains("(rule \"" + SHOWN + "\") — " + SHOWN + nl), text);
        assertTrue(text.contains("pending vram 100 (rule \"" + SHOWN + "\") [after job 3 (" + SHOWN + ")] — " + SHOWN + nl), text);
        assertTrue(text.contains("failed (exit 1, cannot enter " + SHOWN + ", peak none seen) — " + SHOWN + nl), text);
        assertTrue(text.contains("cancelled before start (never ran) — " + SHOWN + nl), text);
        assertTrue(text.contains("interrupted after 3s; runs again on restart — " + SHOWN + nl), text);
    }
}

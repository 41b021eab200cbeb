package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobResult;
import io.gpusched.JobStatus;
import io.gpusched.SchedulerEvent;
import io.gpusched.StatusBoard;
import io.gpusched.Verdict;
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
        StatusBoard board = new StatusBoard(List.of(), List.of(new StatusBoard.Pending(4, "big", OptionalLong.of(16384), 1,
                "needs 1 GPU with ≥ 16896 MiB headroom; best is gpu0 with 4000 MiB")),
                List.of(done(1, JobStatus.OK, Verdict.OVER), done(2, JobStatus.OK, Verdict.UNDER), done(3, JobStatus.FAILED, Verdict.NOT_JUDGED)));
        String text = StatusBoardWriter.render(new SchedulerEvent.StatusUpdated(Instant.EPOCH, board));
        assertTrue(text.contains("✓ job 1   ok, under-declared (exit 0, peak 1500 MiB) — cmd 1"), text);
        assertTrue(text.contains("✓ job 2   ok, over-declared (exit 0"), text);
        assertTrue(text.contains("✗ job 3   failed (exit 3"), text);
        assertTrue(text.contains("↻ job 4   pending vram 16384 retry 1 [needs 1 GPU with ≥ 16896 MiB headroom; best is gpu0 with 4000 MiB] — big"), text);
    }
}

package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.event.StatusBoard;
import io.gpusched.event.TerminalText;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * status.txt's pending and ended rows are appended piece by piece; they read as the original's format
 * strings ({@code "%s job %-3d pending%s%s%s — %s%n"} and its ended twins) wrote them, for any number,
 * declaration, retry count, reason and command.
 */
class BoardRowTextTest {
    private static final String PIECES = "ab Z9\"\\\n\t\u001b\u007f\u00e9—😀[]";
    private static final int TRIES = 3000;

    private static String text(SplittableRandom r, int max) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(max + 1); i > 0; i--) {
            b.append(PIECES.charAt(r.nextInt(PIECES.length())));
        }
        return b.toString();
    }

    /** The row as the format string wrote it before. */
    private static String formattedPending(StatusBoard.Pending p) {
        String mark = p.attempts() > 0 ? "↻" : "·";
        String vram = p.declaredMib().isPresent() ? " vram " + p.declaredMib().getAsLong()
                + p.rule().map(r -> " (rule \"" + TerminalText.escape(r) + "\")").orElse("") : "";
        String retry = p.attempts() > 0 ? " retry " + p.attempts() : "";
        String reason = p.reason().isEmpty() ? "" : " [" + TerminalText.escape(p.reason()) + "]";
        return String.format("%s job %-3d pending%s%s%s — %s%n", mark, p.no(), vram, retry, reason, TerminalText.escape(p.command()));
    }

    /** The ended row as the format strings wrote it before. */
    private static String formattedEnded(JobResult r, String when) {
        String mark = r.status() == JobStatus.CANCELLED ? "⊘" : (r.status() == JobStatus.OK ? "✓" : "✗");
        if (r.measurement() == Measurement.NOT_RUN) {
            String what = r.status() == JobStatus.CANCELLED ? "cancelled before start" : r.status().journalName();
            return String.format("%s job %-3d %s (never ran%s) — %s%n", mark, r.no(), what, when, TerminalText.escape(r.command()));
        }
        String verdict = r.status() == JobStatus.OK ? StatusBoardWriter.describe(r.verdict()) : r.status().journalName();
        String peak = StatusBoardWriter.peakWords(r); // its words did not change: what is checked is the row around them
        String cause = r.cause().map(c -> ", " + TerminalText.escape(c)).orElse("");
        return String.format("%s job %-3d %s (exit %d%s, peak %s%s) — %s%n", mark, r.no(), verdict, r.exitCode(), cause, peak,
                when, TerminalText.escape(r.command()));
    }

    @Test
    void aPendingRowReadsAsItsFormatStringWroteIt() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < TRIES; i++) {
            StatusBoard.Pending p = StatusBoard.Pending.builder(r.nextInt(-2, 100_000) , text(r, 30))
                    .declaredMib(r.nextBoolean() ? OptionalLong.of(r.nextLong(0, 1L << 40)) : OptionalLong.empty())
                    .attempts(r.nextInt(3)).reason(r.nextBoolean() ? "" : text(r, 20))
                    .rule(r.nextBoolean() ? Optional.of(text(r, 8)) : Optional.empty()).build();
            assertEquals(formattedPending(p), StatusBoardWriter.pendingRow(p), "seed " + seed);
        }
    }

    @Test
    void anEndedRowReadsAsItsFormatStringsWroteIt() {
        long seed = new SplittableRandom().nextLong();
        SplittableRandom r = new SplittableRandom(seed);
        JobStatus[] statuses = JobStatus.values();
        Measurement[] measurements = Measurement.values();
        Verdict[] verdicts = Verdict.values();
        for (int i = 0; i < TRIES; i++) {
            Map<Integer, Long> peaks = r.nextBoolean() ? Map.of() : Map.of(0, r.nextLong(0, 90_000), 1, r.nextLong(0, 90_000));
            JobResult result = new JobResult("k#0", r.nextInt(1, 100_000), text(r, 30), List.of(0),
                    statuses[r.nextInt(statuses.length)], r.nextInt(-1, 256), OptionalLong.empty(), peaks,
                    verdicts[r.nextInt(verdicts.length)], OptionalDouble.empty(), Duration.ofSeconds(r.nextInt(100)),
                    measurements[r.nextInt(measurements.length)], r.nextBoolean() ? Optional.of(text(r, 12)) : Optional.empty(),
                    Optional.empty());
            String when = r.nextBoolean() ? "" : ", earlier run";
            assertEquals(formattedEnded(result, when), StatusBoardWriter.endedRow(result, when), "seed " + seed);
        }
    }
}

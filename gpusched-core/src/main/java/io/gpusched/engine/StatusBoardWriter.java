package io.gpusched.engine;

import io.gpusched.JobResult;
import io.gpusched.JobStatus;
import io.gpusched.SchedulerEvent;
import io.gpusched.StatusBoard;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Writes {@code status.txt} after every round, atomically (temp file + rename), so {@code watch cat}
 * never shows a half-written board. Best effort: a failed write is retried on the next round.
 * Next to it, {@code status.json} holds the same board for {@code gpusched status --json}:
 * {@code {"scheduler_pid": N, "finished": false, "status": <the status_updated event as JsonEventWriter writes it>}};
 * {@code finished} turns true when the run ends. Both files are rewritten only when the board changed.
 */
public final class StatusBoardWriter implements Consumer<SchedulerEvent> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
    private final Path file;
    private final Path jsonFile;
    private volatile String lastStatusJson = "null";
    // The pending and done sections are re-rendered only when the engine hands over a different list
    // (it reuses the same list while they are unchanged); the file is rewritten only when its text changed.
    private List<StatusBoard.Pending> renderedPendingOf;
    private String renderedPending = "";
    private List<JobResult> renderedDoneOf;
    private String renderedDone = "";
    private String lastHead;

    /** @param file the board file, usually {@code <log-dir>/status.txt} */
    public StatusBoardWriter(Path file) {
        this.file = file;
        this.jsonFile = file.resolveSibling("status.json");
    }

    @Override
    public void accept(SchedulerEvent event) {
        if (event instanceof SchedulerEvent.StatusUpdated s) {
            StatusBoard b = s.board();
            boolean changed = false;
            if (b.pending() != renderedPendingOf) {
                renderedPending = renderPending(b.pending());
                renderedPendingOf = b.pending();
                changed = true;
            }
            if (b.done() != renderedDoneOf) {
                renderedDone = renderDone(b.done());
                renderedDoneOf = b.done();
                changed = true;
            }
            String head = renderHead(s);
            if (changed || !head.equals(lastHead)) {
                lastStatusJson = io.gpusched.JsonEventWriter.toJson(s);
                write(jsonFile, statusJson(false));
                if (write(file, head + renderedPending + renderedDone)) {
                    lastHead = head;
                } else if (changed) {
                    lastHead = null;
                }
            }
        } else if (event instanceof SchedulerEvent.RunFinished) {
            write(jsonFile, statusJson(true));
        }
    }

    private String statusJson(boolean finished) {
        return "{\"scheduler_pid\":" + ProcessHandle.current().pid() + ",\"finished\":" + finished
                + ",\"status\":" + lastStatusJson + "}\n";
    }

    static String render(SchedulerEvent.StatusUpdated s) {
        return renderHead(s) + renderPending(s.board().pending()) + renderDone(s.board().done());
    }

    private static String renderHead(SchedulerEvent.StatusUpdated s) {
        StatusBoard b = s.board();
        StringBuilder out = new StringBuilder();
        out.append("gpusched status @ ").append(TIME.format(s.at())).append(" — ")
                .append(b.running().size()).append(" running, ")
                .append(b.pending().size()).append(" pending, ")
                .append(b.done().size()).append(" done\n");
        for (StatusBoard.Running r : b.running()) {
            String state = r.stopping().map(w -> switch (w) {
                case CANCELLED -> " (cancelling…)";
                case TIMEOUT -> " (timing out…)";
                case SHUTDOWN -> " (stopping…)";
            }).orElse("");
            out.append(String.format("▶ job %-3d gpu[%s] %5ds  %s MiB (peak %d)%s — %s%n", r.no(), join(r.gpus()),
                    r.elapsed().toSeconds(), usage(r.currentMib()), r.peakMib(), state, r.command()));
        }
        return out.toString();
    }

    private static String renderPending(List<StatusBoard.Pending> pending) {
        StringBuilder out = new StringBuilder();
        for (StatusBoard.Pending p : pending) {
            String mark = p.attempts() > 0 ? "↻" : "·";
            String vram = p.declaredMib().isPresent() ? " vram " + p.declaredMib().getAsLong() : "";
            String retry = p.attempts() > 0 ? " retry " + p.attempts() : "";
            String reason = p.reason().isEmpty() ? "" : " [" + p.reason() + "]";
            out.append(String.format("%s job %-3d pending%s%s%s — %s%n", mark, p.no(), vram, retry, reason, p.command()));
        }
        return out.toString();
    }

    private static String renderDone(List<JobResult> done) {
        StringBuilder out = new StringBuilder();
        for (JobResult r : done) {
            String mark = r.status() == JobStatus.CANCELLED ? "⊘" : (r.status() == JobStatus.OK ? "✓" : "✗");
            String verdict = r.status() == JobStatus.OK ? describe(r.verdict()) : r.status().journalName();
            String peak = r.attributed() ? r.overallPeakMib() + " MiB" : "n/a";
            out.append(String.format("%s job %-3d %s (exit %d, peak %s) — %s%n", mark, r.no(), verdict, r.exitCode(), peak, r.command()));
        }
        return out.toString();
    }

    /** In the log's words: a peak over the declaration means the job was under-declared. */
    static String describe(io.gpusched.Verdict v) {
        return switch (v) {
            case OVER -> "ok, under-declared";
            case UNDER -> "ok, over-declared";
            case UNATTRIBUTED -> "ok, unattributed";
            case WITHIN, NOT_JUDGED -> "ok";
        };
    }

    private static String join(java.util.List<Integer> gpus) {
        return gpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static String usage(Map<Integer, Long> current) {
        return new java.util.TreeMap<>(current).entrySet().stream()
                .map(e -> "gpu" + e.getKey() + ":" + e.getValue()).collect(Collectors.joining(", "));
    }

    private static boolean write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (IOException e) {
            // The board is a convenience; the journal holds the truth. Next round tries again.
            return false;
        }
    }
}

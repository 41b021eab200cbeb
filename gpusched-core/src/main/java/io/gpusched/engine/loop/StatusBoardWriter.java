package io.gpusched.engine.loop;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes {@code status.txt} after every round, atomically (temp file + rename), so {@code watch cat}
 * never shows a half-written board. Best effort: a failed write is retried on the next round.
 * Next to it, {@code status.json} holds the same board for {@code gpusched status --json}:
 * {@code {"scheduler_pid": N, "finished": false, "interrupted": false, "status": <the status_updated event as
 * JsonEventWriter writes it>}}; {@code finished} turns true when the run ends, and {@code interrupted} too
 * when it was stopped before its queue drained. Both files are rewritten only when the board changed.
 */
public final class StatusBoardWriter implements Consumer<SchedulerEvent> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
    private final Path file;
    private final Path jsonFile;
    // The pending and done sections, text and JSON, are re-assembled only when the engine hands over
    // a different list (it reuses the same list while they are unchanged), and then from the rows
    // they kept: with 10,000 pending lines a section is megabytes, and lists change a row at a time.
    private final Section<StatusBoard.Pending> pending = new Section<>(StatusBoardWriter::pendingRow);
    private final Section<JobResult> done = new Section<>(StatusBoardWriter::doneRow);
    private final Section<JobResult> earlier = new Section<>(StatusBoardWriter::earlierRow);
    private String lastHead;
    // status.json is the status_updated event as JsonEventWriter writes it, assembled from the cached
    // parts: {"event":"status_updated","at":…,"board":{"running":…,"pending":…,"done":…}}
    private volatile byte[][] lastStatusJson = {bytes("null")};

    /** @param file the board file, usually {@code <log-dir>/status.txt} */
    public StatusBoardWriter(Path file) {
        this.file = file;
        this.jsonFile = file.resolveSibling("status.json");
    }

    @Override
    public void accept(SchedulerEvent event) {
        if (event instanceof SchedulerEvent.StatusUpdated s) {
            StatusBoard b = s.board();
            boolean changed = pending.update(b.pending()) | done.update(b.done()) | earlier.update(b.earlier());
            String head = renderHead(s);
            if (changed || !head.equals(lastHead)) {
                lastStatusJson = new byte[][] {
                    bytes("{\"event\":\"status_updated\",\"at\":" + JsonEventWriter.valueToJson(s.at())
                            + ",\"board\":{\"running\":" + JsonEventWriter.valueToJson(b.running()) + ",\"pending\":"),
                    pending.json, bytes(",\"done\":"), done.json, bytes(",\"earlier\":"), earlier.json,
                    bytes(",\"interrupted\":" + JsonEventWriter.valueToJson(b.interrupted()) + "}}")};
                write(jsonFile, statusJson(false, false));
                if (write(file, bytes(head), pending.text, done.text, earlier.text)) {
                    lastHead = head;
                } else if (changed) {
                    lastHead = null;
                }
            }
        } else if (event instanceof SchedulerEvent.RunFinished f) {
            write(jsonFile, statusJson(true, f.summary().interrupted()));
        }
    }

    private byte[][] statusJson(boolean finished, boolean interrupted) {
        byte[][] status = lastStatusJson;
        byte[][] parts = new byte[status.length + 2][];
        parts[0] = bytes("{\"scheduler_pid\":" + ProcessHandle.current().pid() + ",\"finished\":" + finished
                + ",\"interrupted\":" + interrupted + ",\"status\":");
        System.arraycopy(status, 0, parts, 1, status.length);
        parts[parts.length - 1] = bytes("}\n");
        return parts;
    }

    public static String render(SchedulerEvent.StatusUpdated s) {
        StringBuilder out = new StringBuilder(renderHead(s)).append(render(s.board().pending(), s.board().done()));
        s.board().earlier().forEach(r -> out.append(earlierRow(r)));
        return out.toString();
    }

    private static String renderHead(SchedulerEvent.StatusUpdated s) {
        StatusBoard b = s.board();
        StringBuilder out = new StringBuilder();
        out.append("gpusched status @ ").append(TIME.format(s.at())).append(" — ")
                .append(b.running().size()).append(" running, ")
                .append(b.pending().size()).append(" pending, ")
                .append(b.done().size()).append(" done");
        if (!b.interrupted().isEmpty()) {
            out.append(", ").append(b.interrupted().size()).append(" interrupted");
        }
        if (!b.earlier().isEmpty()) {
            out.append(", ").append(b.earlier().size()).append(" ended in an earlier run");
        }
        out.append('\n');
        for (StatusBoard.Running r : b.running()) {
            String state = r.stopping().map(w -> switch (w) {
                case CANCELLED -> " (cancelling…)";
                case TIMEOUT -> " (timing out…)";
                case SHUTDOWN -> " (stopping…)";
                case PREEMPTED -> " (preempting…)";
                case TIME_SLICE -> " (time slice over…)";
            }).orElse("");
            // Appends, not String.format: the head is rendered every round, which may be 20 times a second.
            out.append("▶ job ");
            padRight(out, String.valueOf(r.no()), 3);
            out.append(" gpu[").append(join(r.gpus())).append("] ");
            padLeft(out, String.valueOf(r.elapsed().toSeconds()), 5);
            out.append("s  ").append(usage(r.currentMib())).append(" MiB (peak ").append(r.peakMib()).append(')');
            r.rule().ifPresent(rule -> out.append(" declared ").append(r.declaredMib().orElse(0)).append(" (rule \"")
                    .append(rule).append("\")"));
            out.append(state).append(" — ").append(r.command()).append(System.lineSeparator());
        }
        for (StatusBoard.Interrupted r : b.interrupted()) {
            out.append("⏹ job ");
            padRight(out, String.valueOf(r.no()), 3);
            out.append(" gpu[").append(join(r.gpus())).append("] interrupted after ").append(r.elapsed().toSeconds())
                    .append("s; runs again on restart — ").append(r.command()).append(System.lineSeparator());
        }
        return out.toString();
    }

    private static void padRight(StringBuilder out, String text, int width) {
        out.append(text);
        for (int i = text.length(); i < width; i++) {
            out.append(' ');
        }
    }

    private static void padLeft(StringBuilder out, String text, int width) {
        for (int i = text.length(); i < width; i++) {
            out.append(' ');
        }
        out.append(text);
    }

    public static String render(List<StatusBoard.Pending> pending, List<JobResult> done) {
        StringBuilder out = new StringBuilder();
        pending.forEach(p -> out.append(pendingRow(p)));
        done.forEach(r -> out.append(doneRow(r)));
        return out.toString();
    }

    private static String pendingRow(StatusBoard.Pending p) {
        String mark = p.attempts() > 0 ? "↻" : "·";
        String vram = p.declaredMib().isPresent() ? " vram " + p.declaredMib().getAsLong()
                + p.rule().map(r -> " (rule \"" + r + "\")").orElse("") : "";
        String retry = p.attempts() > 0 ? " retry " + p.attempts() : "";
        String reason = p.reason().isEmpty() ? "" : " [" + p.reason() + "]";
        return String.format("%s job %-3d pending%s%s%s — %s%n", mark, p.no(), vram, retry, reason, p.command());
    }

    private static String doneRow(JobResult r) {
        return endedRow(r, "");
    }

    private static String earlierRow(JobResult r) {
        return endedRow(r, ", earlier run");
    }

    private static String endedRow(JobResult r, String when) {
        String mark = r.status() == JobStatus.CANCELLED ? "⊘" : (r.status() == JobStatus.OK ? "✓" : "✗");
        if (r.measurement() == io.gpusched.model.Measurement.NOT_RUN) {
            String what = r.status() == JobStatus.CANCELLED ? "cancelled before start" : r.status().journalName();
            return String.format("%s job %-3d %s (never ran%s) — %s%n", mark, r.no(), what, when, r.command());
        }
        String verdict = r.status() == JobStatus.OK ? describe(r.verdict()) : r.status().journalName();
        String peak = r.attributed() ? r.overallPeakMib() + " MiB" : switch (r.measurement()) {
            case NONE_SEEN -> "none seen";
            case UNWATCHED -> "n/a, ended unwatched";
            case NOT_VISIBLE -> "n/a, processes not visible";
            case MEASURED, NOT_RUN -> "n/a";
        };
        String cause = r.cause().map(c -> ", " + c).orElse("");
        return String.format("%s job %-3d %s (exit %d%s, peak %s%s) — %s%n", mark, r.no(), verdict, r.exitCode(), cause, peak,
                when, r.command());
    }

    /** In the log's words: a peak over the declaration means the job was under-declared. */
    static String describe(io.gpusched.model.Verdict v) {
        return switch (v) {
            case OVER -> "ok, under-declared";
            case UNDER -> "ok, over-declared";
            case WITHIN, NOT_JUDGED, UNATTRIBUTED -> "ok";
        };
    }

    private static String join(java.util.List<Integer> gpus) {
        StringBuilder out = new StringBuilder();
        for (int g : gpus) {
            out.append(out.length() == 0 ? "" : ",").append(g);
        }
        return out.toString();
    }

    private static String usage(Map<Integer, Long> current) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Integer, Long> e : new java.util.TreeMap<>(current).entrySet()) {
            out.append(out.length() == 0 ? "" : ", ").append("gpu").append(e.getKey()).append(':').append(e.getValue());
        }
        return out.toString();
    }

    /**
     * One list section of the board as status.txt and status.json show it, UTF-8, assembled from
     * per-row renderings kept from the previous list: a row (a record, compared by value) that was
     * already in it costs a lookup, not a {@code String.format} and a reflective JSON walk.
     */
    private static final class Section<T> {
        private final java.util.function.Function<T, String> textRow;
        private List<T> of;
        private Map<T, byte[][]> rows = new java.util.IdentityHashMap<>();
        byte[] text = new byte[0];
        byte[] json = bytes("[]");

        Section(java.util.function.Function<T, String> textRow) {
            this.textRow = textRow;
        }

        /** @return whether the list differs from the last one (by identity: the engine reuses it) */
        boolean update(List<T> list) {
            if (list == of) {
                return false;
            }
            // By identity: the engine hands over the same row objects for unchanged rows, and hashing
            // 100,000 rows' texts cost more than rendering the few new ones.
            Map<T, byte[][]> next = new java.util.IdentityHashMap<>(list.size() * 2);
            java.io.ByteArrayOutputStream t = new java.io.ByteArrayOutputStream(text.length + 4096);
            java.io.ByteArrayOutputStream j = new java.io.ByteArrayOutputStream(json.length + 4096);
            j.write('[');
            for (T row : list) {
                byte[][] r = next.computeIfAbsent(row, k -> {
                    byte[][] kept = rows.get(k);
                    return kept != null ? kept
                            : new byte[][] {bytes(textRow.apply(k)), bytes(JsonEventWriter.valueToJson(k))};
                });
                t.writeBytes(r[0]);
                if (j.size() > 1) {
                    j.write(',');
                }
                j.writeBytes(r[1]);
            }
            j.write(']');
            rows = next;
            of = list;
            text = t.toByteArray();
            json = j.toByteArray();
            return true;
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean write(Path file, byte[]... parts) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            ByteBuffer[] buffers = new ByteBuffer[parts.length];
            long left = 0;
            for (int i = 0; i < parts.length; i++) {
                buffers[i] = ByteBuffer.wrap(parts[i]);
                left += parts[i].length;
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                while (left > 0) {
                    left -= ch.write(buffers);
                }
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return true;
        } catch (IOException e) {
            // The board is a convenience; the journal holds the truth. Next round tries again.
            return false;
        }
    }
}

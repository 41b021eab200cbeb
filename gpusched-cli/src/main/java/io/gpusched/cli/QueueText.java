package io.gpusched.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The text {@code gpusched queue} and {@code gpusched info} print from a queue answer's snapshot. */
final class QueueText {
    private QueueText() {
    }

    /** The row's owner, at the end of its line: {@code   [alice]}; nothing when not known. */
    private static String owner(Map<String, Object> row) {
        return row.get("owner") == null ? "" : "   [" + row.get("owner") + "]";
    }

    /** {@code gpusched info}: each GPU's memory, utilisation and marks; or, with {@code json}, the GPUs as JSON. */
    @SuppressWarnings("unchecked")
    static void printInfo(PrintStream out, Map<String, Object> snapshot, boolean json) {
        List<Map<String, Object>> gpus = (List<Map<String, Object>>) snapshot.get("gpus");
        List<?> paused = (List<?>) snapshot.get("paused_gpus");
        if (json) {
            out.println(io.gpusched.event.JsonEventWriter.valueToJson(Map.of("gpus", gpus, "paused_gpus", paused)));
            return;
        }
        for (Map<String, Object> g : gpus) {
            Object util = g.get("util_percent");
            out.println("gpu" + g.get("index") + "  " + g.get("name") + "  " + g.get("used_mib") + "/" + g.get("total_mib")
                    + " MiB used" + (util == null ? "" : ", " + util + "% busy") + (paused.contains(g.get("index"))
                    ? "  PAUSED" : "") + (Boolean.FALSE.equals(g.get("healthy")) ? "  UNHEALTHY" : ""));
        }
    }

    /** {@code gpusched queue}: a count line, then running, pending (and why) and finished rows. */
    @SuppressWarnings("unchecked")
    static void printQueue(PrintStream out, QueueView.Shown shown) {
        Map<String, Object> snapshot = shown.snapshot();
        Map<String, Object> board = (Map<String, Object>) snapshot.get("board");
        List<Map<String, Object>> running = (List<Map<String, Object>>) board.get("running");
        List<Map<String, Object>> pending = (List<Map<String, Object>>) board.get("pending");
        List<Map<String, Object>> done = new ArrayList<>((List<Map<String, Object>>) board.get("earlier"));
        done.addAll((List<Map<String, Object>>) board.get("done"));
        out.println(running.size() + " running, " + pending.size() + " pending, " + shown.finished() + " done"
                + (((List<?>) snapshot.get("paused_gpus")).isEmpty() ? "" : "; paused gpus " + snapshot.get("paused_gpus")));
        for (Map<String, Object> r : running) {
            out.println("▶ job " + r.get("no") + " gpu" + r.get("gpus") + " " + Math.round(((Number) r.get("elapsed_s"))
                    .doubleValue()) + "s, peak " + r.get("peak_mib") + " MiB — " + r.get("command") + owner(r));
        }
        for (Map<String, Object> p : pending) {
            Object mib = p.get("declared_mib");
            out.println("… job " + p.get("no") + " " + (mib == null ? "undeclared" : mib + " MiB")
                    + ", waits: " + p.get("reason") + " — " + p.get("command") + owner(p));
        }
        if (shown.leftOut() > 0) {
            out.println("  (" + shown.leftOut() + " earlier finished job" + (shown.leftOut() == 1 ? "" : "s")
                    + " not shown: gpusched queue --all)");
        }
        for (Map<String, Object> d : done) {
            out.println(("ok".equals(d.get("status")) ? "✓" : "✗") + " job " + d.get("no") + " " + d.get("status")
                    + " — " + d.get("command") + owner(d));
        }
        if (java.util.stream.Stream.of(running, pending, done).flatMap(List::stream).anyMatch(r -> r.get("command_chars") != null)) {
            out.println("  (commands over " + io.gpusched.service.Protocol.LIST_COMMAND_CHARS + " characters are shortened,"
                    + " ending in …: gpusched show N prints one whole)");
        }
    }

    /**
     * {@code gpusched show N}: a line saying where the job is (and why it waits, or how it ended), then its
     * whole command, its line breaks kept and other control characters shown as {@code ?}; or, with
     * {@code json}, {@code {"list": ..., "job": {...}}} with the row's command whole.
     */
    static void printJob(PrintStream out, io.gpusched.service.GpuschedClient.Job job, boolean json) {
        Map<String, Object> row = new java.util.LinkedHashMap<>(job.row());
        row.put("command", job.command());
        row.remove("command_chars");
        if (json) {
            out.println(io.gpusched.event.JsonEventWriter.valueToJson(Map.of("list", job.list(), "job", row)));
            return;
        }
        String where = switch (job.list()) {
            case "running" -> "running on gpu" + row.get("gpus") + " for " + Math.round(((Number) row.get("elapsed_s"))
                    .doubleValue()) + "s, peak " + row.get("peak_mib") + " MiB";
            case "pending" -> (Boolean.TRUE.equals(row.get("held")) ? "held" : "pending") + ", "
                    + (row.get("declared_mib") == null ? "undeclared" : row.get("declared_mib") + " MiB")
                    + ", waits: " + row.get("reason");
            case "interrupted" -> "interrupted (runs again on restart)";
            default -> "ended " + row.get("status");
        };
        out.println("job " + row.get("no") + " " + DisplayWidth.clean(where) + owner(row));
        out.println(String.join("\n", java.util.Arrays.stream(job.command().split("\n", -1)).map(DisplayWidth::clean)
                .toList()));
    }
}

package io.gpusched.cli;

import io.gpusched.event.TerminalText;
import io.gpusched.jobs.Notes;
import io.gpusched.protocol.GpuRow;
import io.gpusched.protocol.ListText;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.Row;
import io.gpusched.service.GpuschedClient;
import java.io.PrintStream;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/** The text {@code gpusched queue}, {@code info} and {@code show} print from the service's typed answers. */
final class QueueText {
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    // The words of each list line, encoded once: the daemon writes 100,000 of a line (issue #27).
    private static final TextLine.Words RUNNING = new TextLine.Words("▶ job ");
    private static final TextLine.Words PENDING = new TextLine.Words("… job ");
    private static final TextLine.Words WAITS = new TextLine.Words(", waits: ");
    private static final TextLine.Words MIB_DASH = new TextLine.Words(" MiB — ");
    private static final TextLine.Words SPACE = new TextLine.Words(" ");
    private static final TextLine.Words MIB = new TextLine.Words(" MiB");
    private static final TextLine.Words DASH = new TextLine.Words(" — ");
    private static final TextLine.Words OWNER_OPEN = new TextLine.Words("   [");
    private static final TextLine.Words OWNER_CLOSE = new TextLine.Words("]");

    private QueueText() {
    }

    /** The row's owner, at the end of its line: {@code   [alice]}; nothing when not known. */
    private static String owner(Row row) {
        return row.owner().map(o -> "   [" + TerminalText.escape(o.text()) + "]").orElse("");
    }

    /** {@link #owner(Row)}, added to a line. */
    private static void owner(Row row, TextLine line) {
        if (row.owner().isPresent()) {
            line.add(OWNER_OPEN).add(TerminalText.escape(row.owner().get().text())).add(OWNER_CLOSE);
        }
    }

    /**
     * A job's notes (its shown attributes, such as {@code comment=}) after its row, each as a shell comment
     * reads: {@code   # nightly sweep}; nothing when it has none.
     */
    private static void notes(Notes<ListText> notes, TextLine line) {
        if (notes.isEmpty()) {
            return;
        }
        for (Notes.Note<ListText> n : notes.all()) {
            line.add("   # ").add(DisplayWidth.clean(n.text().text()));
        }
    }

    /** {@code  [tty]} after the number of a job with a terminal of its own, as its jobs-file line says it. */
    private static String tty(Row row) {
        return QueueTable.tty(row) ? " [tty]" : "";
    }

    /**
     * How an ended job ended, for {@code show}: {@code ended ok on gpu[0] after 30s, peak 3018 MiB (declared
     * 3072 MiB: within)}, the exit status after a failure's status, the cause after a dash; a job that
     * never ran says only how it ended.
     */
    static String ended(Row.Ended e) {
        StringBuilder where = new StringBuilder("ended " + e.status().journalName());
        if (e.status().isFailure()) {
            where.append(", exit ").append(e.exitCode());
        }
        if (e.measurement() != io.gpusched.model.Measurement.NOT_RUN) {
            if (!e.gpus().isEmpty()) {
                where.append(" on gpu").append(e.gpus());
            }
            // An outcome folded from an earlier run's journal has no duration: it says nothing rather than 0s.
            if (e.durationSeconds() > 0) {
                where.append(" after ").append(QueueTable.duration(Math.round(e.durationSeconds())));
            }
            where.append(", peak ").append(switch (e.measurement()) {
                case MEASURED -> LogRenderer.usage(e.peakMib());
                case NOT_VISIBLE -> "n/a (its GPU processes are not visible from the scheduler)";
                case UNWATCHED -> "n/a (it ended while no scheduler watched)";
                default -> "n/a (no GPU memory seen)";
            });
            e.declaredMib().ifPresent(d -> where.append(" (declared ").append(d).append(" MiB")
                    .append(e.verdict().declaration().map(v -> ": " + v).orElse("")).append(')'));
        }
        e.cause().ifPresent(c -> where.append(" — ").append(c.text()));
        return where.toString();
    }

    private static String mib(OptionalLong declared) {
        return declared.isEmpty() ? "undeclared" : declared.getAsLong() + " MiB";
    }

    /** {@code gpusched info}: each GPU's memory, utilisation and marks; or, with {@code json}, the GPUs as JSON. */
    static void printInfo(PrintStream out, io.gpusched.protocol.QueueView snapshot, boolean json) {
        List<Integer> paused = snapshot.pausedGpus();
        if (json) {
            out.println(SortedJson.of("{\"gpus\":[" + snapshot.gpus().stream().map(CODEC::encode)
                    .collect(Collectors.joining(",")) + "],\"paused_gpus\":" + paused.stream().map(String::valueOf)
                    .collect(Collectors.joining(",", "[", "]")) + "}"));
            return;
        }
        for (GpuRow g : snapshot.gpus()) {
            out.println("gpu" + g.index() + "  " + g.name().text() + "  " + g.usedMib() + "/" + g.totalMib() + " MiB used"
                    + (g.utilPercent().isEmpty() ? "" : ", " + g.utilPercent().getAsInt() + "% busy")
                    + (paused.contains(g.index()) ? "  PAUSED" : "") + (g.healthy() ? "" : "  UNHEALTHY"));
        }
    }

    /** {@code gpusched queue --json}: {@code {"snapshot": ...}}, the filtered snapshot in the protocol's names. */
    static String queueJson(QueueView.Shown shown) {
        return SortedJson.of("{\"snapshot\":" + CODEC.encode(shown.snapshot()) + "}");
    }

    /** {@code gpusched queue}: a count line, then running, pending (and why) and finished rows. */
    static void printQueue(PrintStream out, QueueView.Shown shown) {
        list(shown, false).printTo(out);
    }

    /**
     * {@link #printQueue}'s text, a line at a time: each row's line made when written, so the daemon
     * prints a queue of any length without holding its text (issue #27).
     *
     * @param ascii each line in plain ASCII ({@link QueueTable#ascii})
     */
    static TextLines list(QueueView.Shown shown, boolean ascii) {
        io.gpusched.protocol.QueueView snapshot = shown.head();
        List<Row.Ended> done = shown.finishedShown();
        // The note on shortened commands ends the text: each row's line says whether its command was cut,
        // and every row's line is written before the last (TextLines writes its slices in order), so no
        // pass over the rows is needed to know it.
        boolean[] cut = {false};
        return new TextLines(List.of(
                TextLines.one(() -> shown.running().size() + " running, " + shown.pending().size() + " pending, "
                        + shown.finished() + " done"
                        + (snapshot.pausedGpus().isEmpty() ? "" : "; paused gpus " + snapshot.pausedGpus())),
                TextLines.eachLine(shown.running(), (r, line) -> {
                    line.add(RUNNING).add(r.no()).add(tty(r));
                    if (r.cluster().isPresent()) {
                        line.add(" (").add(DisplayWidth.clean(r.cluster().get().text())).add(")");
                    }
                    line.add(" gpu").add(r.gpus().toString()).add(" ").add(QueueTable.duration(Math.round(r.elapsedSeconds())))
                            .add(", peak ").add(r.peakMib()).add(MIB_DASH).add(command(r, cut));
                    owner(r, line);
                    notes(r.notes(), line);
                }),
                TextLines.eachLine(shown.pending(), (p, line) -> {
                    line.add(PENDING).add(p.no()).add(tty(p)).add(SPACE);
                    if (p.declaredMib().isPresent()) {
                        line.add(p.declaredMib().getAsLong()).add(MIB);
                    } else {
                        line.add("undeclared");
                    }
                    // A reason may name what the job waits for in its user's words (after=NAME).
                    line.add(WAITS).addRepeated(TerminalText.escape(p.reason().text())).add(DASH).add(command(p, cut));
                    owner(p, line);
                    notes(p.notes(), line);
                }),
                TextLines.one(() -> shown.leftOut() == 0 ? null : "  (" + shown.leftOut() + " earlier finished job"
                        + (shown.leftOut() == 1 ? "" : "s") + " not shown: gpusched queue --all)"),
                TextLines.eachLine(done, (d, line) -> {
                    String status = d.status().journalName();
                    line.add("ok".equals(status) ? "✓" : "✗").add(" job ").add(d.no()).add(" ").add(status);
                    if (d.status().isFailure()) {
                        line.add(", exit ").add(d.exitCode());
                    }
                    line.add(DASH).add(command(d, cut));
                    owner(d, line);
                }),
                TextLines.one(() -> cut[0] ? "  (commands over " + ProtocolCodec.LIST_COMMAND_CHARS + " characters are shortened,"
                        + " ending in …: gpusched show N prints one whole)" : null)), ascii);
    }

    /**
     * @return the row's command as the list shows it, noting in {@code cut} when it was shortened: escaped
     *     ({@link TerminalText}), not cleaned to {@code ?} as the table's is, since the list is what scripts
     *     read, and what they read should say what the command holds. It is printed where no one checks
     *     for a terminal (a pipe to {@code grep}, {@code less -R}, {@code ssh host gpusched queue}), and
     *     the command is another user's.
     */
    private static String command(Row r, boolean[] cut) {
        if (r.command().isCut()) {
            cut[0] = true;
        }
        return TerminalText.escape(r.command().text());
    }

    /**
     * {@code gpusched show N}: a line saying where the job is (and why it waits, or how it ended), then its
     * whole command, its line breaks kept and other control characters shown as {@code ?}; or, with
     * {@code json}, {@code {"job": {...}, "list": ...}} with the row's command whole.
     */
    static void printJob(PrintStream out, GpuschedClient.Job job, boolean json) {
        Row row = job.row().withCommand(ListText.whole(job.command()));
        if (json) {
            out.println(SortedJson.of("{\"list\":\"" + job.list().wireName() + "\",\"job\":" + CODEC.encode(row) + "}"));
            return;
        }
        String where;
        if (row instanceof Row.Running r) {
            where = "running on gpu" + r.gpus() + " for " + QueueTable.duration(Math.round(r.elapsedSeconds())) + ", peak " + r.peakMib() + " MiB";
        } else if (row instanceof Row.Pending p) {
            where = (p.held() ? "held" : "pending") + ", " + mib(p.declaredMib()) + ", waits: " + p.reason().text();
        } else if (row instanceof Row.Ended e) {
            where = ended(e);
        } else {
            where = "interrupted (runs again on restart)";
        }
        out.println("job " + row.no() + " " + DisplayWidth.clean(where) + owner(row));
        out.println(String.join("\n", java.util.Arrays.stream(job.command().split("\n", -1)).map(DisplayWidth::clean)
                .toList()));
    }
}

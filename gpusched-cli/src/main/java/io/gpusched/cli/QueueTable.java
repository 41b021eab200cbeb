package io.gpusched.cli;

import io.gpusched.protocol.ListText;
import io.gpusched.protocol.Row;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * {@code gpusched queue} as a table: a title row, then one row per job (running, interrupted, pending,
 * then the finished ones shown, oldest first), in the columns of a {@link QueueFormat}. Columns are
 * separated by two spaces and sized to their widest cell (or the format's width); the last column is
 * cut to the terminal's width when that is known. With {@code ascii}, every character is plain ASCII
 * ({@code ...} for the ellipsis, {@code >=} for {@code ≥}, {@code ?} for the rest), for a terminal whose
 * locale is not UTF-8.
 */
final class QueueTable {
    private static final String GAP = "  ";

    private final QueueFormat format;
    private final OptionalInt terminalColumns;
    private final boolean ascii;

    /**
     * @param format the columns
     * @param terminalColumns the terminal's width; empty when output goes to no terminal (nothing is cut
     *     but what a column's own width cuts)
     * @param ascii whether to print plain ASCII only
     */
    QueueTable(QueueFormat format, OptionalInt terminalColumns, boolean ascii) {
        this.format = format;
        this.terminalColumns = terminalColumns;
        this.ascii = ascii;
    }

    /**
     * {@code gpusched queue} without {@code --json}: the table when a format was asked for or output goes
     * to a terminal, else the list {@link QueueText#printQueue} has always printed; either in ASCII when
     * the locale is not UTF-8.
     *
     * @param format {@code --format}, if given
     */
    static void printQueue(PrintStream page, QueueView.Shown shown, java.util.Optional<QueueFormat> format) {
        printQueue(page, shown, format, table(format), Terminal.columns(), !utf8Locale());
    }

    /** @return whether {@code gpusched queue} prints the table here: a format was asked for, or output is a terminal */
    static boolean table(java.util.Optional<QueueFormat> format) {
        return format.isPresent() || System.console() != null;
    }

    /**
     * {@link #printQueue(PrintStream, QueueView.Shown, java.util.Optional)} with what it reads from this
     * process's terminal and locale given instead: what a daemon prints for a client that told it those
     * ({@link ServedQueueText}).
     *
     * @param table the table rather than the list
     * @param terminalColumns the terminal's width, for the table's last column; empty for none
     * @param ascii plain ASCII only
     */
    static void printQueue(PrintStream page, QueueView.Shown shown, java.util.Optional<QueueFormat> format, boolean table,
                           OptionalInt terminalColumns, boolean ascii) {
        text(shown, format, table, terminalColumns, ascii).printTo(page);
    }

    /**
     * {@link #printQueue(PrintStream, QueueView.Shown, java.util.Optional, boolean, OptionalInt, boolean)}'s
     * text, a line at a time (issue #27: the daemon writes it as its client's socket takes it); a table's
     * column widths are measured here, over every row, before its first line. In ASCII, the list is
     * converted line by line, as it is written.
     */
    static TextLines text(QueueView.Shown shown, java.util.Optional<QueueFormat> format, boolean table,
                          OptionalInt terminalColumns, boolean ascii) {
        if (table) {
            return new QueueTable(format.orElseGet(() -> defaultFor(shown)), terminalColumns, ascii).lines(shown);
        }
        return QueueText.list(shown, ascii);
    }

    /**
     * The table without {@code --format}: with a TTY column only when a job shown has a terminal, so
     * the common queue without one is not widened by a column of dashes.
     */
    static QueueFormat defaultFor(QueueView.Shown shown) {
        return java.util.stream.Stream.of(shown.running(), shown.pending()).flatMap(List::stream).anyMatch(QueueTable::tty)
                ? QueueFormat.DEFAULT_WITH_TTY : QueueFormat.DEFAULT;
    }

    /** @return whether the job runs, or will run, in a terminal of its own ({@code [tty]}) */
    static boolean tty(Row r) {
        return r instanceof Row.Running x ? x.tty() : r instanceof Row.Pending p && p.tty();
    }

    /**
     * Whether the locale takes UTF-8: the first of LC_ALL, LC_CTYPE and LANG that is set says so; with
     * none set, UTF-8 (Java's own default since 18), so only a locale that names another charset gets
     * ASCII. The rule of every verb's text ({@link LocaleText}), {@code gpusched top}'s included.
     */
    static boolean utf8Locale() {
        for (String name : List.of("LC_ALL", "LC_CTYPE", "LANG")) {
            String v = System.getenv(name);
            if (v != null && !v.isEmpty()) {
                String l = v.toLowerCase(java.util.Locale.ROOT);
                return l.contains("utf-8") || l.contains("utf8");
            }
        }
        return true;
    }

    /** Prints the table of what the queue view kept, then a line naming the finished jobs left out. */
    void print(PrintStream out, QueueView.Shown shown) {
        lines(shown).printTo(out);
    }

    /**
     * {@link #print}'s text, a line at a time: the column widths measured over every row first, each
     * row's cells made again when its line is written (none is kept: a 100,000-job table in the daemon
     * holds its widths, not its cells).
     */
    TextLines lines(QueueView.Shown shown) {
        List<Row> rows = QueueView.joined(List.of(shown.running(), shown.interrupted(), shown.pending(),
                shown.finishedShown()));
        java.time.Instant at = shown.head().at();
        List<QueueFormat.Column> columns = format.columns();
        List<String> titles = new ArrayList<>();
        int[] widest = new int[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            titles.add(columns.get(i).title());
            widest[i] = DisplayWidth.of(titles.get(i));
        }
        for (Row r : rows) {
            for (int i = 0; i < columns.size(); i++) {
                widest[i] = Math.max(widest[i], DisplayWidth.of(text(cell(columns.get(i), r, at))));
            }
        }
        int[] widths = new int[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            OptionalInt cap = columns.get(i).width();
            widths[i] = cap.isPresent() ? Math.min(cap.getAsInt(), Math.max(widest[i], 1)) : widest[i];
        }
        return new TextLines(List.of(
                TextLines.one(() -> line(titles, columns, widths)),
                TextLines.each(rows, r -> {
                    List<String> cells = new ArrayList<>(columns.size());
                    for (QueueFormat.Column c : columns) {
                        cells.add(text(cell(c, r, at)));
                    }
                    return line(cells, columns, widths);
                }),
                TextLines.one(() -> shown.leftOut() == 0 ? null : "(" + shown.leftOut() + " earlier finished job"
                        + (shown.leftOut() == 1 ? "" : "s") + " not shown: gpusched queue --all)")), false);
    }

    private String line(List<String> line, List<QueueFormat.Column> columns, int[] widths) {
        StringBuilder b = new StringBuilder();
        String ellipsis = ascii ? "..." : "…";
        int last = columns.size() - 1;
        for (int i = 0; i <= last; i++) {
            if (i > 0) {
                b.append(GAP);
            }
            String cell = line.get(i);
            if (i < last) {
                b.append(columns.get(i).right() ? DisplayWidth.padLeft(cell, widths[i], ellipsis)
                        : DisplayWidth.padRight(cell, widths[i], ellipsis));
                continue;
            }
            int room = widths[i];
            if (terminalColumns.isPresent()) {
                room = Math.min(room, Math.max(terminalColumns.getAsInt() - DisplayWidth.of(b.toString()), 0));
            }
            // The last column is not padded: no trailing spaces, unless it is aligned to the right.
            String fitted = DisplayWidth.fit(cell, room, room >= DisplayWidth.of(ellipsis) ? ellipsis : "");
            b.append(columns.get(i).right() ? " ".repeat(Math.max(0, room - DisplayWidth.of(fitted))) + fitted : fitted);
        }
        return b.toString().stripTrailing();
    }

    private String text(String s) {
        String clean = DisplayWidth.clean(s);
        return ascii ? ascii(clean) : clean;
    }

    /**
     * @param s text
     * @return {@code s} in plain ASCII: the symbols gpusched itself writes spelled out, any other
     *     character beyond ASCII as {@code ?}
     */
    static String ascii(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            switch (c) {
                case '…' -> b.append("...");
                case '≥' -> b.append(">=");
                case '≤' -> b.append("<=");
                case '—', '–', '−' -> b.append('-');
                case '✓' -> b.append('+');
                case '✗' -> b.append('x');
                case '▶' -> b.append('>');
                case '×' -> b.append('x');
                case '±' -> b.append("+/-");
                case '→' -> b.append("->");
                case '↻' -> b.append('~');
                case '↑' -> b.append('^');
                case '↓' -> b.append('v');
                default -> b.append(c < 0x80 ? (char) c : '?');
            }
        });
        return b.toString();
    }

    /**
     * One cell's text, before cleaning.
     *
     * @param at when the snapshot was taken: a pending job's waiting so far ends there
     */
    static String cell(QueueFormat.Column column, Row r, java.time.Instant at) {
        return switch (column.field()) {
            case JOB -> String.valueOf(r.no());
            case USER -> r.owner().map(ListText::text).orElse("-");
            case STATE -> state(r);
            case TTY -> tty(r) ? "tty" : "-";
            case GPUS -> r instanceof Row.Pending p ? p.gpusAsked().map(ListText::text).orElse("-") : gpus(r);
            case MEMORY -> memory(r);
            case TIME -> r instanceof Row.Pending p ? p.since().map(s -> duration(java.time.Duration.between(s, at)
                    .getSeconds())).orElse("-") : time(r);
            case PRIORITY -> r instanceof Row.Running x ? String.valueOf(x.priority())
                    : r instanceof Row.Pending p ? String.valueOf(p.priority()) : "-";
            case REASON -> reason(r);
            case EXIT -> r instanceof Row.Ended e ? String.valueOf(e.exitCode()) : "-";
            case COMMAND -> r.command().text();
            case NOTE -> notes(r, column.note());
        };
    }

    /**
     * A running or pending job's notes, {@code ; } between two: the one of {@code only} when given, else all of
     * them; "" for a job with none (or an ended one: its row carries none).
     */
    private static String notes(Row r, java.util.Optional<io.gpusched.jobs.Attribute> only) {
        io.gpusched.jobs.Notes<ListText> notes = r instanceof Row.Running x ? x.notes()
                : r instanceof Row.Pending p ? p.notes() : io.gpusched.jobs.Notes.none();
        if (only.isPresent()) {
            return notes.get(only.get()).map(ListText::text).orElse("");
        }
        return String.join("; ", notes.all().stream().map(n -> n.text().text()).toList());
    }

    private static String state(Row r) {
        if (r instanceof Row.Running x) {
            return x.stopping().isPresent() ? "stopping" : "running";
        }
        if (r instanceof Row.Pending p) {
            return p.held() ? "held" : "pending";
        }
        if (r instanceof Row.Ended e) {
            return e.status().journalName();
        }
        return "interrupted";
    }

    private static String gpus(Row r) {
        List<Integer> g = r instanceof Row.Running x ? x.gpus() : r instanceof Row.Ended e ? e.gpus()
                : r instanceof Row.Interrupted i ? i.gpus() : List.of();
        return g.isEmpty() ? "-" : String.join(",", g.stream().map(String::valueOf).toList());
    }

    private static String memory(Row r) {
        if (r instanceof Row.Running x) {
            long used = x.currentMib().values().stream().mapToLong(Long::longValue).sum();
            return mib(used) + "/" + declared(x.declaredMib());
        }
        if (r instanceof Row.Pending p) {
            return "-/" + declared(p.declaredMib());
        }
        if (r instanceof Row.Ended e) {
            return (e.peakMib().isEmpty() ? "-" : mib(e.overallPeakMib())) + "/" + declared(e.declaredMib());
        }
        return "-";
    }

    private static String declared(OptionalLong mib) {
        return mib.isPresent() ? mib(mib.getAsLong()) : "-";
    }

    /** @return MiB as the table writes memory: {@code 512M}, {@code 7.5G}, {@code 24G}, {@code 141G} */
    static String mib(long mib) {
        if (mib < 1024) {
            return mib + "M";
        }
        double gib = mib / 1024.0;
        if (gib >= 100 || mib % 1024 == 0) {
            return Math.round(gib) + "G";
        }
        return String.format(Locale.ROOT, "%.1fG", gib);
    }

    private static String time(Row r) {
        double s = r instanceof Row.Running x ? x.elapsedSeconds() : r instanceof Row.Ended e ? e.durationSeconds()
                : r instanceof Row.Interrupted i ? i.elapsedSeconds() : -1;
        // An outcome folded from an earlier run's journal has no duration: it says so rather than 0s.
        return s < 0 || (r instanceof Row.Ended && s == 0) ? "-" : duration(Math.round(s));
    }

    /**
     * @return whole seconds as the table writes time: {@code 45s}, {@code 3m05s}, {@code 1h02m}, {@code 2d04h}
     *     ({@code stats}'s words for a duration)
     */
    static String duration(long seconds) {
        return StatsFormat.duration(Math.max(0, seconds) * 1000);
    }

    private static String reason(Row r) {
        if (r instanceof Row.Pending p) {
            return p.reason().text();
        }
        if (r instanceof Row.Running x) {
            return x.stopping().map(s -> "stopping: " + s.name().toLowerCase(Locale.ROOT)).orElse("");
        }
        if (r instanceof Row.Ended e) {
            return "exit " + e.exitCode() + e.cause().map(c -> "; " + c.text()).orElse("");
        }
        return "runs again when the scheduler restarts";
    }
}

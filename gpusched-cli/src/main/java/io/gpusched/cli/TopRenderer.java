package io.gpusched.cli;

import io.gpusched.cli.ScreenLine.Style;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code gpusched top}'s frame as a pure function of a snapshot, the terminal's size and the selected
 * job: a title; a memory bar per GPU with its jobs under it; the running and pending jobs with owners,
 * priorities and why each waits; the latest results with their verdicts; a status line. No line is
 * wider than the terminal (text is cut, never wrapped) and the frame is never taller: when the
 * height runs short, what goes first is blank lines, then the latest results, pending jobs, the lines
 * under the bars, and last the running jobs and the bars themselves.
 */
final class TopRenderer {
    /**
     * The characters a frame is drawn with: block characters on a UTF-8 terminal, ASCII elsewhere.
     *
     * @param used a job's memory in use
     * @param usedNext the same for the job after it on a GPU, so neighbours stay apart without colour
     * @param declared memory a job declared beyond what it holds
     * @param external memory other processes use
     * @param ellipsis marks text that was cut
     * @param dash separates and stands for "none"
     * @param ok a result that went well
     * @param failed one that did not
     */
    record Glyphs(String used, String usedNext, String declared, String external, String ellipsis, String dash,
                  String ok, String failed) {
        static final Glyphs UNICODE = new Glyphs("█", "▓", "░", "▒", "…", "—", "✓", "✗");
        static final Glyphs ASCII = new Glyphs("#", "=", "-", "+", "~", "-", "+", "x");
    }

    /**
     * @param width the terminal's columns
     * @param height its rows; an interactive frame fills them, {@code --once} may use fewer
     * @param selected the selected job's number
     * @param status the status line (keys, a question, the daemon's answer), on the last row; none for
     *     {@code --once}
     * @param glyphs what to draw with
     */
    record View(int width, int height, OptionalInt selected, Optional<ScreenLine.Span> status, Glyphs glyphs) {
    }

    /** Running and pending jobs in the order the table lists them, which is also the order keys move in. */
    static List<Integer> selectable(TopSnapshot s) {
        List<Integer> out = new ArrayList<>();
        s.running().forEach(r -> out.add(r.no()));
        s.pending().forEach(p -> out.add(p.no()));
        return out;
    }

    private final TopSnapshot snap;
    private final View view;
    private final Glyphs g;

    private TopRenderer(TopSnapshot snap, View view) {
        this.snap = snap;
        this.view = view;
        this.g = view.glyphs();
    }

    /**
     * @param snap what to show
     * @param view the terminal's size and what is selected
     * @return the frame's lines: at most {@code view.height()}, each at most {@code view.width()}
     *     columns; exactly {@code view.height()} with a status line, which is the last
     */
    static List<ScreenLine> render(TopSnapshot snap, View view) {
        return new TopRenderer(snap, view).frame();
    }

    private List<ScreenLine> frame() {
        if (view.height() <= 0) {
            return List.of();
        }
        List<ScreenLine> bars = bars();
        List<ScreenLine> details = details();
        TopTable jobs = new TopTable(snap, view);
        List<ScreenLine> rows = jobs.rows();
        List<ScreenLine> results = jobs.results();
        int running = snap.running().size();
        int left = view.height() - 1 - (view.status().isPresent() ? 1 : 0);
        int barRoom = Math.min(bars.size(), Math.max(0, left));
        left -= barRoom;
        boolean table = !rows.isEmpty() && left >= 2;
        left -= table ? 1 : 0;
        // Running jobs first, and room for the line that says how many more wait; at least two lines,
        // so the selected job is in sight even in a window of one row and that line.
        int rowRoom = table ? Math.min(Math.max(running + (rows.size() > running ? 1 : 0), Math.min(rows.size(), 2)), left) : 0;
        left -= rowRoom;
        boolean under = barRoom == bars.size() && !details.isEmpty() && left >= details.size();
        left -= under ? details.size() : 0;
        int more = Math.min(rows.size() - rowRoom, table ? left : 0);
        rowRoom += more;
        left -= more;
        boolean recent = !results.isEmpty() && left >= 2;
        int resultRoom = recent ? Math.min(results.size(), left - 1) : 0;
        left -= recent ? 1 + resultRoom : 0;
        boolean gap = left > 0 && (table || recent);
        left -= gap ? 1 : 0;
        boolean gap2 = left > 0 && table && recent;

        List<ScreenLine> out = new ArrayList<>();
        out.add(title());
        List<ScreenLine> shownBars = cut(bars, barRoom, "gpus");
        for (int i = 0; i < shownBars.size(); i++) {
            out.add(shownBars.get(i));
            if (under) {
                out.add(details.get(i));
            }
        }
        if (gap) {
            out.add(ScreenLine.empty());
        }
        if (table) {
            out.add(jobs.head());
            out.addAll(window(rows, rowRoom));
        }
        if (gap2) {
            out.add(ScreenLine.empty());
        }
        if (recent) {
            out.add(ScreenLine.of(DisplayWidth.fit("latest results", view.width(), g.ellipsis()), Style.BOLD));
            out.addAll(results.subList(0, resultRoom));
        }
        if (view.status().isPresent() && view.height() > 1) {
            while (out.size() < view.height() - 1) {
                out.add(ScreenLine.empty());
            }
            ScreenLine.Span s = view.status().get();
            out.add(line().add(s.text(), s.style()).build());
        }
        return out;
    }

    private ScreenLine.Builder line() {
        return new ScreenLine.Builder(view.width(), g.ellipsis());
    }

    private ScreenLine title() {
        return line().add("gpusched top", Style.BOLD).add(" " + g.dash() + " " + snap.running().size() + " running, "
                + snap.pending().size() + " pending, " + snap.finished().size() + " done").build();
    }

    /** The first {@code room} lines, the last of them saying how many more there are when not all fit. */
    private List<ScreenLine> cut(List<ScreenLine> lines, int room, String what) {
        if (lines.size() <= room) {
            return lines;
        }
        if (room <= 0) {
            return List.of();
        }
        List<ScreenLine> out = new ArrayList<>(lines.subList(0, room - 1));
        out.add(moreLine(lines.size() - room + 1, what));
        return out;
    }

    private ScreenLine moreLine(int n, String what) {
        return line().add("  " + g.ellipsis() + " " + n + " more " + what, Style.DIM).build();
    }

    /** The job rows that fit, scrolled so the selected one shows, and how many more there are. */
    private List<ScreenLine> window(List<ScreenLine> rows, int room) {
        if (rows.size() <= room) {
            return rows;
        }
        int shown = room - 1;
        if (shown <= 0) {
            return room <= 0 ? List.of() : List.of(moreLine(rows.size(), "jobs"));
        }
        int at = view.selected().isPresent() ? selectable(snap).indexOf(view.selected().getAsInt()) : -1;
        int start = at >= shown ? at - shown + 1 : 0;
        List<ScreenLine> out = new ArrayList<>(rows.subList(start, start + shown));
        out.add(moreLine(rows.size() - shown, "jobs"));
        return out;
    }

    // --- GPUs

    private List<ScreenLine> bars() {
        if (snap.gpus().isEmpty()) {
            return List.of(line().add("no GPU readings yet", Style.DIM).build());
        }
        int labelWidth = snap.gpus().stream().mapToInt(x -> ("gpu" + x.index()).length()).max().orElse(4);
        List<String> suffixes = snap.gpus().stream().map(this::suffix).toList();
        int suffixWidth = suffixes.stream().mapToInt(String::length).max().orElse(0);
        // The marks take their room from the bar, never get cut: they are what must not be missed.
        int marks = snap.gpus().stream().mapToInt(x -> (x.paused() ? 7 : 0) + (x.healthy() ? 0 : 10)).max().orElse(0);
        int barWidth = Math.max(4, Math.min(60, view.width() - labelWidth - 3 - suffixWidth - marks));
        List<ScreenLine> out = new ArrayList<>();
        for (int i = 0; i < snap.gpus().size(); i++) {
            TopSnapshot.Gpu gpu = snap.gpus().get(i);
            ScreenLine.Builder b = line().add(DisplayWidth.padRight("gpu" + gpu.index(), labelWidth, g.ellipsis()), Style.BOLD)
                    .add(" [");
            for (ScreenLine.Span s : MemoryBar.cells(MemoryBar.segments(gpu, snap.running(), g), gpu.totalMib(), barWidth)) {
                b.add(s.text(), s.style());
            }
            // Padded only where marks follow, to line them up: no trailing blanks in --once's output.
            b.add("]").add(gpu.paused() || !gpu.healthy() ? DisplayWidth.padRight(suffixes.get(i), suffixWidth, g.ellipsis())
                    : suffixes.get(i));
            if (gpu.paused()) {
                b.add(" PAUSED", Style.WARN);
            }
            if (!gpu.healthy()) {
                b.add(" UNHEALTHY", Style.ERROR);
            }
            out.add(b.build());
        }
        return out;
    }

    /** What follows a bar: memory used of total and how busy the GPU is. */
    private String suffix(TopSnapshot.Gpu gpu) {
        return " " + mib(gpu.usedMib()) + "/" + mib(gpu.totalMib())
                + (gpu.utilPercent().isPresent() ? String.format(Locale.ROOT, " %3d%% busy", gpu.utilPercent().getAsInt()) : "");
    }

    /** Under each bar: its jobs (glyph, number, owner, held/declared), others' use, and the headroom. */
    private List<ScreenLine> details() {
        int labelWidth = snap.gpus().stream().mapToInt(x -> ("gpu" + x.index()).length()).max().orElse(4);
        List<ScreenLine> out = new ArrayList<>();
        for (TopSnapshot.Gpu gpu : snap.gpus()) {
            ScreenLine.Builder b = line().add(" ".repeat(labelWidth + 2));
            int k = 0;
            for (TopSnapshot.Running j : MemoryBar.onGpu(gpu, snap.running())) {
                long used = j.currentMib().getOrDefault(gpu.index(), 0L);
                b.add(k++ % 2 == 0 ? g.used() : g.usedNext(), Style.job(j.no()))
                        .add(" " + j.no() + " " + (j.owner().isEmpty() ? "" : j.owner() + " "))
                        .add(mib(used) + "/" + (j.declaredMib().isPresent() ? mib(j.declaredMib().getAsLong()) : g.dash()),
                                TopTable.over(used, j.declaredMib()) ? Style.WARN : Style.PLAIN)
                        .add("  ");
            }
            long external = MemoryBar.external(gpu, snap.running());
            if (external > 0) {
                b.add(g.external(), Style.EXTERNAL).add(" others " + mib(external) + "  ");
            }
            b.add("free " + mib(MemoryBar.headroom(gpu, snap.running())), Style.DIM);
            out.add(b.build());
        }
        return out;
    }

    // --- units

    /** MiB as the screen shows it: {@code 512M} below a GiB, else GiB with one decimal ({@code 23.4G}). */
    static String mib(long mib) {
        return mib < 1024 ? mib + "M" : String.format(Locale.ROOT, "%.1fG", mib / 1024.0);
    }

    /** Seconds as {@code 0:42}, {@code 12:05}, {@code 3:02:07}, {@code 2d04h}. */
    static String elapsed(long seconds) {
        long s = Math.max(0, seconds);
        if (s >= 86_400) {
            return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, s % 86_400 / 3600);
        }
        if (s >= 3600) {
            return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s % 3600 / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}

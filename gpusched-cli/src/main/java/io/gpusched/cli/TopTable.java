package io.gpusched.cli;

import io.gpusched.cli.ScreenLine.Style;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The rows of {@code gpusched top}'s job table (running, then pending, with owner, priority, state,
 * GPUs, memory, time and the command or why the job waits) and of its latest results. Columns are as
 * wide as their widest value (cut past a limit), the time column only on terminals of 100 columns or
 * more; {@link TopRenderer} decides which rows fit.
 */
final class TopTable {
    private final TopSnapshot snap;
    private final TopRenderer.View view;
    private final TopRenderer.Glyphs g;

    TopTable(TopSnapshot snap, TopRenderer.View view) {
        this.snap = snap;
        this.view = view;
        this.g = view.glyphs();
    }

    private ScreenLine.Builder line() {
        return new ScreenLine.Builder(view.width(), g.ellipsis());
    }

    /** Column widths, from every row (not only those shown), so they hold still while the list scrolls. */
    private record Columns(int no, int user, int priority, int gpus, int mem, int time) {
    }

    private Columns columns() {
        int no = 3;
        int user = 4;
        int priority = 3;
        int gpus = 3;
        int mem = 3;
        int time = 0;
        for (TopSnapshot.Running r : snap.running()) {
            no = Math.max(no, String.valueOf(r.no()).length());
            user = Math.max(user, DisplayWidth.of(r.owner()));
            priority = Math.max(priority, String.valueOf(r.priority()).length());
            gpus = Math.max(gpus, gpuList(r).length());
            mem = Math.max(mem, DisplayWidth.of(mem(r)));
            time = Math.max(time, TopRenderer.elapsed(r.elapsedSeconds()).length());
        }
        for (TopSnapshot.Pending p : snap.pending()) {
            no = Math.max(no, String.valueOf(p.no()).length());
            user = Math.max(user, DisplayWidth.of(p.owner()));
            priority = Math.max(priority, String.valueOf(p.priority()).length());
            mem = Math.max(mem, DisplayWidth.of(mem(p)));
        }
        // Narrow terminals keep the command readable: the time goes, and long names are cut.
        return new Columns(no, Math.min(user, 10), priority, Math.min(gpus, 7), mem,
                view.width() >= 100 ? Math.max(4, time) : 0);
    }

    /** @return the table's heading */
    ScreenLine head() {
        Columns c = columns();
        String e = g.ellipsis();
        return line().add("  " + DisplayWidth.padLeft("JOB", c.no(), e) + " " + DisplayWidth.padRight("USER", c.user(), e) + " "
                + DisplayWidth.padLeft("PRI", c.priority(), e) + " ST   " + DisplayWidth.padRight("GPU", c.gpus(), e) + " "
                + DisplayWidth.padRight("MEM", c.mem(), e) + " " + (c.time() > 0 ? DisplayWidth.padLeft("TIME", c.time(), e) + " "
                : "") + "COMMAND", Style.BOLD).build();
    }

    /** @return a row per running job, then per pending job, the selected one marked */
    List<ScreenLine> rows() {
        Columns c = columns();
        String e = g.ellipsis();
        List<ScreenLine> out = new ArrayList<>();
        for (TopSnapshot.Running r : snap.running()) {
            ScreenLine.Builder b = line().selected(isSelected(r.no())).add(isSelected(r.no()) ? "> " : "  ")
                    .add(DisplayWidth.padLeft(String.valueOf(r.no()), c.no(), e), Style.job(r.no()))
                    .add(" " + DisplayWidth.padRight(r.owner(), c.user(), e) + " "
                            + DisplayWidth.padLeft(String.valueOf(r.priority()), c.priority(), e) + " ")
                    .add(r.stopping() ? "stop" : "run ", r.stopping() ? Style.WARN : Style.OK)
                    .add(" " + DisplayWidth.padRight(gpuList(r), c.gpus(), e) + " ")
                    .add(DisplayWidth.padRight(mem(r), c.mem(), e), over(r.usedMib(), r.declaredMib()) ? Style.WARN : Style.PLAIN)
                    .add(" " + (c.time() > 0 ? DisplayWidth.padLeft(TopRenderer.elapsed(r.elapsedSeconds()), c.time(), e) + " " : ""))
                    .add(r.command());
            out.add(b.build());
        }
        for (TopSnapshot.Pending p : snap.pending()) {
            ScreenLine.Builder b = line().selected(isSelected(p.no())).add(isSelected(p.no()) ? "> " : "  ")
                    .add(DisplayWidth.padLeft(String.valueOf(p.no()), c.no(), e) + " "
                            + DisplayWidth.padRight(p.owner(), c.user(), e) + " "
                            + DisplayWidth.padLeft(String.valueOf(p.priority()), c.priority(), e) + " ")
                    .add("wait", Style.DIM)
                    .add(" " + " ".repeat(c.gpus()) + " " + DisplayWidth.padRight(mem(p), c.mem(), e) + " "
                            + (c.time() > 0 ? " ".repeat(c.time() + 1) : ""));
            if (!p.reason().isEmpty()) {
                b.add(p.reason() + " " + g.dash() + " ", Style.WARN);
            }
            out.add(b.add(p.command()).build());
        }
        return out;
    }

    private boolean isSelected(int no) {
        return view.selected().isPresent() && view.selected().getAsInt() == no;
    }

    private static String gpuList(TopSnapshot.Running r) {
        return String.join(",", r.gpus().stream().map(String::valueOf).toList());
    }

    /** A running job's memory: the most it holds on one of its GPUs, over its per-GPU declaration. */
    private String mem(TopSnapshot.Running r) {
        return TopRenderer.mib(r.usedMib()) + "/" + (r.declaredMib().isPresent() ? TopRenderer.mib(r.declaredMib().getAsLong()) : g.dash());
    }

    private String mem(TopSnapshot.Pending p) {
        return g.dash() + "/" + (p.declaredMib().isPresent() ? TopRenderer.mib(p.declaredMib().getAsLong()) : g.dash());
    }

    /** @return whether a job holds more than it declared */
    static boolean over(long used, OptionalLong declared) {
        return declared.isPresent() && used > declared.getAsLong();
    }

    /** @return a row per finished job, newest first */
    List<ScreenLine> results() {
        Columns c = columns();
        String e = g.ellipsis();
        int status = Math.min(10, snap.finished().stream().mapToInt(f -> f.status().length()).max().orElse(2));
        int no = Math.max(c.no(), snap.finished().stream().mapToInt(f -> String.valueOf(f.no()).length()).max().orElse(0));
        int verdicts = snap.finished().stream().mapToInt(f -> f.declaration().length()).max().orElse(0);
        List<ScreenLine> out = new ArrayList<>();
        for (int i = snap.finished().size() - 1; i >= 0; i--) {
            TopSnapshot.Finished f = snap.finished().get(i);
            boolean ok = f.status().equals("ok");
            boolean cancelled = f.status().equals("cancelled");
            String verdict = f.declaration().isEmpty() ? "" : f.declaration();
            String peak = f.peakMib() == 0 && f.declaredMib().isEmpty() ? "" : "peak "
                    + (f.peakMib() > 0 ? TopRenderer.mib(f.peakMib()) : g.dash()) + "/"
                    + (f.declaredMib().isPresent() ? TopRenderer.mib(f.declaredMib().getAsLong()) : g.dash()) + " ";
            // A cancelled job did what its owner asked: neither a tick nor a cross.
            out.add(line().add(ok ? g.ok() : cancelled ? g.dash() : g.failed(), ok ? Style.OK : cancelled ? Style.DIM : Style.ERROR)
                    .add(" " + DisplayWidth.padLeft(String.valueOf(f.no()), no, e) + " "
                            + DisplayWidth.padRight(f.owner(), c.user(), e) + " ")
                    .add(DisplayWidth.padRight(f.status().replace('_', '-'), status, e),
                            ok ? Style.OK : cancelled ? Style.DIM : Style.ERROR)
                    .add(" ")
                    .add(verdicts == 0 ? "" : DisplayWidth.padRight(verdict, verdicts, e) + " ",
                            verdict.equals("under-declared") ? Style.WARN : Style.PLAIN)
                    .add(peak + g.dash() + " " + f.command())
                    .build());
        }
        return out;
    }
}

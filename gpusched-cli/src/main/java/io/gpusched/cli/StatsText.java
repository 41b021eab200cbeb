package io.gpusched.cli;

import static io.gpusched.cli.StatsFormat.duration;
import static io.gpusched.cli.StatsFormat.percent;
import static io.gpusched.cli.StatsFormat.twoDecimals;

import io.gpusched.event.TerminalText;
import io.gpusched.stats.Declarations;
import io.gpusched.stats.Figures;
import io.gpusched.stats.Stats;
import io.gpusched.stats.Utilisation;
import io.gpusched.stats.Waits;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@code gpusched stats} as aligned text: the figures of every counted job, a table of the same per user,
 * then what the journal could not tell.
 */
final class StatsText {
    /** The statuses the table's {@code failed} column adds up: every outcome but ok and cancelled. */
    private static final List<String> FAILURES = List.of("failed", "failed_oom", "timeout", "infeasible",
            "dependency_failed");

    private StatsText() {
    }

    static String render(Stats s, ZoneId zone) {
        StringBuilder out = new StringBuilder();
        long length = s.toMillis() - s.fromMillis();
        line(out, "period", StatsFormat.time(s.fromMillis(), zone) + " to " + StatsFormat.time(s.toMillis(), zone) + " "
                + zone.getId() + " (" + duration(length) + ")");
        line(out, "users", s.query().user().map(u -> "only " + u).orElse("everyone"));
        Figures f = s.total();
        line(out, "jobs", jobs(f));
        line(out, "gpu-hours", twoDecimals(f.gpuHours()));
        line(out, "wait", waits(f.waits()));
        line(out, "utilisation", utilisation(f.utilisation(), s.gpus()));
        line(out, "declarations", declarations(f.declarations(), s.query().tolerance()));
        if (!s.users().isEmpty()) {
            out.append('\n').append(table(s.users()));
        }
        List<String> notes = notes(s);
        if (!notes.isEmpty()) {
            out.append('\n');
            notes.forEach(n -> out.append(n).append('\n'));
        }
        return out.toString();
    }

    private static void line(StringBuilder out, String label, String text) {
        out.append(String.format(Locale.ROOT, "%-14s", label)).append(text).append('\n');
    }

    private static String jobs(Figures f) {
        List<String> parts = new ArrayList<>();
        f.byStatus().forEach((status, n) -> {
            if (n > 0) {
                parts.add(n + " " + status);
            }
        });
        return f.jobs() + (parts.isEmpty() ? "" : ": " + String.join(", ", parts));
    }

    private static String waits(Waits w) {
        if (w.count() == 0) {
            return "none (no job first started in the period)";
        }
        return "p50 " + duration(w.p50Millis().getAsLong()) + ", p95 " + duration(w.p95Millis().getAsLong()) + ", max "
                + duration(w.maxMillis().getAsLong()) + " (" + w.count() + " job" + (w.count() == 1 ? "" : "s") + " started)";
    }

    private static String utilisation(Utilisation u, List<Integer> gpus) {
        if (gpus.isEmpty()) {
            return "none (no job ran on a GPU)";
        }
        List<String> parts = new ArrayList<>();
        gpus.forEach(g -> parts.add("gpu" + g + " " + percent(u.share(g))));
        parts.add("all " + percent(u.all()));
        return String.join(", ", parts);
    }

    private static String declarations(Declarations d, double tolerance) {
        if (d.judged() == 0) {
            return "none judged (no job ended ok with a declaration and a measured peak)";
        }
        return d.judged() + " judged at ±" + percent(tolerance).replace(".0%", "%") + ": "
                + d.within() + " within (" + percent(d.share(d.within())) + "), "
                + d.underDeclared() + " under-declared (" + percent(d.share(d.underDeclared())) + "), "
                + d.overDeclared() + " over-declared (" + percent(d.share(d.overDeclared())) + "); median peak/declared "
                + twoDecimals(d.medianPeakOverDeclared().getAsDouble());
    }

    /** One row per user; numbers right-aligned under their headings. */
    private static String table(List<Stats.UserFigures> users) {
        List<String> heads = List.of("user", "jobs", "ok", "failed", "cancelled", "active", "gpu-hours", "wait p50",
                "wait p95", "wait max", "util", "within", "under", "over", "peak/decl");
        List<Function<Figures, String>> cells = List.of(
                f -> String.valueOf(f.jobs()),
                f -> String.valueOf(f.byStatus().get("ok")),
                f -> String.valueOf(FAILURES.stream().mapToInt(st -> f.byStatus().get(st)).sum()),
                f -> String.valueOf(f.byStatus().get("cancelled")),
                f -> String.valueOf(f.byStatus().get("running") + f.byStatus().get("pending")),
                f -> twoDecimals(f.gpuHours()),
                f -> f.waits().p50Millis().isPresent() ? duration(f.waits().p50Millis().getAsLong()) : "-",
                f -> f.waits().p95Millis().isPresent() ? duration(f.waits().p95Millis().getAsLong()) : "-",
                f -> f.waits().maxMillis().isPresent() ? duration(f.waits().maxMillis().getAsLong()) : "-",
                f -> f.utilisation().busyMillis().isEmpty() ? "-" : percent(f.utilisation().all()),
                f -> String.valueOf(f.declarations().within()),
                f -> String.valueOf(f.declarations().underDeclared()),
                f -> String.valueOf(f.declarations().overDeclared()),
                f -> f.declarations().medianPeakOverDeclared().isPresent()
                        ? twoDecimals(f.declarations().medianPeakOverDeclared().getAsDouble()) : "-");
        List<List<String>> rows = new ArrayList<>();
        rows.add(heads);
        for (Stats.UserFigures u : users) {
            List<String> row = new ArrayList<>();
            row.add(TerminalText.escape(u.user())); // the journal's owner names: text the table does not choose
            cells.forEach(c -> row.add(c.apply(u.figures())));
            rows.add(row);
        }
        int[] width = new int[heads.size()];
        rows.forEach(r -> {
            for (int i = 0; i < r.size(); i++) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        });
        StringBuilder out = new StringBuilder();
        for (List<String> r : rows) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-" + width[0] + "s", r.get(0)));
            for (int i = 1; i < r.size(); i++) {
                line.append("  ").append(String.format(Locale.ROOT, "%" + width[i] + "s", r.get(i)));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    private static List<String> notes(Stats s) {
        Stats.Notes n = s.notes();
        List<String> out = new ArrayList<>();
        if (n.fileJobs() > 0) {
            out.add("jobs-file lines (" + n.fileJobs() + ") are counted as " + s.query().fileJobsOwner()
                    + ", the journal file's owner: the user the scheduler ran as");
        }
        if (n.openRuns() > 0) {
            out.add(count(n.openRuns(), "run has", "runs have") + " no end in the journal (still running, or its"
                    + " scheduler stopped without a word): counted until now");
        }
        List<String> untimed = new ArrayList<>();
        if (n.untimedRuns() > 0) {
            untimed.add(count(n.untimedRuns(), "run", "runs"));
        }
        if (n.untimedWaits() > 0) {
            untimed.add(count(n.untimedWaits(), "wait", "waits"));
        }
        if (!untimed.isEmpty()) {
            boolean one = n.untimedRuns() + n.untimedWaits() == 1;
            out.add(String.join(" and ", untimed) + (one ? " lacks" : " lack") + " times (journal lines written"
                    + " before gpusched recorded them, by the original tool, or compacted): left out of gpu-hours,"
                    + " waits, utilisation and the plot");
        }
        if (n.untimedEnds() > 0) {
            out.add(count(n.untimedEnds(), "ended job lacks its", "ended jobs lack their") + " end time: left out of"
                    + " --since's period");
        }
        return out;
    }

    private static String count(int n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
    }
}

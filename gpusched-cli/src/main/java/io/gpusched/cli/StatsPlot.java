package io.gpusched.cli;

import io.gpusched.stats.Bar;
import io.gpusched.stats.Stats;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code gpusched stats --plot}: GPU memory over the period as a self-contained SVG, written by hand. One
 * lane per GPU; each run a bar from its start to its end, as high as its peak (or its declaration when the
 * journal has no peak for it), coloured by owner. Runs that share a GPU at once are stacked, as their
 * memory adds up on it; every lane has the same scale, the highest stack's.
 *
 * <p>Structure scripts and tests can rely on: each lane is a {@code <g class="lane" data-gpu="N">}, each run
 * on a GPU one {@code <rect class="bar">} in it with {@code data-job}, {@code data-owner} and a
 * {@code <title>}; the legend is {@code <g class="legend">}.
 */
final class StatsPlot {
    private static final int WIDTH = 960;
    private static final int LEFT = 90;
    private static final int RIGHT = 20;
    private static final int LANE = 110;
    private static final int GAP = 26;
    /** Okabe and Ito's colour-blind-safe palette; owners past it get spread hues. */
    private static final List<String> PALETTE = List.of("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
            "#F0E442", "#999999");

    private StatsPlot() {
    }

    static String render(Stats s, ZoneId zone) {
        List<String> owners = new ArrayList<>(new TreeSet<>(s.bars().stream().map(Bar::owner).toList()));
        Map<String, String> colour = new HashMap<>();
        for (int i = 0; i < owners.size(); i++) {
            colour.put(owners.get(i), i < PALETTE.size() ? PALETTE.get(i)
                    : String.format(Locale.ROOT, "hsl(%d, 55%%, 45%%)", Math.round(i * 137.508) % 360));
        }
        long[] base = stack(s.bars());
        long scale = 1;
        for (int i = 0; i < base.length; i++) {
            scale = Math.max(scale, base[i] + s.bars().get(i).heightMib());
        }
        int legendRows = legendRows(owners);
        int top = 44 + legendRows * 18 + 12;
        int lanes = s.gpus().size();
        int height = top + Math.max(1, lanes) * (LANE + GAP) + 44;
        StringBuilder svg = new StringBuilder();
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", WIDTH, height, WIDTH, height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>\n",
                LEFT, text("GPU memory by job run, " + StatsFormat.time(s.fromMillis(), zone) + " to "
                        + StatsFormat.time(s.toMillis(), zone) + " " + zone.getId()
                        + s.query().user().map(u -> " (" + u + "'s jobs)").orElse(""))));
        legend(svg, owners, colour);
        // What a dashed bar means, bottom right, under the time axis.
        String key = "dashed: no peak measured, as high as declared";
        int keyX = WIDTH - RIGHT - 6 * key.length();
        svg.append(String.format(Locale.ROOT, "<g class=\"key\"><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\""
                + " fill=\"#999999\" fill-opacity=\"0.45\" stroke=\"#333333\" stroke-width=\"0.5\" stroke-dasharray=\"3 2\"/>"
                + "<text x=\"%d\" y=\"%d\" fill=\"#555555\">%s</text></g>\n", keyX - 16, height - 22, keyX, height - 12, key));
        if (lanes == 0) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555555\">no job ran on a GPU in the"
                    + " period</text>\n", LEFT, top + LANE / 2));
        }
        for (int i = 0; i < lanes; i++) {
            lane(svg, s, s.gpus().get(i), top + i * (LANE + GAP), scale, base, colour, zone);
        }
        axis(svg, s, top + lanes * (LANE + GAP), zone);
        svg.append("</svg>\n");
        return svg.toString();
    }

    /**
     * Each bar's base in MiB, by its index: the top of the highest bar before it on its GPU that overlaps
     * it in time. Bars come in start order, so a later job sits on those already there, as its memory does.
     */
    static long[] stack(List<Bar> bars) {
        long[] base = new long[bars.size()];
        // Per GPU, the bars that may still overlap a later one: one that ended before a bar's start cannot.
        Map<Integer, List<Integer>> live = new HashMap<>();
        for (int i = 0; i < bars.size(); i++) {
            Bar b = bars.get(i);
            List<Integer> here = live.computeIfAbsent(b.gpu(), g -> new ArrayList<>());
            here.removeIf(j -> bars.get(j).endMillis() < b.startMillis());
            for (int j : here) {
                if (overlap(bars.get(j), b)) {
                    base[i] = Math.max(base[i], base[j] + bars.get(j).heightMib());
                }
            }
            here.add(i);
        }
        return base;
    }

    private static boolean overlap(Bar a, Bar b) {
        if (a.startMillis() == a.endMillis() || b.startMillis() == b.endMillis()) {
            return a.startMillis() <= b.endMillis() && b.startMillis() <= a.endMillis();
        }
        return a.startMillis() < b.endMillis() && b.startMillis() < a.endMillis();
    }

    private static int legendRows(List<String> owners) {
        int rows = 1;
        int x = LEFT;
        for (String o : owners) {
            int w = legendWidth(o);
            if (x + w > WIDTH - RIGHT && x > LEFT) {
                rows++;
                x = LEFT;
            }
            x += w;
        }
        return rows;
    }

    private static int legendWidth(String owner) {
        return 16 + 7 * Math.min(owner.length(), 40) + 12;
    }

    private static void legend(StringBuilder svg, List<String> owners, Map<String, String> colour) {
        svg.append("<g class=\"legend\">\n");
        int x = LEFT;
        int y = 44;
        if (owners.isEmpty()) {
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#555555\">no runs in the period</text>\n",
                    x, y));
        }
        for (String o : owners) {
            int w = legendWidth(o);
            if (x + w > WIDTH - RIGHT && x > LEFT) {
                x = LEFT;
                y += 18;
            }
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>\n", x, y - 10, colour.get(o), x + 16, y, text(shorten(o))));
            x += w;
        }
        svg.append("</g>\n");
    }

    private static void lane(StringBuilder svg, Stats s, int gpu, int y, long scale, long[] base,
                             Map<String, String> colour, ZoneId zone) {
        int plotWidth = WIDTH - LEFT - RIGHT;
        svg.append(String.format(Locale.ROOT, "<g class=\"lane\" data-gpu=\"%d\">\n", gpu));
        svg.append(String.format(Locale.ROOT, "<rect class=\"lane-bg\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
                + " fill=\"#f4f4f4\" stroke=\"#cccccc\"/>\n", LEFT, y, plotWidth, LANE));
        svg.append(String.format(Locale.ROOT, "<text x=\"8\" y=\"%d\" font-weight=\"bold\">gpu%d</text>\n", y + LANE / 2 + 4,
                gpu));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555555\">%d MiB</text>\n",
                LEFT - 6, y + 10, scale));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#555555\">0</text>\n",
                LEFT - 6, y + LANE));
        long length = s.toMillis() - s.fromMillis();
        for (int i = 0; i < s.bars().size(); i++) {
            Bar b = s.bars().get(i);
            if (b.gpu() != gpu) {
                continue;
            }
            double x0 = x(b.startMillis(), s.fromMillis(), length);
            double x1 = x(b.endMillis(), s.fromMillis(), length);
            double h = b.heightMib() * (double) LANE / scale;
            double bottom = y + LANE - base[i] * (double) LANE / scale;
            boolean none = b.height() == Bar.Height.NONE;
            double drawn = none ? 3 : Math.max(1, h);
            String title = "job " + b.no() + " (" + b.owner() + ") on gpu" + b.gpu() + ": "
                    + StatsFormat.time(b.startMillis(), zone) + " to " + StatsFormat.time(b.endMillis(), zone) + ", "
                    + switch (b.height()) {
                        case PEAK -> "peak " + b.heightMib() + " MiB";
                        case DECLARED -> "declared " + b.heightMib() + " MiB (no peak measured)";
                        case NONE -> "undeclared, no peak measured";
                    } + ", " + b.ending();
            svg.append(String.format(Locale.ROOT, "<rect class=\"bar\" data-job=\"%d\" data-owner=\"%s\" x=\"%.1f\""
                    + " y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"%s\" stroke=\"#333333\""
                    + " stroke-width=\"0.5\"%s><title>%s</title></rect>\n", b.no(), text(b.owner()), x0, bottom - drawn,
                    Math.max(1, x1 - x0), drawn, colour.get(b.owner()), b.height() == Bar.Height.PEAK ? "0.85" : "0.45",
                    b.height() == Bar.Height.PEAK ? "" : " stroke-dasharray=\"3 2\"", text(title)));
            // The job's number inside its bar, where it fits.
            if (x1 - x0 >= 8 * String.valueOf(b.no()).length() + 4 && drawn >= 14) {
                svg.append(String.format(Locale.ROOT, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\""
                        + " font-size=\"11\" fill=\"#000000\">%d</text>\n", (x0 + x1) / 2, bottom - drawn / 2 + 4, b.no()));
            }
        }
        svg.append("</g>\n");
    }

    private static double x(long t, long from, long length) {
        return LEFT + (length <= 0 ? 0 : (t - from) * (double) (WIDTH - LEFT - RIGHT) / length);
    }

    /** Five ticks from the period's start to its end; dates only past a day, milliseconds under a minute. */
    private static void axis(StringBuilder svg, Stats s, int y, ZoneId zone) {
        long length = s.toMillis() - s.fromMillis();
        svg.append("<g class=\"axis\">\n");
        for (int i = 0; i <= 4; i++) {
            long t = s.fromMillis() + length * i / 4;
            double x = x(t, s.fromMillis(), length);
            String label = StatsFormat.time(t, zone);
            label = length > 86_400_000L ? label.substring(5, 16) : length < 60_000 ? label.substring(11)
                    + String.format(Locale.ROOT, ".%03d", Math.floorMod(t, 1000)) : label.substring(11);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999999\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" fill=\"#555555\">%s</text>\n", x, y - GAP + 2, x, y - GAP + 7,
                    x, y - GAP + 20, i == 0 ? "start" : i == 4 ? "end" : "middle", text(label)));
        }
        svg.append("</g>\n");
    }

    private static String shorten(String s) {
        return s.length() <= 40 ? s : s.substring(0, 39) + "…";
    }

    /**
     * Text safe in XML content and attribute values: markup characters escaped, and characters XML 1.0
     * cannot hold at all (most controls, lone surrogates) replaced, so any owner name keeps the file well-formed.
     */
    static String text(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                        out.append(c).append(s.charAt(++i));
                    } else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || Character.isSurrogate(c)
                            || c == 0xFFFE || c == 0xFFFF) {
                        out.append('\uFFFD');
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }
}

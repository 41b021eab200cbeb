package io.gpusched.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A terminal capture with ANSI colours ({@code tmux capture-pane -e}) as a small self-contained SVG:
 * monospace text on a dark background, each run at its column (so block characters line up whatever
 * the font's widths), SGR colours mapped to a fixed palette. For docs/monitoring.md's screenshot of top.
 */
final class AnsiSvg {
    private static final String[] PALETTE = {
        "#1d1f21", "#cc6666", "#b5bd68", "#f0c674", "#81a2be", "#b294bb", "#8abeb7", "#c5c8c6",
        "#666666", "#d54e53", "#b9ca4a", "#e7c547", "#7aa6da", "#c397d8", "#70c0b1", "#eaeaea",
    };
    private static final String BACKGROUND = "#1d1f21";
    private static final String FOREGROUND = "#c5c8c6";
    private static final double CELL_WIDTH = 8.4;
    private static final int CELL_HEIGHT = 17;
    private static final int PAD = 10;

    private AnsiSvg() {
    }

    /** The pen: what the last SGR codes set. */
    private record Pen(int fg, int bg, boolean bold, boolean dim, boolean reverse) {
        static final Pen RESET = new Pen(-1, -1, false, false, false);

        Pen apply(List<Integer> codes) {
            Pen p = this;
            for (int i = 0; i < codes.size(); i++) {
                int c = codes.get(i);
                if (c == 0) {
                    p = RESET;
                } else if (c == 1) {
                    p = new Pen(p.fg, p.bg, true, p.dim, p.reverse);
                } else if (c == 2) {
                    p = new Pen(p.fg, p.bg, p.bold, true, p.reverse);
                } else if (c == 22) {
                    p = new Pen(p.fg, p.bg, false, false, p.reverse);
                } else if (c == 7 || c == 27) {
                    p = new Pen(p.fg, p.bg, p.bold, p.dim, c == 7);
                } else if (c >= 30 && c <= 37 || c >= 90 && c <= 97) {
                    p = new Pen(c >= 90 ? c - 82 : c - 30, p.bg, p.bold, p.dim, p.reverse);
                } else if (c >= 40 && c <= 47 || c >= 100 && c <= 107) {
                    p = new Pen(p.fg, c >= 100 ? c - 92 : c - 40, p.bold, p.dim, p.reverse);
                } else if (c == 39) {
                    p = new Pen(-1, p.bg, p.bold, p.dim, p.reverse);
                } else if (c == 49) {
                    p = new Pen(p.fg, -1, p.bold, p.dim, p.reverse);
                } else if ((c == 38 || c == 48) && i + 2 < codes.size() && codes.get(i + 1) == 5) {
                    int n = codes.get(i + 2);
                    int colour = n < 16 ? n : 7; // the 256-colour cube as plain grey: top never asks for it
                    p = c == 38 ? new Pen(colour, p.bg, p.bold, p.dim, p.reverse) : new Pen(p.fg, colour, p.bold, p.dim, p.reverse);
                    i += 2;
                }
            }
            return p;
        }

        String foreground() {
            int f = reverse ? bg : fg;
            return f < 0 ? (reverse ? BACKGROUND : FOREGROUND) : PALETTE[f];
        }

        String background() {
            int b = reverse ? fg : bg;
            return b < 0 ? (reverse ? FOREGROUND : null) : PALETTE[b];
        }
    }

    /**
     * @param capture the pane's lines with their SGR escapes
     * @param columns the pane's width
     * @return the SVG document
     */
    static String render(List<String> capture, int columns) {
        StringBuilder text = new StringBuilder();
        StringBuilder boxes = new StringBuilder();
        Pen pen = Pen.RESET;
        for (int row = 0; row < capture.size(); row++) {
            String line = capture.get(row);
            int col = 0;
            int i = 0;
            double y = PAD + row * CELL_HEIGHT;
            while (i < line.length()) {
                if (line.charAt(i) == '\u001b') {
                    int end = i + 1;
                    while (end < line.length() && !Character.isLetter(line.charAt(end))) {
                        end++;
                    }
                    if (end < line.length() && line.charAt(end) == 'm' && i + 1 < line.length() && line.charAt(i + 1) == '[') {
                        List<Integer> codes = new ArrayList<>();
                        for (String s : line.substring(i + 2, end).split(";", -1)) {
                            codes.add(s.isEmpty() ? 0 : Integer.parseInt(s));
                        }
                        pen = pen.apply(codes);
                    }
                    i = end + 1;
                    continue;
                }
                int next = line.indexOf('\u001b', i);
                String run = line.substring(i, next < 0 ? line.length() : next);
                int width = DisplayWidth.of(run);
                if (pen.background() != null) {
                    boxes.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                            PAD + col * CELL_WIDTH, y, width * CELL_WIDTH, CELL_HEIGHT, pen.background()));
                }
                if (!run.isBlank()) {
                    // textLength holds the run to its cells, whatever widths the reader's font has.
                    text.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" textLength=\"%.1f\" "
                                    + "lengthAdjust=\"spacingAndGlyphs\" fill=\"%s\"%s%s>%s</text>%n",
                            PAD + col * CELL_WIDTH, y + CELL_HEIGHT - 4, width * CELL_WIDTH, pen.foreground(),
                            pen.bold ? " font-weight=\"bold\"" : "", pen.dim ? " opacity=\"0.6\"" : "", escape(run)));
                }
                col += width;
                i += run.length();
            }
        }
        double w = 2 * PAD + columns * CELL_WIDTH;
        double h = 2 * PAD + capture.size() * CELL_HEIGHT;
        return String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                + "viewBox=\"0 0 %.0f %.0f\">%n<rect width=\"100%%\" height=\"100%%\" rx=\"6\" fill=\"%s\"/>%n"
                + "<g font-family=\"'DejaVu Sans Mono', Menlo, Consolas, monospace\" font-size=\"14\" xml:space=\"preserve\" style=\"white-space:pre\">%n",
                w, h, w, h, BACKGROUND) + boxes + text + "</g>\n</svg>\n";
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}

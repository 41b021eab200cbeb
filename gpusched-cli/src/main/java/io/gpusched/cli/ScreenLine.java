package io.gpusched.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * One line of {@code gpusched top}'s screen: runs of text, each in a {@link Style}. The text is what
 * {@code --once} prints and what tests compare; {@link #ansi()} adds the colours for a terminal.
 *
 * @param spans the runs, left to right
 * @param selected whether the line is the selected job's (shown in reverse video)
 */
record ScreenLine(List<Span> spans, boolean selected) {
    ScreenLine {
        spans = List.copyOf(spans);
    }

    /** How a run of text looks on a terminal. */
    enum Style {
        PLAIN(""), BOLD("1"), DIM("2"), WARN("33"), ERROR("31"), OK("32"), EXTERNAL("90"),
        JOB0("36"), JOB1("35"), JOB2("34"), JOB3("96"), JOB4("95"), JOB5("94");

        private static final Style[] JOBS = {JOB0, JOB1, JOB2, JOB3, JOB4, JOB5};
        private final String sgr;

        Style(String sgr) {
            this.sgr = sgr;
        }

        /** @return the colour of a job, the same wherever it appears (its bar, its row) */
        static Style job(int no) {
            return JOBS[Math.floorMod(no, JOBS.length)];
        }
    }

    /**
     * @param text clean text ({@link DisplayWidth#clean})
     * @param style how it looks
     */
    record Span(String text, Style style) {
    }

    static ScreenLine of(String text, Style style) {
        return new ScreenLine(List.of(new Span(text, style)), false);
    }

    static ScreenLine empty() {
        return new ScreenLine(List.of(), false);
    }

    /** @return the text without colours */
    String plain() {
        StringBuilder b = new StringBuilder();
        spans.forEach(s -> b.append(s.text()));
        return b.toString();
    }

    /** @return the columns the line takes */
    int columns() {
        return DisplayWidth.of(plain());
    }

    /** @return the text with ANSI colours, each coloured run followed by a reset */
    String ansi() {
        StringBuilder b = new StringBuilder();
        for (Span s : spans) {
            String codes = String.join(";", java.util.stream.Stream.of(selected ? "7" : "", s.style().sgr)
                    .filter(c -> !c.isEmpty()).toList());
            b.append(codes.isEmpty() ? s.text() : "\u001b[" + codes + "m" + s.text() + "\u001b[0m");
        }
        return b.toString();
    }

    /**
     * Builds a line that never takes more than its width: text added past it is cut, and the cut is
     * marked with the ellipsis.
     */
    static final class Builder {
        private final int width;
        private final String ellipsis;
        private final List<Span> spans = new ArrayList<>();
        private int used;
        private boolean full;
        private boolean selected;

        /**
         * @param width the most columns the line may take
         * @param ellipsis what marks a cut, one column
         */
        Builder(int width, String ellipsis) {
            this.width = Math.max(0, width);
            this.ellipsis = ellipsis;
        }

        Builder selected(boolean s) {
            selected = s;
            return this;
        }

        /** @return the columns still free */
        int left() {
            return width - used;
        }

        /** Adds clean text, cut (with the ellipsis) if it does not fit. */
        Builder add(String text, Style style) {
            if (full || text.isEmpty()) {
                return this;
            }
            if (left() == 0) {
                markCut();
                return this;
            }
            int w = DisplayWidth.of(text);
            String t = w <= left() ? text : DisplayWidth.fit(text, left(), ellipsis);
            if (w > left()) {
                full = true;
            }
            if (!t.isEmpty()) {
                spans.add(new Span(t, style));
                used += DisplayWidth.of(t);
            }
            return this;
        }

        /** Text came after the line was already full: its last column becomes the ellipsis. */
        private void markCut() {
            full = true;
            int e = DisplayWidth.of(ellipsis);
            while (!spans.isEmpty()) {
                Span last = spans.remove(spans.size() - 1);
                used -= DisplayWidth.of(last.text());
                if (left() >= e) {
                    String kept = DisplayWidth.prefix(last.text(), left() - e);
                    spans.add(new Span(kept + ellipsis, last.style()));
                    used += DisplayWidth.of(kept) + e;
                    return;
                }
            }
        }

        Builder add(String text) {
            return add(text, Style.PLAIN);
        }

        ScreenLine build() {
            return new ScreenLine(spans, selected);
        }
    }
}

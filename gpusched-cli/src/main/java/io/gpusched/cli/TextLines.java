package io.gpusched.cli;

import io.gpusched.service.QueuePrinter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A text of lines made one at a time ({@code gpusched queue}'s list and table): parts one after
 * another, each a number of lines, a slice a line. A line is made only when its slice is written, so
 * the daemon writes a 100,000-job queue's text without holding it (issue #27), and the client that
 * prints from rows writes the same bytes through {@link #printTo}. Slices are written in order, every
 * one before any is written again ({@link QueuePrinter.Text}), so a part may say what the lines above
 * it had (the list's closing note on shortened commands).
 */
final class TextLines implements QueuePrinter.Text {
    /** Lines of a part, each made when asked for. */
    interface Part {
        /** @return how many slices the part has */
        int size();

        /**
         * @param i 0 to {@link #size()} - 1
         * @return its line, without a line end; {@code null} for none (a note with nothing to say)
         */
        String line(int i);

        /**
         * Makes line {@code i} into {@code into} (emptied), when this part makes its lines that way
         * ({@link #eachLine}): straight into UTF-8, no string made.
         *
         * @return false, having made nothing, for a part that makes strings only
         */
        default boolean make(int i, TextLine into) {
            return false;
        }
    }

    private final List<Part> parts;
    private final int[] ends;
    private final boolean ascii;
    /** The line being made, reused: slices are written one at a time, by one writer at a time. */
    private final TextLine scratch = new TextLine();

    /**
     * @param parts the parts, in order
     * @param ascii each line in plain ASCII ({@link QueueTable#ascii}) as it is written
     */
    TextLines(List<Part> parts, boolean ascii) {
        this.parts = List.copyOf(parts);
        this.ends = new int[parts.size()];
        int total = 0;
        for (int i = 0; i < parts.size(); i++) {
            total += parts.get(i).size();
            ends[i] = total;
        }
        this.ascii = ascii;
    }

    /** @return a part of one line, made by {@code line} when written ({@code null}: none) */
    static Part one(java.util.function.Supplier<String> line) {
        return new Part() {
            @Override
            public int size() {
                return 1;
            }

            @Override
            public String line(int i) {
                return line.get();
            }
        };
    }

    /** @return a part of a line for each of {@code rows}, made by {@code line} */
    static <R> Part each(List<R> rows, java.util.function.Function<R, String> line) {
        return new Part() {
            @Override
            public int size() {
                return rows.size();
            }

            @Override
            public String line(int i) {
                return line.apply(rows.get(i));
            }
        };
    }

    /**
     * @return a part of a line for each of {@code rows}, made by {@code line} into a {@link TextLine}
     *     (issue #27: a 100,000-job queue's rows, written by the daemon without a string each)
     */
    static <R> Part eachLine(List<R> rows, java.util.function.BiConsumer<R, TextLine> line) {
        Part strings = each(rows, r -> {
            TextLine t = new TextLine();
            line.accept(r, t);
            return t.toString();
        });
        return new Part() {
            @Override
            public int size() {
                return strings.size();
            }

            @Override
            public String line(int i) {
                return strings.line(i);
            }

            @Override
            public boolean make(int i, TextLine into) {
                line.accept(rows.get(i), into);
                return true;
            }
        };
    }

    @Override
    public int slices() {
        return ends.length == 0 ? 0 : ends[ends.length - 1];
    }

    @Override
    public void write(int slice, OutputStream out) throws IOException {
        java.util.Objects.checkIndex(slice, slices());
        int p = 0;
        while (slice >= ends[p]) {
            p++;
        }
        Part part = parts.get(p);
        int i = slice - (p == 0 ? 0 : ends[p - 1]);
        if (!ascii && part.make(i, scratch.clear())) {
            scratch.writeLineTo(out);
            return;
        }
        String line = part.line(i);
        if (line != null) {
            out.write((ascii ? QueueTable.ascii(line) : line).getBytes(StandardCharsets.UTF_8));
            out.write('\n');
        }
    }

    /** Writes every slice to {@code page}: the whole text, as the client prints it from rows. */
    void printTo(PrintStream page) {
        try {
            for (int k = 0; k < slices(); k++) {
                write(k, page);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a PrintStream keeps its errors, it does not throw
        }
    }
}

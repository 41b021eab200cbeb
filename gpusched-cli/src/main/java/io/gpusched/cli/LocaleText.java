package io.gpusched.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Text for people in the locale's charset, by {@code gpusched queue}'s rule ({@link QueueTable#utf8Locale}):
 * UTF-8 unless LC_ALL, LC_CTYPE or LANG (the first set) names another charset (C, POSIX, ISO-8859-1),
 * and then plain ASCII, each character spelt as {@link QueueTable#ascii} spells it ({@code ≥} as
 * {@code >=}, {@code é} as {@code ?}). For the text of every verb that prints users' text ({@code show},
 * {@code info}, {@code top}, {@code stats}, {@code status}, {@code submit --dry-run}), and for standard
 * error as a whole (its errors and {@code srun}'s status lines; {@link Main} sets it so); never for JSON,
 * which is UTF-8 for the script that reads it, nor for a job's own output ({@code logs}, {@code srun}'s
 * command), which is the program's bytes.
 */
final class LocaleText {
    private LocaleText() {
    }

    /** @return {@code out} under a UTF-8 locale (or none); else a stream that writes what it is given in ASCII */
    static PrintStream of(PrintStream out) {
        return QueueTable.utf8Locale() ? out : ascii(out);
    }

    /** @return a stream that writes UTF-8 text to {@code out} in ASCII, a line (or a flush) at a time */
    static PrintStream ascii(OutputStream out) {
        return new PrintStream(new Ascii(out), true, StandardCharsets.UTF_8);
    }

    /** UTF-8 in, ASCII out: each line (or what a flush finds) converted whole, a character cut at a flush kept for the next. */
    private static final class Ascii extends OutputStream {
        private final OutputStream to;
        private final ByteArrayOutputStream held = new ByteArrayOutputStream();

        Ascii(OutputStream to) {
            this.to = to;
        }

        @Override
        public void write(int b) throws IOException {
            held.write(b);
            if (b == '\n') {
                pass(held.size());
            }
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }

        @Override
        public void flush() throws IOException {
            pass(complete(held.toByteArray()));
            to.flush();
        }

        @Override
        public void close() throws IOException {
            pass(held.size());
            to.close();
        }

        /** Writes the first {@code n} bytes held, in ASCII, and keeps the rest. */
        private void pass(int n) throws IOException {
            byte[] all = held.toByteArray();
            to.write(QueueTable.ascii(new String(all, 0, n, StandardCharsets.UTF_8)).getBytes(StandardCharsets.US_ASCII));
            held.reset();
            held.write(all, n, all.length - n);
        }

        /** @return how many of {@code b}'s bytes end on a whole UTF-8 character */
        private static int complete(byte[] b) {
            for (int i = b.length - 1, back = 1; i >= 0 && back <= 4; i--, back++) {
                int c = b[i] & 0xff;
                if (c < 0x80) {
                    return b.length;
                }
                if (c >= 0xc0) {
                    int needs = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
                    return back >= needs ? b.length : i;
                }
            }
            return b.length;
        }
    }
}

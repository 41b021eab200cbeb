package io.gpusched.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One line of {@code gpusched queue}'s text made of its parts straight into UTF-8 bytes, reused line
 * after line: what {@link TextLines} writes for a row, where concatenating a {@code String} and encoding
 * it were most of a 100,000-job text's cost in the daemon (issue #27; a line with {@code …} or
 * {@code —} is a UTF-16 string, which the JDK encodes a character at a time into an array it then
 * copies). Each part is encoded by {@code String.getBytes(UTF_8)}, a lone surrogate as {@code ?}, so a
 * line whose parts are each bounded by ASCII (as the queue's are) has the bytes of its parts joined and
 * encoded at once ({@code TextLineTest}).
 */
final class TextLine {
    /**
     * Words many lines share, such as {@code … job }, in UTF-8 once: with {@code …} or {@code —} a Java
     * string holds two bytes a character, which the daemon would otherwise encode again, a character at a
     * time, on each of 100,000 lines.
     */
    static final class Words {
        private final byte[] utf8;

        Words(String words) {
            utf8 = words.getBytes(StandardCharsets.UTF_8);
        }
    }

    private byte[] buf = new byte[512];
    private int length;
    /** The last string {@link #addRepeated} encoded, and its bytes. */
    private String repeated = "";
    private byte[] repeatedBytes = new byte[0];
    private int repeatedLength;

    /** Empties it for the next line. */
    TextLine clear() {
        length = 0;
        return this;
    }

    /** @return the line so far, as a string */
    @Override
    public String toString() {
        return new String(buf, 0, length, StandardCharsets.UTF_8);
    }

    /** Writes the line so far and its end, {@code \n}. */
    void writeLineTo(OutputStream out) throws IOException {
        room(1);
        buf[length] = '\n';
        out.write(buf, 0, length + 1);
    }

    /**
     * Appends {@code s} in UTF-8. A part is mostly ASCII text held one byte a character, which the JDK's
     * encoder copies whole after one pass that finds no byte above 127: a third of the work of copying its
     * characters out and encoding them one by one here.
     */
    TextLine add(String s) {
        return s.isEmpty() ? this : add(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Appends a fixed part, encoded once ({@link Words}). */
    TextLine add(Words w) {
        return add(w.utf8);
    }

    private TextLine add(byte[] utf8) {
        room(utf8.length);
        System.arraycopy(utf8, 0, buf, length, utf8.length);
        length += utf8.length;
        return this;
    }

    /**
     * {@link #add(String)} for a part most lines share (a pending job's reason: jobs of one shape wait for
     * the same words, often the very same string): the bytes of the last one are copied when {@code s}
     * is it, or equal to it, rather than encoded again.
     */
    TextLine addRepeated(String s) {
        if (s != repeated && !s.equals(repeated)) {
            int start = length;
            add(s);
            repeated = s;
            repeatedLength = length - start;
            if (repeatedBytes.length < repeatedLength) {
                repeatedBytes = new byte[2 * repeatedLength];
            }
            System.arraycopy(buf, start, repeatedBytes, 0, repeatedLength);
            return this;
        }
        room(repeatedLength);
        System.arraycopy(repeatedBytes, 0, buf, length, repeatedLength);
        length += repeatedLength;
        return this;
    }

    /** Appends {@code n} in decimal, as {@code String.valueOf} writes it. */
    TextLine add(long n) {
        if (n < 0) {
            if (n == Long.MIN_VALUE) {
                return add(Long.toString(n));
            }
            room(1);
            buf[length++] = '-';
            n = -n;
        }
        room(20);
        int digits = 1;
        for (long v = n; v >= 10; v /= 10) {
            digits++;
        }
        for (int i = length + digits - 1; i >= length; i--) {
            buf[i] = (byte) ('0' + n % 10);
            n /= 10;
        }
        length += digits;
        return this;
    }

    private void room(int more) {
        if (length + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, length + more));
        }
    }
}

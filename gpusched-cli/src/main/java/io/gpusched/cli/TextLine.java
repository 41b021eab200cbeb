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
 * copies). The bytes are those of {@code String.getBytes(UTF_8)} of the parts joined: each part is
 * encoded as that encodes it, a lone surrogate as {@code ?}, so a line whose parts are each bounded by
 * ASCII (as the queue's are) reads the same either way ({@code TextLineTest}).
 */
final class TextLine {
    private byte[] buf = new byte[512];
    private int length;
    /** A string's characters, copied out at once: a {@code charAt} each cost the daemon's C1 code twice as much. */
    private char[] chars = new char[256];
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

    /** Appends {@code s} in UTF-8. */
    TextLine add(String s) {
        int n = s.length();
        room(3 * n); // a character is at most 3 bytes, a pair of two 4
        if (n > chars.length) {
            chars = new char[Math.max(n, 2 * chars.length)];
        }
        char[] cs = chars;
        s.getChars(0, n, cs, 0);
        byte[] b = buf;
        int at = length;
        for (int i = 0; i < n; i++) {
            char c = cs[i];
            if (c < 0x80) {
                b[at++] = (byte) c;
            } else if (c < 0x800) {
                b[at++] = (byte) (0xC0 | c >> 6);
                b[at++] = (byte) (0x80 | c & 0x3F);
            } else if (!Character.isSurrogate(c)) {
                b[at++] = (byte) (0xE0 | c >> 12);
                b[at++] = (byte) (0x80 | c >> 6 & 0x3F);
                b[at++] = (byte) (0x80 | c & 0x3F);
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(cs[i + 1])) {
                int cp = Character.toCodePoint(c, cs[++i]);
                b[at++] = (byte) (0xF0 | cp >> 18);
                b[at++] = (byte) (0x80 | cp >> 12 & 0x3F);
                b[at++] = (byte) (0x80 | cp >> 6 & 0x3F);
                b[at++] = (byte) (0x80 | cp & 0x3F);
            } else {
                b[at++] = '?'; // a lone surrogate, as the JDK's encoder writes it
            }
        }
        length = at;
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

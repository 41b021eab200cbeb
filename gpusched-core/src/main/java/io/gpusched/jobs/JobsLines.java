package io.gpusched.jobs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Cuts jobs-file content into lines and enforces what must hold before a line is parsed at all: at
 * most {@link JobsFileParser#MAX_LINE_BYTES} per line, at most {@link JobsFileParser#MAX_FILE_BYTES}
 * per file, and UTF-8. Lines are split on LF only (a CR before it, or at the end of the last line, is
 * the line end's: the parser takes it off, and it is not counted against the line limit; any other CR
 * is refused there); a leading BOM is skipped. Errors name the first offending line, so every
 * line before it has already been handed on, in order.
 */
final class JobsLines {
    /** Receives each line, without its LF, and its 1-based number. */
    interface Sink {
        void line(String raw, int lineNo);
    }

    private static final int PREVIEW_CHARS = 100;

    private JobsLines() {
    }

    /**
     * A file's bytes, {@code bytes[0, length)}.
     *
     * @param complete whether they are the whole file; else the file went on past them
     */
    record Content(byte[] bytes, int length, boolean complete) {
    }

    /**
     * Reads at most one byte more than the file limit, so a huge or endless file (a FIFO, a device)
     * costs bounded memory and time; {@link #split(Content, String, Sink)} reports the excess. The
     * buffer is sized from the file's length, so a normal file is read with one allocation.
     */
    static Content read(Path file) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(file); InputStream in = Channels.newInputStream(ch)) {
            int limit = JobsFileParser.MAX_FILE_BYTES + 1;
            int hint = (int) Math.min(ch.size(), JobsFileParser.MAX_FILE_BYTES) + 1;
            byte[] buf = new byte[hint];
            int n = in.readNBytes(buf, 0, hint);
            if (n < hint || hint == limit) {
                return new Content(buf, n, n < limit);
            }
            // Longer than its size said (it grew, or it is a pipe or a device): read on, to the limit.
            byte[] rest = in.readNBytes(limit - n);
            byte[] all = Arrays.copyOf(buf, n + rest.length);
            System.arraycopy(rest, 0, all, n, rest.length);
            return new Content(all, all.length, all.length < limit);
        }
    }

    /**
     * @param content the file's bytes, whole or as {@link #read} returns them; beyond the file limit
     *     (one byte more is enough to tell) the line that crosses it is an error
     */
    static void split(Content content, String source, Sink sink) {
        byte[] bytes = content.bytes();
        int n = content.length();
        int bom = n >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF ? 3 : 0;
        split(content, bom, 0, source, sink);
    }

    /**
     * As {@link #split(Content, String, Sink)}, from an offset just after a line end, with the lines
     * before it already handed on: the numbering goes on from {@code linesBefore}.
     *
     * @param from where the first line to hand on starts (0, or just after an LF)
     * @param linesBefore how many lines end before {@code from}
     */
    static void split(Content content, int from, int linesBefore, String source, Sink sink) {
        byte[] bytes = content.bytes();
        int n = content.length();
        boolean over = n > JobsFileParser.MAX_FILE_BYTES;
        int start = from;
        int lineNo = linesBefore;
        while (start <= n) {
            int end = indexOfLf(bytes, start, n);
            lineNo++;
            int length = end - start;
            if (over && end >= JobsFileParser.MAX_FILE_BYTES) {
                // This line (or its line end) is where the file passes the limit; a line that runs to the
                // end of a partial read may be longer than what was read.
                String preview = preview(bytes, start, length);
                if (length > JobsFileParser.MAX_LINE_BYTES) {
                    throw tooLong(source, lineNo, preview, (end == n && !content.complete() ? "at least " : "") + length);
                }
                throw new JobSpecException(source, lineNo, preview,
                        "jobs file goes on past the " + JobsFileParser.MAX_FILE_BYTES + "-byte limit in line",
                        "keep the jobs file under " + (JobsFileParser.MAX_FILE_BYTES >> 20)
                                + " MiB: remove finished lines or split the queue into several files");
            }
            if (length - (length > 0 && bytes[end - 1] == '\r' ? 1 : 0) > JobsFileParser.MAX_LINE_BYTES) {
                throw tooLong(source, lineNo, preview(bytes, start, length),
                        String.valueOf(length - (bytes[end - 1] == '\r' ? 1 : 0)));
            }
            // The lenient decoder is the fast path; U+FFFD in its output is either in the file or marks a bad
            // sequence (including CESU-8 surrogates and overlong forms), and only then is the line checked strictly.
            String raw = new String(bytes, start, length, StandardCharsets.UTF_8);
            if (raw.indexOf('\uFFFD') >= 0 && !strictUtf8(bytes, start, length)) {
                throw new JobSpecException(source, lineNo, raw, "line is not valid UTF-8 (bad bytes shown as \uFFFD):",
                        "save the jobs file as UTF-8");
            }
            sink.line(raw, lineNo);
            start = end + 1;
        }
    }

    /** The same cuts and line limit for text already in memory (which a file limit cannot protect any more). */
    static void split(String text, String source, Sink sink) {
        int n = text.length();
        int start = n > 0 && text.charAt(0) == '\uFEFF' ? 1 : 0;
        int lineNo = 0;
        while (start <= n) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = n;
            }
            lineNo++;
            checkLength(text, start, end, source, lineNo);
            sink.line(text.substring(start, end), lineNo);
            start = end + 1;
        }
    }

    /** Throws when {@code text[from, to)}, less a CR that ends it, is longer than the line limit in UTF-8. */
    static void checkLength(String text, int from, int to, String source, int lineNo) {
        // A char is at most 3 UTF-8 bytes (a surrogate pair is 4 for 2 chars), so short lines need no count.
        if (to - from > JobsFileParser.MAX_LINE_BYTES / 3) {
            if (text.charAt(to - 1) == '\r') {
                to--;
            }
            long bytes = utf8Length(text, from, to);
            if (bytes > JobsFileParser.MAX_LINE_BYTES) {
                throw tooLong(source, lineNo, text.substring(from, from + PREVIEW_CHARS), String.valueOf(bytes));
            }
        }
    }

    /** UTF-8 length of {@code s[from, to)}; an unpaired surrogate counts 3, as if it were encoded alone. */
    static long utf8Length(CharSequence s, int from, int to) {
        long bytes = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    private static JobSpecException tooLong(String source, int lineNo, String preview, String length) {
        return new JobSpecException(source, lineNo, preview,
                "line is " + length + " bytes long, over the " + JobsFileParser.MAX_LINE_BYTES + "-byte limit:",
                "keep each job on one line of at most " + JobsFileParser.MAX_LINE_BYTES + " bytes (is this really a jobs file?)");
    }

    /** The first characters of a line too long to decode whole, as many as a String line would show. */
    private static String preview(byte[] bytes, int start, int length) {
        String head = new String(bytes, start, Math.min(length, 4 * PREVIEW_CHARS), StandardCharsets.UTF_8);
        return head.length() > PREVIEW_CHARS ? head.substring(0, PREVIEW_CHARS) : head;
    }

    private static int indexOfLf(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return to;
    }

    private static boolean strictUtf8(byte[] bytes, int from, int length) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, from, length));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}

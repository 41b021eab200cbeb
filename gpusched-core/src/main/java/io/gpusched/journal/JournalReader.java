package io.gpusched.journal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Reads {@code journal.jsonl} line by line in bounded memory, whatever the file holds. Each good event
 * is handed on in order; a line that is not an event (torn by a crash, garbage, not UTF-8, a field of
 * the wrong type, longer than {@link #MAX_LINE_BYTES}) is skipped, and so is an event of a type this
 * version does not know. Loading never fails on content: skipped lines are counted into at most one
 * warning per kind.
 */
final class JournalReader {
    /**
     * The longest line read, in bytes (a CR that ends it aside): 1 MiB. The longest event gpusched writes is a {@code seen} whose
     * command is a whole jobs-file line (at most 64 KiB, under 400 KiB even with every character
     * escaped), so anything longer is not one of its lines.
     */
    static final int MAX_LINE_BYTES = 1 << 20;

    private static final int CHUNK = 64 * 1024;

    /**
     * @param warnings one-line warnings, at most one per kind (unreadable, too long, unknown type)
     * @param endsMidLine whether the file's last byte is not a line end (a torn write), so the next
     *     append must start a fresh line
     */
    record Result(List<String> warnings, boolean endsMidLine) {
    }

    private final String name;
    private final JournalCodec codec;
    private final Consumer<JournalEntry> sink;
    private byte[] line = new byte[8 * 1024];
    private int lineLength;
    private long lineBytes;
    private long lineNo;
    private long unreadable;
    private long firstUnreadable;
    private long tooLong;
    private long firstTooLong;
    private long unknown;
    private long salvaged;
    private long firstSalvaged;

    private JournalReader(String name, JournalCodec codec, Consumer<JournalEntry> sink) {
        this.name = name;
        this.codec = codec;
        this.sink = sink;
    }

    /**
     * @param path the journal file
     * @param codec decodes each line
     * @param sink receives every good event, in file order
     * @return the warnings and whether the file ends mid-line
     * @throws IOException only if the file cannot be read
     */
    static Result read(Path path, JournalCodec codec, Consumer<JournalEntry> sink) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return new JournalReader(path.toString(), codec, sink).readAll(in, false);
        }
    }

    /**
     * Reads as {@link #read}, but a last line without its line end is left out without a word: a reader
     * beside a live scheduler may catch an append half-written, which is not damage.
     *
     * @param path the journal file
     * @param codec decodes each line
     * @param sink receives every good event of a whole line, in file order
     * @return the warnings and whether the file ends mid-line
     * @throws IOException only if the file cannot be read
     */
    static Result readWholeLines(Path path, JournalCodec codec, Consumer<JournalEntry> sink) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            return new JournalReader(path.toString(), codec, sink).readAll(in, true);
        }
    }

    private Result readAll(InputStream in, boolean wholeLinesOnly) throws IOException {
        byte[] chunk = new byte[CHUNK];
        int last = '\n';
        int n;
        while ((n = in.read(chunk)) >= 0) {
            int start = 0;
            for (int i = 0; i < n; i++) {
                if (chunk[i] == '\n') {
                    append(chunk, start, i - start);
                    endLine();
                    start = i + 1;
                }
            }
            append(chunk, start, n - start);
            if (n > 0) {
                last = chunk[n - 1];
            }
        }
        if (lineBytes > 0 && !wholeLinesOnly) {
            endLine();
        }
        return new Result(warnings(), last != '\n');
    }

    /** Keeps at most {@link #MAX_LINE_BYTES} of a line, plus a CR that may end it; the rest is only counted. */
    private void append(byte[] bytes, int from, int length) {
        lineBytes += length;
        if (lineBytes > MAX_LINE_BYTES + 1 || length == 0) {
            return;
        }
        if (lineLength + length > line.length) {
            line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES + 1, Math.max(line.length * 2, lineLength + length)));
        }
        System.arraycopy(bytes, from, line, lineLength, length);
        lineLength += length;
    }

    private void endLine() {
        lineNo++;
        try {
            boolean crEnd = lineBytes == lineLength && lineLength > 0 && line[lineLength - 1] == '\r';
            if (lineBytes - (crEnd ? 1 : 0) > MAX_LINE_BYTES) {
                tooLong++;
                firstTooLong = firstTooLong == 0 ? lineNo : firstTooLong;
                return;
            }
            String text = new String(line, 0, lineLength, StandardCharsets.UTF_8);
            if (text.isBlank()) {
                return;
            }
            Optional<JournalEntry> event;
            try {
                // U+FFFD from the lenient decoder is either in the file or marks bytes that are not UTF-8.
                if (text.indexOf('\uFFFD') >= 0 && !strictUtf8(line, lineLength)) {
                    throw new IllegalArgumentException("not UTF-8");
                }
                event = codec.decodeEntry(text.strip());
            } catch (IllegalArgumentException e) {
                // A damaged end still says its job ended: running it again would break P1.
                Optional<JournalEntry> end = codec.salvageEnd(text.strip());
                if (end.isEmpty()) {
                    throw e;
                }
                salvaged++;
                firstSalvaged = firstSalvaged == 0 ? lineNo : firstSalvaged;
                event = end;
            }
            if (event.isPresent()) {
                sink.accept(event.get());
            } else {
                unknown++;
            }
        } catch (IllegalArgumentException e) {
            unreadable++;
            firstUnreadable = firstUnreadable == 0 ? lineNo : firstUnreadable;
        } finally {
            lineLength = 0;
            lineBytes = 0;
        }
    }

    private List<String> warnings() {
        List<String> out = new ArrayList<>();
        if (unreadable > 0) {
            out.add("journal " + name + ": skipped " + unreadable + " unreadable line" + (unreadable == 1 ? "" : "s")
                    + " (first at line " + firstUnreadable + "), kept every other event");
        }
        if (salvaged > 0) {
            out.add("journal " + name + ": " + salvaged + " job-end line" + (salvaged == 1 ? "" : "s") + " with a bad"
                    + " field (first at line " + firstSalvaged + "): kept as ended, not run again (exit code -1 where its"
                    + " own was unreadable; status failed where its was, which --retry-failed runs again)");
        }
        if (tooLong > 0) {
            out.add("journal " + name + ": skipped " + tooLong + " line" + (tooLong == 1 ? "" : "s") + " longer than "
                    + MAX_LINE_BYTES + " bytes (first at line " + firstTooLong + "), kept every other event");
        }
        if (unknown > 0) {
            out.add("journal " + name + ": ignored " + unknown + " event" + (unknown == 1 ? "" : "s")
                    + " of a type this version does not know (written by a newer gpusched?)");
        }
        return out;
    }

    private static boolean strictUtf8(byte[] bytes, int length) {
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, length));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }
}

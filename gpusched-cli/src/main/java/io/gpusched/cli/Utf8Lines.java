package io.gpusched.cli;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * Where a file's bytes stop being UTF-8, as the line to name in {@code FILE:LINE:}: a decoder's own
 * message says only {@code Input length = 1}. For the files the CLI reads whole (the serve configuration,
 * {@code convert}'s CSV), each counting lines as its own reader of the text does.
 */
final class Utf8Lines {
    private Utf8Lines() {
    }

    /**
     * @param bytes a file's bytes
     * @param loneCrEndsLine whether a CR alone ends a line (as {@link String#lines} and
     *     {@code Files.readAllLines} count), or only LF (then a CR LF's CR is part of its line)
     * @return the 1-based number of the first line whose bytes are not UTF-8; empty when all are
     */
    static OptionalInt firstBadLine(byte[] bytes, boolean loneCrEndsLine) {
        CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        int no = 1;
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i < bytes.length && bytes[i] != '\n' && !(loneCrEndsLine && bytes[i] == '\r')) {
                continue;
            }
            try {
                strict.decode(ByteBuffer.wrap(bytes, start, i - start));
            } catch (CharacterCodingException e) {
                return OptionalInt.of(no);
            }
            if (loneCrEndsLine && i + 1 < bytes.length && bytes[i] == '\r' && bytes[i + 1] == '\n') {
                i++;
            }
            no++;
            start = i + 1;
        }
        return OptionalInt.empty();
    }
}

package io.gpusched.protocol;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * The few protocol lines {@code gpusched queue} needs, written and read without {@link ProtocolCodec}'s
 * JSON library: a client JVM starts cold, and loading that library cost the verb about a fifth of its
 * wall time (issue #27). Each writer gives the very bytes the codec writes ({@code QueueTextLinesTest}
 * checks them against it); each reader takes only the line the codec writes for that answer, and
 * anything else (an error, an older daemon's rows, a field added later) is left to the codec by its
 * caller, which then asks again with a full client.
 *
 * <p>Written without string concatenation by {@code +}: on Java 9 and later that links a method handle
 * chain at its first use, which costs a cold JVM more than all of this.
 */
public final class QueueTextLines {
    /** The {@code hello} request, as the codec writes it. */
    public static final String HELLO = "{\"v\":1,\"op\":\"hello\"}";

    private static final String HELLO_HEAD = "{\"v\":1,\"ok\":true,\"server\":\"gpusched\",\"user\":\"";
    private static final String TEXT_HEAD = "{\"v\":1,\"ok\":true,\"text_bytes\":";
    /** The head of a {@code queue} text in chunks, as the codec writes it. */
    public static final String TEXT_CHUNKS_HEAD = "{\"v\":1,\"ok\":true,\"text_chunks\":true}";
    /** The most digits of a chunk's length line: those of {@link Answer.QueueTextChunks#MAX_CHUNK_BYTES}. */
    public static final int MAX_CHUNK_DIGITS = 7;
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private QueueTextLines() {
    }

    /**
     * @param text how the queue is to be printed
     * @return the {@code queue} request with {@code "stream": true} and {@code text}, byte for byte as
     *     {@link ProtocolCodec#encode} writes it; empty when a string holds a UTF-16 surrogate (left to
     *     the codec, whose handling of a lone one this does not copy)
     */
    public static Optional<String> request(Request.Text text) {
        StringBuilder b = new StringBuilder(128).append("{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"")
                .append(text.table() ? "table" : "list").append('"');
        if (text.format().isPresent() && !string(b.append(",\"format\":"), text.format().get())) {
            return Optional.empty();
        }
        if (text.width().isPresent()) {
            b.append(",\"width\":").append(text.width().getAsInt());
        }
        if (text.ascii()) {
            b.append(",\"ascii\":true");
        }
        if (text.user().isPresent() && !string(b.append(",\"user\":"), text.user().get())) {
            return Optional.empty();
        }
        if (text.all()) {
            b.append(",\"all\":true");
        }
        if (text.chunks()) {
            b.append(",\"chunks\":true");
        }
        return Optional.of(b.append("}}").toString());
    }

    /**
     * @param line an answer line
     * @return its {@code text_bytes} when it is a {@code queue} text's head exactly as the codec writes
     *     it ({@code {"v":1,"ok":true,"text_bytes":N}}); empty for any other line
     */
    public static OptionalLong textBytes(String line) {
        if (!line.startsWith(TEXT_HEAD) || !line.endsWith("}")) {
            return OptionalLong.empty();
        }
        String digits = line.substring(TEXT_HEAD.length(), line.length() - 1);
        // At most 18 digits: a count that parses, and no sign, no leading zero, nothing but digits.
        if (digits.isEmpty() || digits.length() > 18 || (digits.length() > 1 && digits.charAt(0) == '0')) {
            return OptionalLong.empty();
        }
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.of(Long.parseLong(digits));
    }

    /**
     * @param line an answer line
     * @return whether it is the head of a {@code queue} text in chunks exactly as the codec writes it
     *     ({@link #TEXT_CHUNKS_HEAD}); false for any other line
     */
    public static boolean textChunks(String line) {
        return line.equals(TEXT_CHUNKS_HEAD);
    }

    /**
     * Reads a chunk's length line ({@link Answer.QueueTextChunks}): ASCII digits, no sign, no leading
     * zero, at most {@link Answer.QueueTextChunks#MAX_CHUNK_BYTES}; {@code 0} alone ends the text.
     *
     * @param digits the line without its end
     * @return its length, 0 for the text's end; -1 when it is no such line
     */
    public static int chunkBytes(CharSequence digits) {
        int n = digits.length();
        if (n == 0 || n > MAX_CHUNK_DIGITS || (n > 1 && digits.charAt(0) == '0')) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < n; i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value <= Answer.QueueTextChunks.MAX_CHUNK_BYTES ? value : -1;
    }

    /**
     * @param line an answer line
     * @return the {@code user} of a {@code hello} answer exactly as the codec writes it, when the name
     *     needs no escape; empty for any other line
     */
    public static Optional<String> helloUser(String line) {
        if (!line.startsWith(HELLO_HEAD) || !line.endsWith("\"}") || line.length() < HELLO_HEAD.length() + 2) {
            return Optional.empty();
        }
        String user = line.substring(HELLO_HEAD.length(), line.length() - 2);
        for (int i = 0; i < user.length(); i++) {
            char c = user.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20 || Character.isSurrogate(c)) {
                return Optional.empty();
            }
        }
        return user.isEmpty() ? Optional.empty() : Optional.of(user);
    }

    /**
     * Appends {@code s} as a JSON string, escaped as the codec's generator escapes it: {@code "} and
     * {@code \}, the short escapes for backspace, tab, newline, form feed and carriage return, every other
     * control character as {@code \}{@code u00XX}; everything else as it is.
     *
     * @return false, having appended part of it, when {@code s} holds a surrogate
     */
    private static boolean string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                return false;
            }
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\b' -> b.append("\\b");
                case '\t' -> b.append("\\t");
                case '\n' -> b.append("\\n");
                case '\f' -> b.append("\\f");
                case '\r' -> b.append("\\r");
                default -> {
                    if (c < 0x20) {
                        b.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
        return true;
    }
}

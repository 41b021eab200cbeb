package io.gpusched.event;

/**
 * Text a user chose (a job's command, an {@code after=} name, a comment, a path, a failure's cause),
 * made safe to print on another person's terminal: the daemon's log on root's console, {@code gpusched
 * queue} piped to {@code grep} or {@code less -R}, the status board under {@code watch cat}. Every
 * character that a terminal acts on rather than shows, or that hides or reorders the text around it, is
 * written as a visible escape, so a command can neither send escape sequences (a title, an OSC 52
 * clipboard write, a screen clear), nor move the cursor back over what the line said ({@code \r},
 * {@code \b}), nor start a line of its own ({@code \n}, {@code \v}, {@code \f}, U+0085, U+2028), nor
 * flip the order of what follows it (U+202E). Ordinary text, of any script, is left exactly as it was,
 * so log lines and queue lines of ordinary jobs read as they always did.
 *
 * <p>What is escaped, and how:
 * <ul>
 * <li>C0 controls: {@code \t}, {@code \n}, {@code \r} and {@code \e} (ESC) by name, the others as
 *     {@code \x07}; DEL as {@code \x7f}; C1 controls (U+0080 to U+009F) as {@code \x9b}. A tab is escaped
 *     too: it looks like spaces, and text for people and for {@code cut -f} is unambiguous without it.</li>
 * <li>Line and paragraph separators (U+2028, U+2029) and format characters (Unicode's Cf: the bidi
 *     embeddings, overrides, isolates and marks U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F,
 *     U+061C; zero-width spaces, U+FEFF, the soft hyphen, tag characters) as {@code \u202e}, or
 *     {@code \U000e0041} beyond the BMP. Zero-width joiner and non-joiner (U+200D, U+200C) are kept: they
 *     join emoji and the letters of scripts such as Persian and Devanagari, and hide or reorder nothing.</li>
 * <li>A surrogate without its pair as {@code \ud800}.</li>
 * </ul>
 *
 * <p>A backslash is not escaped. Commands are shell text, full of backslashes ({@code printf '%s\n'},
 * {@code sed 's/\./_/'}, {@code C:\data}); doubling them would change every such line, and a command
 * copied from the log would no longer be the command. What is left ambiguous is only whether a
 * {@code \e} seen in one user's text was an ESC or a backslash and an {@code e} the user typed: both
 * came from the same user, neither can do anything to the terminal or to the text around it, and the
 * exact text is in {@code gpusched show N --json}. The result is escaped already: escaping it again
 * changes nothing.
 */
public final class TerminalText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private TerminalText() {
    }

    /**
     * A user's value as a message repeats it: {@link #escape escaped}, on one line, and cut to
     * {@code maxChars} characters and {@code ...}, so a refusal never repeats a mebibyte or a newline a
     * request held. A surrogate pair is never cut in two.
     *
     * @param text any text, as a user gave it
     * @param maxChars the most characters kept before {@code ...}, at least 1
     * @return the excerpt, at most {@code maxChars + 3} characters
     */
    public static String excerpt(String text, int maxChars) {
        // Cut before escaping, so a long value costs no more than its first characters, and after, as
        // escapes lengthen what they write.
        String escaped = escape(cut(text, maxChars + 1));
        return escaped.length() > maxChars || text.length() > maxChars ? cut(escaped, maxChars) + "..." : escaped;
    }

    /** The first {@code n} characters of {@code s}, one less where a surrogate pair would be split. */
    private static String cut(String s, int n) {
        if (s.length() <= n) {
            return s;
        }
        return s.substring(0, Character.isHighSurrogate(s.charAt(n - 1)) ? n - 1 : n);
    }

    /**
     * @param text any text, as a user gave it
     * @return {@code text} with each character a terminal would act on, and each that hides or reorders
     *     text, written as a visible escape; {@code text} itself when it has none (most text, which costs
     *     one pass over its characters)
     */
    public static String escape(String text) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            // Printable ASCII, nearly all of every command, is decided without a look-up.
            if (c < 0x20 || c > 0x7e) {
                if (escaped(text, i)) {
                    return escapeFrom(text, i);
                }
                if (pairAt(text, i)) {
                    i++; // its low surrogate is part of the character just kept
                }
            }
        }
        return text;
    }

    /** Whether {@code text} has a surrogate pair (one character beyond the BMP) at {@code i}. */
    private static boolean pairAt(String text, int i) {
        return Character.isHighSurrogate(text.charAt(i)) && i + 1 < text.length()
                && Character.isLowSurrogate(text.charAt(i + 1));
    }

    /** Whether the code point at {@code i} is escaped (a surrogate counts as its pair, when it has one). */
    private static boolean escaped(String text, int i) {
        char c = text.charAt(i);
        if (c < 0xa0) {
            return c < 0x20 || c >= 0x7f; // C0, DEL, C1
        }
        if (pairAt(text, i)) {
            return escaped(text.codePointAt(i));
        }
        if (Character.isSurrogate(c)) {
            return true; // unpaired: callers step over a pair's low surrogate with its high one
        }
        return escaped(c);
    }

    private static boolean escaped(int codePoint) {
        if (codePoint == 0x200c || codePoint == 0x200d) {
            return false;
        }
        int type = Character.getType(codePoint);
        return type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR || type == Character.SURROGATE;
    }

    private static String escapeFrom(String text, int first) {
        StringBuilder b = new StringBuilder(text.length() + 16);
        b.append(text, 0, first);
        int i = first;
        while (i < text.length()) {
            char c = text.charAt(i);
            boolean pair = pairAt(text, i);
            int cp = pair ? text.codePointAt(i) : c;
            int width = pair ? 2 : 1;
            if ((c >= 0x20 && c <= 0x7e) || !escaped(text, i)) {
                b.append(text, i, i + width);
            } else {
                switch (cp) {
                    case '\t' -> b.append("\\t");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case 0x1b -> b.append("\\e");
                    default -> {
                        if (cp < 0xa0) {
                            hex(b.append("\\x"), cp, 2);
                        } else if (cp <= 0xffff) {
                            hex(b.append("\\u"), cp, 4);
                        } else {
                            hex(b.append("\\U"), cp, 8);
                        }
                    }
                }
            }
            i += width;
        }
        return b.toString();
    }

    private static void hex(StringBuilder b, int value, int digits) {
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) {
            b.append(HEX[(value >>> shift) & 0xf]);
        }
    }
}

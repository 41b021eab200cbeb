package io.gpusched.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The attribute block that may start a line, {@code [k=v ...]}, cut into its tokens; and how a value
 * is written so that it reads back the same.
 *
 * <p>A value may be quoted, so it can hold spaces and {@code ]}: {@code 'single quotes'} keep
 * everything up to the next {@code '}; {@code "double quotes"} read {@code \"} as {@code "} and
 * {@code \\} as {@code \}, and keep any other backslash. A quote is special only where a value starts
 * (right after {@code =}); anywhere else it is an ordinary character, so every line written before
 * quoting existed reads as it did. Outside quotes the block ends at the first {@code ]}.
 */
final class AttributeBlock {
    private static final String QUOTE_FIX = "end the value with the quote it starts with, e.g."
            + " [setup='. venv/bin/activate'] python train.py (a value holding ' goes in double quotes:"
            + " setup=\"echo 'hi'\")";

    /**
     * One token of the block.
     *
     * @param text the token as written, quotes included
     * @param start where it starts in {@link AttributeBlock#attributes()}
     * @param end where it ends there
     * @param name the text before the first {@code =}, or the whole token for a bare word
     * @param value the text after the first {@code =}, unquoted; empty for a bare word
     */
    record Token(String text, int start, int end, String name, Optional<String> value) {
    }

    private final String attributes;
    private final List<Token> tokens;
    private final int close;

    private AttributeBlock(String attributes, List<Token> tokens, int close) {
        this.attributes = attributes;
        this.tokens = List.copyOf(tokens);
        this.close = close;
    }

    /** @return the text between {@code [} and the closing {@code ]} */
    String attributes() {
        return attributes;
    }

    /** @return the tokens in the order written */
    List<Token> tokens() {
        return tokens;
    }

    /** @return the index of the closing {@code ]} in the line */
    int close() {
        return close;
    }

    /**
     * @param line a stripped line that starts with {@code [}
     * @return its block; empty when no {@code ]} outside quotes closes it
     * @throws JobSpecException for a quoted value that is not closed, or is followed by more text
     */
    static Optional<AttributeBlock> read(String line, String source, int lineNo) {
        List<Token> tokens = new ArrayList<>();
        int n = line.length();
        int i = 1;
        while (true) {
            while (i < n && isSpace(line.charAt(i))) {
                i++;
            }
            if (i >= n) {
                return Optional.empty();
            }
            if (line.charAt(i) == ']') {
                return Optional.of(new AttributeBlock(line.substring(1, i), shift(tokens), i));
            }
            int start = i;
            while (i < n && !isSpace(line.charAt(i)) && line.charAt(i) != ']' && line.charAt(i) != '=') {
                i++;
            }
            String name = line.substring(start, i);
            Optional<String> value = Optional.empty();
            if (i < n && line.charAt(i) == '=') {
                i++;
                if (i < n && (line.charAt(i) == '\'' || line.charAt(i) == '"')) {
                    StringBuilder v = new StringBuilder();
                    i = quoted(line, i, v);
                    if (i < 0) {
                        throw new JobSpecException(source, lineNo, line.substring(start), "unterminated quote in attribute block:",
                                QUOTE_FIX);
                    }
                    if (i < n && !isSpace(line.charAt(i)) && line.charAt(i) != ']') {
                        int after = i;
                        while (after < n && !isSpace(line.charAt(after)) && line.charAt(after) != ']') {
                            after++;
                        }
                        throw new JobSpecException(source, lineNo, line.substring(start, after),
                                "text right after the closing quote in attribute block:",
                                "quote the whole value, or put a space after the closing quote");
                    }
                    value = Optional.of(v.toString());
                } else {
                    int from = i;
                    while (i < n && !isSpace(line.charAt(i)) && line.charAt(i) != ']') {
                        i++;
                    }
                    value = Optional.of(line.substring(from, i));
                }
            }
            tokens.add(new Token(line.substring(start, i), start, i, name, value));
        }
    }

    /** Offsets in the line, less the opening bracket: offsets in {@link #attributes()}. */
    private static List<Token> shift(List<Token> tokens) {
        return tokens.stream().map(t -> new Token(t.text(), t.start() - 1, t.end() - 1, t.name(), t.value())).toList();
    }

    /**
     * Reads the quoted value starting at {@code open} (its quote) into {@code into}.
     *
     * @return the index after the closing quote, or -1 when the line ends first
     */
    private static int quoted(String line, int open, StringBuilder into) {
        char quote = line.charAt(open);
        int i = open + 1;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == quote) {
                return i + 1;
            }
            if (quote == '"' && c == '\\' && i + 1 < line.length()
                    && (line.charAt(i + 1) == '"' || line.charAt(i + 1) == '\\')) {
                into.append(line.charAt(i + 1));
                i += 2;
            } else {
                into.append(c);
                i++;
            }
        }
        return -1;
    }

    /** The separators of a block: ASCII whitespace, as {@code \s} in a regular expression. */
    static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    /**
     * @param value any value without a line break
     * @return it as a block's value that {@link #read} gives back: bare when it holds no space, no
     *     {@code ]} and does not start with a quote; else in single quotes; else, holding a single quote,
     *     in double quotes with {@code \} and {@code "} escaped
     */
    static String quote(String value) {
        if (!value.isEmpty() && value.charAt(0) != '\'' && value.charAt(0) != '"'
                && value.chars().noneMatch(c -> isSpace((char) c) || c == ']')) {
            return value;
        }
        if (value.indexOf('\'') < 0) {
            return "'" + value + "'";
        }
        return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}

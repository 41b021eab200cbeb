package io.gpusched.protocol;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * A text as a list view carries it (a {@code queue} answer's rows): whole, or cut to fit with its whole
 * length beside it. On the wire a cut text {@code "command": "python tr…"} is followed by
 * {@code "command_chars": 60007}.
 *
 * @param text the text shown: whole, or cut to one character less than the limit and an ellipsis
 *     ({@code …})
 * @param wholeChars the whole text's length in UTF-16 units when it was cut; empty when {@link #text()}
 *     is whole
 */
public record ListText(String text, OptionalInt wholeChars) {
    /**
     * Checks for nulls.
     *
     * @param text see {@link #text()}
     * @param wholeChars see {@link #wholeChars()}
     */
    public ListText {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(wholeChars, "wholeChars");
    }

    /**
     * @param text a text shown whole
     * @return it, not cut
     */
    public static ListText whole(String text) {
        return new ListText(text, OptionalInt.empty());
    }

    /**
     * A text cut for a list view. Characters are UTF-16 units, as Java and JavaScript count them; a
     * character outside the Basic Multilingual Plane is never split. O(1) in the text's length.
     *
     * @param text the whole text
     * @param maxChars the longest text kept whole, at least 2
     * @return the text itself when it has at most {@code maxChars}; else its first {@code maxChars - 1}
     *     units (one less where that would split a pair) and {@code …}, with its whole length
     * @throws IllegalArgumentException if {@code maxChars} is below 2
     */
    public static ListText cut(String text, int maxChars) {
        if (maxChars < 2) {
            throw new IllegalArgumentException("list views keep at least 2 characters, got " + maxChars);
        }
        if (text.length() <= maxChars) {
            return whole(text);
        }
        int end = maxChars - 1;
        String shown = text.substring(0, Character.isHighSurrogate(text.charAt(end - 1)) ? end - 1 : end) + "…";
        return new ListText(shown, OptionalInt.of(text.length()));
    }

    /** @return whether the text was cut ({@link #wholeChars()} is present) */
    public boolean isCut() {
        return wholeChars.isPresent();
    }
}

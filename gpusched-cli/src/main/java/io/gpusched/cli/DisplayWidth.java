package io.gpusched.cli;

/**
 * How many terminal columns text takes, as {@code wcwidth} counts them: East Asian wide and
 * fullwidth characters (CJK, most emoji) take two, combining marks none, everything else one.
 * {@code gpusched top} truncates by this count, so a command in Chinese cannot push a line past the
 * terminal's edge and make it wrap. Text from jobs is {@link #clean}ed first: a command may hold tabs
 * or escape sequences, which a screen must never pass through.
 */
final class DisplayWidth {
    /** Wide ranges, inclusive pairs, ascending (Unicode's EastAsianWidth W and F, as terminals use them). */
    private static final int[] WIDE = {
        0x1100, 0x115F, 0x231A, 0x231B, 0x2329, 0x232A, 0x23E9, 0x23EC, 0x23F0, 0x23F0, 0x23F3, 0x23F3,
        0x25FD, 0x25FE, 0x2614, 0x2615, 0x2648, 0x2653, 0x267F, 0x267F, 0x2693, 0x2693, 0x26A1, 0x26A1,
        0x26AA, 0x26AB, 0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26CE, 0x26D4, 0x26D4, 0x26EA, 0x26EA,
        0x26F2, 0x26F3, 0x26F5, 0x26F5, 0x26FA, 0x26FA, 0x26FD, 0x26FD, 0x2705, 0x2705, 0x270A, 0x270B,
        0x2728, 0x2728, 0x274C, 0x274C, 0x274E, 0x274E, 0x2753, 0x2755, 0x2757, 0x2757, 0x2795, 0x2797,
        0x27B0, 0x27B0, 0x27BF, 0x27BF, 0x2B1B, 0x2B1C, 0x2B50, 0x2B50, 0x2B55, 0x2B55, 0x2E80, 0x303E,
        0x3041, 0x33FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF, 0xA000, 0xA4CF, 0xA960, 0xA97F, 0xAC00, 0xD7A3,
        0xF900, 0xFAFF, 0xFE10, 0xFE19, 0xFE30, 0xFE6F, 0xFF00, 0xFF60, 0xFFE0, 0xFFE6, 0x1F004, 0x1F004,
        0x1F0CF, 0x1F0CF, 0x1F18E, 0x1F18E, 0x1F191, 0x1F19A, 0x1F200, 0x1F251, 0x1F300, 0x1F64F,
        0x1F680, 0x1F6FF, 0x1F7E0, 0x1F7EB, 0x1F900, 0x1F9FF, 0x1FA70, 0x1FAFF, 0x20000, 0x2FFFD,
        0x30000, 0x3FFFD,
    };

    private DisplayWidth() {
    }

    /** @return the columns one code point takes: 0, 1 or 2 (call {@link #clean} first: controls count 1 here) */
    static int of(int codePoint) {
        int type = Character.getType(codePoint);
        if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || codePoint == 0x200B) {
            return 0;
        }
        int lo = 0;
        int hi = WIDE.length / 2 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (codePoint < WIDE[2 * mid]) {
                hi = mid - 1;
            } else if (codePoint > WIDE[2 * mid + 1]) {
                lo = mid + 1;
            } else {
                return 2;
            }
        }
        return 1;
    }

    /** @return the columns {@code s} takes */
    static int of(String s) {
        return s.codePoints().map(DisplayWidth::of).sum();
    }

    /**
     * @return {@code s} safe to print at a fixed place on a screen: tabs and line breaks as spaces,
     *     other control and format characters (escapes, bidi overrides), lone surrogates and unassigned code
     *     points (whose width no one agrees on) as {@code ?}
     */
    static String clean(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            int type = Character.getType(c);
            if (c == '\t' || c == '\n' || c == '\r' || type == Character.LINE_SEPARATOR
                    || type == Character.PARAGRAPH_SEPARATOR) {
                b.append(' ');
            } else if (type == Character.CONTROL || type == Character.FORMAT || type == Character.SURROGATE
                    || type == Character.UNASSIGNED) {
                b.append('?');
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    /**
     * @param s clean text
     * @param columns the most columns it may take, at least 0
     * @param ellipsis what ends text that had to be cut (one column), e.g. {@code …}
     * @return {@code s} if it fits, else its longest prefix that fits with {@code ellipsis} after it
     */
    static String fit(String s, int columns, String ellipsis) {
        if (of(s) <= columns) {
            return s;
        }
        if (columns <= 0) {
            return "";
        }
        return prefix(s, columns - of(ellipsis)) + ellipsis;
    }

    /** @return the longest prefix of {@code s} taking at most {@code columns} columns */
    static String prefix(String s, int columns) {
        int used = 0;
        int i = 0;
        while (i < s.length()) {
            int c = s.codePointAt(i);
            int w = of(c);
            if (used + w > columns) {
                break;
            }
            used += w;
            i += Character.charCount(c);
        }
        return s.substring(0, i);
    }

    /** @return {@code s} cut or padded with spaces to exactly {@code columns} columns, left-aligned */
    static String padRight(String s, int columns, String ellipsis) {
        String f = fit(s, columns, ellipsis);
        return f + " ".repeat(Math.max(0, columns - of(f)));
    }

    /** @return {@code s} cut or padded with spaces to exactly {@code columns} columns, right-aligned */
    static String padLeft(String s, int columns, String ellipsis) {
        String f = fit(s, columns, ellipsis);
        return " ".repeat(Math.max(0, columns - of(f))) + f;
    }
}

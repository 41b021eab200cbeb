package io.gpusched.jobs;

import io.gpusched.model.GpuschedException;
import java.util.ArrayList;
import java.util.List;

/**
 * A malformed line in a jobs file (or a single job line). Carries where it happened, the offending
 * token and what would have been accepted, so the one-line {@link #getMessage() message} reads like
 * {@code jobs.txt:3: unknown key in attribute block: 'vrma=8G' — did you mean 'vram'?; known keys: vram, gpus,
 * timeout, ...}. Problems that need the whole file read as a statement about the token instead:
 * {@code jobs.txt:7: name=prep is already the name of line 3; give each job its own name}.
 */
public final class JobSpecException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /** Serialized: the file or source name. */
    private final String source;
    /** Serialized: the 1-based line number. */
    private final int line;
    /** Serialized: the offending text. */
    private final String token;
    /** Serialized: what was expected instead. */
    private final String expected;
    /** Serialized: the bad lines reported after this one, when it is the first of a file's. */
    private List<JobSpecException> later = List.of();
    /** Serialized: how many bad lines the file holds, this one included. */
    private int badLines = 1;

    /**
     * @param source the file name (or {@code "<job>"} for a single parsed line)
     * @param line 1-based line number
     * @param token the offending token as it appeared in the input
     * @param problem what is wrong, e.g. {@code "unknown key"}
     * @param expected what would be accepted instead
     */
    public JobSpecException(String source, int line, String token, String problem, String expected) {
        this(problem + " '" + printable(token, 80) + "'; " + expected, source, line, token, expected);
    }

    /** @param detail the message after {@code source:line: }, already printable */
    private JobSpecException(String detail, String source, int line, String token, String expected) {
        super(printable(source, 200) + ":" + line + ": " + detail);
        this.source = source;
        this.line = line;
        this.token = token;
        this.expected = expected;
    }

    /**
     * As the public constructor, with a note after the token, e.g. a suggestion:
     * {@code problem 'token' note; expected}.
     */
    static JobSpecException withNote(String source, int line, String token, String problem, String note, String expected) {
        return new JobSpecException(problem + " '" + printable(token, 80) + "' " + note + "; " + expected, source, line,
                token, expected);
    }

    /**
     * For an error better told without quoting the token: {@code problem expected}, e.g. a rewrite of
     * the line. {@code expected} comes from the input, so it is shown as printable, and shortened.
     */
    static JobSpecException withoutToken(String source, int line, String token, String problem, String expected) {
        return new JobSpecException(problem + " " + printable(expected, 200), source, line, token, expected);
    }

    /**
     * For an error that reads best as a sentence about the token, without quoting it:
     * {@code statement; expected}, e.g. {@code after=train makes a cycle: prep -> train -> prep; ...}.
     * Both parts are shown as printable.
     */
    static JobSpecException stated(String source, int line, String token, String statement, String expected) {
        return new JobSpecException(printable(statement, 1000) + "; " + printable(expected, 1000), source, line, token, expected);
    }

    /**
     * Makes this, the first bad line of a file, also carry the others; called by the parser before it
     * throws, so the exception is complete whenever a caller sees it.
     *
     * @param later the next bad lines, in file order
     * @param badLines how many the file holds in all, this one included
     */
    JobSpecException withLater(List<JobSpecException> later, int badLines) {
        this.later = List.copyOf(later);
        this.badLines = badLines;
        return this;
    }

    /** @return the file name the error was found in, or {@code "<job>"} for a single line */
    public String source() {
        return source;
    }

    /** @return the 1-based line number of the malformed line */
    public int line() {
        return line;
    }

    /** @return the offending token, exactly as it appeared in the input */
    public String token() {
        return token;
    }

    /** @return a description of what would have been accepted */
    public String expected() {
        return expected;
    }

    /**
     * The bad lines of the file this error was found in, one error each: this one (the first) and
     * those after it, up to {@link JobsFileParser#MAX_REPORTED_ERRORS} in all, so a user can fix them in
     * one go. The {@link #getMessage() message} names only this one. After a line that stops the
     * reading (too long, not UTF-8, past the file limit) nothing more is reported. A single job line
     * has only its own error.
     *
     * @return this error followed by the next bad lines in file order; never empty
     */
    public List<JobSpecException> errors() {
        List<JobSpecException> all = new ArrayList<>(1 + later.size());
        all.add(this);
        all.addAll(later);
        return List.copyOf(all);
    }

    /**
     * @return how many bad lines were found in all, this one included: more than {@link #errors()}
     *     holds when there were more than {@link JobsFileParser#MAX_REPORTED_ERRORS}
     */
    public int badLines() {
        return badLines;
    }

    /**
     * Keeps the message on one line, bounded and unambiguous whatever the token holds: C0 and C1
     * controls (NUL, CR, LF, NEL), line and paragraph separators, invisible format characters (bidi
     * overrides, BOM) and unpaired surrogates are shown as escapes.
     */
    static String printable(String text, int maxChars) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        for (; i < text.length() && sb.length() < maxChars; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
                sb.append(String.format("\\x%02x", (int) c));
            } else if (c == 0x2028 || c == 0x2029 || Character.getType(c) == Character.FORMAT) {
                sb.append(String.format("\\u%04x", (int) c));
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                sb.append(c).append(text.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (i < text.length()) {
            sb.append("...");
        }
        return sb.toString();
    }
}

package io.gpusched.jobs;

import io.gpusched.GpuschedException;

/**
 * A malformed line in a jobs file (or a single job line). Carries where it happened, the offending
 * token and what would have been accepted, so the one-line {@link #getMessage() message} reads like
 * {@code jobs.txt:3: unknown key 'vrma' in [vrma=8G]; known keys: vram, gpus, timeout, retries, cancel}.
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

    /**
     * @param source the file name (or {@code "<job>"} for a single parsed line)
     * @param line 1-based line number
     * @param token the offending token as it appeared in the input
     * @param problem what is wrong, e.g. {@code "unknown key"}
     * @param expected what would be accepted instead
     */
    public JobSpecException(String source, int line, String token, String problem, String expected) {
        super(source + ":" + line + ": " + problem + " '" + printable(token) + "'; " + expected);
        this.source = source;
        this.line = line;
        this.token = token;
        this.expected = expected;
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

    /** Keeps the message on one line and bounded, whatever bytes the token holds. */
    private static String printable(String token) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < token.length() && sb.length() < 80; i++) {
            char c = token.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                sb.append(String.format("\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (sb.length() >= 80) {
            sb.append("...");
        }
        return sb.toString();
    }
}

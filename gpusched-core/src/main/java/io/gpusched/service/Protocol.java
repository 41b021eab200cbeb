package io.gpusched.service;

/** Constants of the JSON-lines protocol ({@code PROTOCOL.md}). */
public final class Protocol {
    /** The protocol version this build speaks; a request naming another is refused. */
    public static final int VERSION = 1;
    /**
     * The longest request line, in bytes: 1 MiB, room for a captured environment of thousands of
     * variables; a longer line is refused and the connection closed.
     */
    public static final int MAX_LINE_BYTES = 1 << 20;

    private Protocol() {
    }
}

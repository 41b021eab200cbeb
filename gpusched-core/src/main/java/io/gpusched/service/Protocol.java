package io.gpusched.service;

/**
 * Constants of the JSON-lines protocol ({@code PROTOCOL.md}); the version and the list-view limits are
 * {@link io.gpusched.protocol.ProtocolCodec}'s, repeated here for embedders of the service.
 */
public final class Protocol {
    /** The protocol version this build speaks; a request naming another is refused. */
    public static final int VERSION = io.gpusched.protocol.ProtocolCodec.VERSION;
    /**
     * The longest request line, in bytes: 1 MiB, room for a captured environment of thousands of
     * variables; a longer line is refused and the connection closed.
     */
    public static final int MAX_LINE_BYTES = 1 << 20;
    /**
     * The most characters (UTF-16 units) of a command in a list view: the rows of a {@code queue}
     * answer and of the dashboard. A longer one is cut to 199 and an ellipsis, and its whole length
     * follows as {@code command_chars}; {@code job} answers the whole command.
     */
    public static final int LIST_COMMAND_CHARS = io.gpusched.protocol.ProtocolCodec.LIST_COMMAND_CHARS;
    /**
     * The most characters of any other text in a list view (a reason, a name), cut the same way: room
     * for a reason naming every GPU of a large machine.
     */
    public static final int LIST_TEXT_CHARS = io.gpusched.protocol.ProtocolCodec.LIST_TEXT_CHARS;
    /**
     * A streamed {@code queue} answer starts a new line of rows once one holds this many characters of
     * rows (at most three bytes each in UTF-8). With every row's texts cut ({@link #LIST_COMMAND_CHARS},
     * {@link #LIST_TEXT_CHARS}) a row is at most about 30 KiB even when every character needs a JSON
     * escape, so each line stays under a quarter of {@link #MAX_LINE_BYTES}.
     */
    public static final int ROWS_LINE_CHARS = 64 * 1024;
    /**
     * A {@code queue} answer rendered as text ({@code "text"}) is written in pieces of about this many
     * bytes, each cut after a line end.
     */
    public static final int TEXT_LINE_BYTES = 64 * 1024;
    /** The most bytes of rows a one-line {@code queue} answer (without {@code stream}) carries. */
    public static final int ONE_LINE_ROWS_BYTES = 256 * 1024;
    /** A {@code job} answer's command comes in parts of at most this many characters (UTF-16 units). */
    public static final int COMMAND_PART_CHARS = io.gpusched.protocol.ProtocolCodec.COMMAND_PART_CHARS;

    private Protocol() {
    }
}

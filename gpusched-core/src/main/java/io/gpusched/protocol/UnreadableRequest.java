package io.gpusched.protocol;

import io.gpusched.event.TerminalText;
import java.util.Optional;

/**
 * A request line {@link ProtocolCodec#decodeRequest} cannot read, with the error code {@code PROTOCOL.md}
 * gives the answer to it: {@code bad_request} (not one JSON object, or a field missing or of the wrong
 * type), {@code unsupported_version} or {@code unknown_op}. The message is the answer's, one line a user
 * can act on.
 */
public final class UnreadableRequest extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** Why a line is no request this version reads, as the error code of its answer. */
    public enum Reason {
        /** Not one JSON object, or a field missing or of the wrong type: {@code bad_request}. */
        BAD_REQUEST("bad_request"),
        /** {@code "v"} is not {@value ProtocolCodec#VERSION}: {@code unsupported_version}. */
        UNSUPPORTED_VERSION("unsupported_version"),
        /** {@code "op"} names no request of this version: {@code unknown_op}. */
        UNKNOWN_OP("unknown_op");

        private final String code;

        Reason(String code) {
            this.code = code;
        }

        /** @return the answer's error code, e.g. {@code "bad_request"} */
        public String code() {
            return code;
        }
    }

    /** Why the line was refused: the answer's error code. */
    private final Reason reason;
    /** The op it named, when one of this version; not serialized (an Optional is not serializable). */
    private final transient Optional<String> op;

    UnreadableRequest(Reason reason, Optional<String> op, String message) {
        super(message);
        this.reason = reason;
        this.op = op;
    }

    /**
     * The refusal of a request this version reads but does not take where it came (an {@code exited}
     * outside an srun's session), worded as for an op it does not know.
     *
     * @param op the op as the line named it
     * @return the refusal, {@link Reason#UNKNOWN_OP}
     */
    public static UnreadableRequest unknownOp(Object op) {
        return new UnreadableRequest(Reason.UNKNOWN_OP, Optional.empty(), "unknown op '" + quoted(op, QUOTED_CHARS)
                + "'; known: hello,"
                + " submit, preview, queue, job, cancel, pause, resume, logs, dashboard, drain, srun, srun_attach");
    }

    /** The most characters of what a line sent that a refusal quotes: enough to see which value it was. */
    static final int QUOTED_CHARS = 64;

    /**
     * What a line sent, as a refusal quotes it ({@link TerminalText#excerpt}): a message is one line a user
     * can act on, so it never repeats a line of a mebibyte or a newline the line held.
     *
     * @param value a value of the line (a string, a number, what a JSON object or array read as), or a
     *     message that quotes the line (the JSON reader's)
     * @param maxChars the most characters kept, before {@code ...}
     * @return the quote
     */
    static String quoted(Object value, int maxChars) {
        return TerminalText.excerpt(String.valueOf(value), maxChars);
    }

    /** @return why the line was refused */
    public Reason reason() {
        return reason;
    }

    /**
     * @return the op the line named, when it is one of this version ({@code srun} refused for a mistyped
     *     field: the service then closes the connection after the answer, as for any refused srun); empty
     *     for a line that is not JSON, of another version, or of an unknown op
     */
    public Optional<String> op() {
        return op == null ? Optional.empty() : op;
    }
}

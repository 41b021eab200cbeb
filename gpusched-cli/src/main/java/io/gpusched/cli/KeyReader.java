package io.gpusched.cli;

import java.io.IOException;
import java.io.InputStream;

/**
 * Reads keys from a terminal in key-at-a-time mode: characters as themselves, and the arrow keys'
 * escape sequences ({@code ESC [ A} or, in application cursor mode, {@code ESC O A}) as
 * {@link TopSession#UP} and {@link TopSession#DOWN}. Other sequences are read whole and skipped; an
 * Escape on its own (nothing follows at once) is {@link TopSession#ESCAPE}.
 */
final class KeyReader {
    /** Returned at the end of input. */
    static final int END = -1;
    /** Returned for a sequence that means nothing to top. */
    static final int NONE = 0;

    private final InputStream in;

    KeyReader(InputStream in) {
        this.in = in;
    }

    /** @return the next key, {@link #NONE} for one top ignores, {@link #END} at the end of input */
    int next() throws IOException {
        int b = in.read();
        if (b != TopSession.ESCAPE) {
            // Bytes of a multi-byte character are none of top's keys.
            return b < 0 ? END : b < 0x80 ? b : NONE;
        }
        // A terminal writes a key's whole sequence at once: what is not there yet is another key.
        if (in.available() == 0) {
            return TopSession.ESCAPE;
        }
        int kind = in.read();
        if (kind != '[' && kind != 'O') {
            return kind < 0 ? END : NONE;
        }
        int c;
        // Parameters and intermediates (0x20-0x3F) up to the final byte (0x40-0x7E).
        do {
            c = in.read();
        } while (c >= 0x20 && c < 0x40);
        return switch (c) {
            case 'A' -> TopSession.UP;
            case 'B' -> TopSession.DOWN;
            case -1 -> END;
            default -> NONE;
        };
    }
}

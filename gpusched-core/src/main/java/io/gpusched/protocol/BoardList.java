package io.gpusched.protocol;

import java.util.Locale;
import java.util.Optional;

/**
 * The lists of a queue's board, in the order a streamed {@code queue} answer sends them; each is named
 * on the wire by its lower-case name ({@code "running"}, ...).
 */
public enum BoardList {
    /** Jobs running now. */
    RUNNING,
    /** Jobs waiting, in queue order. */
    PENDING,
    /** Jobs that ended while this scheduler ran. */
    DONE,
    /** Jobs that had ended in an earlier run. */
    EARLIER,
    /** Jobs the scheduler's stop interrupted (they run again on restart). */
    INTERRUPTED;

    /** @return the wire name, e.g. {@code "pending"} */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name a wire name
     * @return the list it names; empty for none
     */
    public static Optional<BoardList> ofWireName(String name) {
        for (BoardList l : values()) {
            if (l.wireName().equals(name)) {
                return Optional.of(l);
            }
        }
        return Optional.empty();
    }
}

package io.gpusched.journal;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One journal line as read back: its event and, when the line says, when it was written. The time is a
 * field of the line ({@code at_ms}) rather than of the event, because it describes the writing, not the
 * job: the scheduler's fold never looks at it, and the original tool and older versions ignore it.
 *
 * @param event the event
 * @param atMillis when the line was appended, in milliseconds since the epoch ({@code at_ms}); empty in
 *     lines of the original tool, of versions before it was written, and of a compacted journal
 */
public record JournalEntry(JournalEvent event, OptionalLong atMillis) {
    /**
     * Checks for nulls.
     *
     * @param event see {@link #event()}
     * @param atMillis see {@link #atMillis()}
     */
    public JournalEntry {
        Objects.requireNonNull(event);
        Objects.requireNonNull(atMillis);
    }

    /**
     * @param event an event
     * @param atMillis when it was written, in milliseconds since the epoch
     * @return the entry
     */
    public static JournalEntry at(JournalEvent event, long atMillis) {
        return new JournalEntry(event, OptionalLong.of(atMillis));
    }

    /**
     * @param event an event
     * @return the entry of a line that says no time
     */
    public static JournalEntry untimed(JournalEvent event) {
        return new JournalEntry(event, OptionalLong.empty());
    }
}

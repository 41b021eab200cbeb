package io.gpusched.model;

import io.gpusched.JobHandle;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A submission (or {@code srun} lease) was refused because the journal cannot be written now: disk
 * full, a file made read-only or immutable, an I/O error. Nothing of it was recorded and no display
 * number was used up: the next submission the journal takes gets the number this one would have had.
 * It fails a {@link JobHandle#number()} future; the service answers it as {@code journal_unwritable}.
 * Submitting again once the journal takes writes succeeds without restarting the scheduler.
 */
public final class JournalUnwritableException extends GpuschedException {
    private static final long serialVersionUID = 1L;

    /** The journal file. */
    private final transient Path journal;
    /** Why the disk refused, as the operating system said it, e.g. {@code No space left on device}. */
    private final String reason;

    /**
     * @param journal the journal file
     * @param reason why the disk refused it, as the operating system said it, e.g. {@code No space left on device}
     */
    public JournalUnwritableException(Path journal, String reason) {
        super("submission refused: journal " + journal + " cannot be written (" + reason + "); nothing was queued and"
                + " no job number used — free space on its disk or make it writable, then submit again");
        this.journal = Objects.requireNonNull(journal, "journal");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** @return the journal file that refused the write */
    public Path journal() {
        return journal;
    }

    /** @return why the disk refused, as the operating system said it, e.g. {@code No space left on device} */
    public String reason() {
        return reason;
    }
}

package io.gpusched.engine.ending;

import io.gpusched.engine.spawn.JobOutput;
import io.gpusched.engine.spawn.OwnerLogTail;
import io.gpusched.journal.JournalEvent;
import java.nio.file.Path;
import java.util.Optional;

/**
 * How the end of a failed job's output is read when the job ran as its owner: as that owner, by a read
 * its owner can make hang (a {@code SIGSTOP} to the reader once it runs as them, a FUSE file that never
 * answers). {@link Outcomes} therefore never makes the scheduler's loop wait on it: it reads on a thread
 * of its own and hands the settlement back to the loop. A port, so a test can give a reader that hangs.
 */
public interface OwnerTails {
    /**
     * @param s a job's submission
     * @return whether it runs as its owner, so its output is read as them
     */
    boolean runsAsOwner(JournalEvent.Submitted s);

    /** @return whether output can be read as its owner at all (without gpusched-runas it is not read) */
    boolean canRead();

    /**
     * Reads the end of {@code log} as {@code owner}, on a reading thread, never the loop's; it blocks.
     *
     * @return its last bytes (empty text when it cannot be read); empty when the read did not end within
     *     its time ({@link OwnerLogTail#AS_OWNER_MILLIS})
     */
    Optional<String> read(String owner, Path log, int maxBytes);

    /**
     * @param runas gpusched-runas, for a root scheduler; empty where submissions do not run as their
     *     owners or it could not be extracted
     * @return the real reads: through {@code gpusched-runas --tail}, as the job's owner
     */
    static OwnerTails runas(Optional<Path> runas) {
        return new OwnerTails() {
            @Override
            public boolean runsAsOwner(JournalEvent.Submitted s) {
                return JobOutput.runsAsOwner(s);
            }

            @Override
            public boolean canRead() {
                return runas.isPresent();
            }

            @Override
            public Optional<String> read(String owner, Path log, int maxBytes) {
                return runas.isEmpty() ? Optional.of("") : OwnerLogTail.readWithin(runas.get(), owner, log, maxBytes);
            }
        };
    }
}

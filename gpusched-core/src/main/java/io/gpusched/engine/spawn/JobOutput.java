package io.gpusched.engine.spawn;

import io.gpusched.journal.JournalEvent;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where a submission's output goes when it is not the log directory's {@code job<NNN>_gpu<i>.log}: the
 * file it was submitted with ({@code --output}), or, for a job a root scheduler runs as its owner,
 * {@code <cwd>/gpusched-<no>.log} (as Slurm writes {@code slurm-<N>.out} where the job was submitted).
 * One rule for the dispatcher, which opens it, and for {@code gpusched logs}, which reads it.
 */
public final class JobOutput {
    /** The user this scheduler runs as. */
    static final String SCHEDULER_USER = System.getProperty("user.name", "?");
    /** Whether submissions run as their owners: only a scheduler running as root can, and does. */
    public static final boolean RUNS_AS_OWNERS = "root".equals(SCHEDULER_USER);

    private JobOutput() {
    }

    /** @return whether this submission runs as its owner rather than as the scheduler's user */
    public static boolean runsAsOwner(JournalEvent.Submitted s) {
        return RUNS_AS_OWNERS && !s.owner().equals(SCHEDULER_USER);
    }

    /**
     * @return the file the submission's output goes to, every attempt appending; empty for the log
     *     directory's per-attempt files
     */
    public static Optional<Path> file(JournalEvent.Submitted s) {
        if (s.output().isPresent()) {
            return Optional.of(Path.of(s.output().get()));
        }
        return runsAsOwner(s) ? Optional.of(Path.of(s.cwd()).resolve("gpusched-" + s.no() + ".log")) : Optional.empty();
    }
}

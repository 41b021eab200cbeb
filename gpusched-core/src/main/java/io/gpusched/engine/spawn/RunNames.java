package io.gpusched.engine.spawn;

import io.gpusched.engine.proc.ProcFs;

import java.nio.file.Path;
import java.util.List;

/**
 * How a run is named outside the scheduler: the token every process of the run inherits, and the
 * job's log file. Derived in one place each, since a restarted scheduler must derive the same.
 */
public final class RunNames {
    private final Path logDir;
    private final String tokenPrefix;

    /** @param journal the journal file: tokens carry its absolute path, so two log directories never share one */
    public RunNames(Path logDir, Path journal) {
        this.logDir = logDir;
        this.tokenPrefix = journal.toAbsolutePath() + "#";
    }

    /** {@link JobLauncher#RUN_VARIABLE}'s value for a run of this journal. */
    public String token(long run) {
        return tokenPrefix + run;
    }

    /** The environment entry every process of a run inherits. */
    public String entry(long run) {
        return JobLauncher.RUN_VARIABLE + "=" + token(run);
    }

    /** {@code <log-dir>/job<NNN>_gpu<i-j>.log}, the name the original tool gives a job's log. */
    public Path log(int no, List<Integer> gpus) {
        // Built by hand: String.format cost more than the rest of a launch's bookkeeping.
        StringBuilder b = new StringBuilder(32).append("job");
        JobNumbers.padded(b, no).append("_gpu");
        for (int i = 0; i < gpus.size(); i++) {
            b.append(i == 0 ? "" : "-").append(gpus.get(i));
        }
        return logDir.resolve(b.append(".log").toString());
    }

    /** {@code gpusched-<hash>-} of this log directory's terminals, once the first is asked for. */
    private String ttyPrefix;

    /** Where a {@code [tty]} job's terminal is, as {@code gpusched attach} derives it too. */
    public io.gpusched.model.TtySession tty(int no) {
        if (ttyPrefix == null) {
            // The hash is of the log directory's real path, which a run does not change: resolved once,
            // not at every launch.
            String first = io.gpusched.model.TtySession.of(logDir, 0).name();
            ttyPrefix = first.substring(0, first.length() - 1);
        }
        return new io.gpusched.model.TtySession(ttyPrefix + no);
    }

    /** What finds a run's processes after its leader is gone: its session, token and start time. */
    public ProcFs.Run leftovers(RunningJob rj) {
        return new ProcFs.Run(rj.pid, entry(rj.run), rj.startTicks);
    }
}

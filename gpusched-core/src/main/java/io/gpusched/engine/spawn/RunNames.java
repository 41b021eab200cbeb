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
        String gpuTag = gpus.stream().map(String::valueOf).reduce((a, b) -> a + "-" + b).orElse("");
        return logDir.resolve(String.format("job%03d_gpu%s.log", no, gpuTag));
    }

    /** Where a {@code [tty]} job's terminal is, as {@code gpusched attach} derives it too. */
    public io.gpusched.model.TtySession tty(int no) {
        return io.gpusched.model.TtySession.of(logDir, no);
    }

    /** What finds a run's processes after its leader is gone: its session, token and start time. */
    public ProcFs.Run leftovers(RunningJob rj) {
        return new ProcFs.Run(rj.pid, entry(rj.run), rj.startTicks);
    }
}

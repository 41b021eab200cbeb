package io.gpusched.cli;

import java.util.List;

/**
 * What the exit code of a verb that talks to a daemon means: one table, printed at the end of the client
 * verbs' help and kept word for word in {@code docs/scripts.md} (a test compares the two).
 */
final class ExitCodes {
    /** The verb did what was asked. */
    static final int OK = 0;
    /** The daemon refused or could not do it (the reason is printed), or a job named does not exist. */
    static final int REFUSED = 1;
    /** A bad command line. */
    static final int USAGE = Cli.USAGE;

    private ExitCodes() {
    }

    /** The table, one row a line: the code, two spaces or more, what it means. */
    static final List<String> TABLE = List.of(
            "0      done as asked; also a unique job (--unique, serve --dedup) not submitted again because",
            "       the same job is already queued, running or done ok, whose number is printed",
            "1      refused, with the reason printed: no such job (cancel, show, logs, attach), a job that could",
            "       never run here (submit, srun: more memory or GPUs than the machine has, a pinned GPU it lacks,",
            "       an after= naming no job), not yours, or no daemon",
            "2      a bad command line",
            "N      srun and submit --follow: the job's own exit status, after its outcome line",
            "128+N  srun and submit --follow: the job was killed by signal N (143 for SIGTERM, 137 for SIGKILL)",
            "130    srun withdrawn by Ctrl-C while it waited (the job is cancelled)");

    /**
     * The exit status a shell reports for a job that ended with this code: 0 to 255 as they are.
     *
     * @param jobExitCode the job's exit code as the daemon reports it (128 + N after signal N)
     * @return the status to exit with
     */
    static int ofJob(int jobExitCode) {
        return jobExitCode < 0 || jobExitCode > 255 ? REFUSED : jobExitCode;
    }
}

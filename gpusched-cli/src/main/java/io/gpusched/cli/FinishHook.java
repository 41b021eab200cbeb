package io.gpusched.cli;

import io.gpusched.model.JobResult;
import io.gpusched.event.SchedulerEvent;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code --on-finish CMD}: each time a job ends, {@code /bin/sh -c CMD} is started with the job's number,
 * status, exit code, peak VRAM and command in its environment (for a mail, chat or webhook script). It is
 * never waited for, so a slow or hanging hook cannot hold the scheduler up; its output is appended to
 * {@code on-finish.log} in the log directory. A hook that cannot be started is said once in the log.
 */
final class FinishHook implements Consumer<SchedulerEvent> {
    private final String command;
    private final Path output;
    private final PrintStream log;
    private boolean warned;

    FinishHook(String command, Path logDir, PrintStream log) {
        this.command = command;
        this.output = logDir.resolve("on-finish.log");
        this.log = log;
    }

    @Override
    public void accept(SchedulerEvent e) {
        if (!(e instanceof SchedulerEvent.JobFinished f)) {
            return;
        }
        JobResult r = f.result();
        ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", command)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
                .redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("GPUSCHED_JOB_NO", String.valueOf(r.no()));
        env.put("GPUSCHED_JOB_STATUS", r.status().journalName());
        env.put("GPUSCHED_JOB_EXIT_CODE", String.valueOf(r.exitCode()));
        env.put("GPUSCHED_JOB_PEAK_MIB", r.attributed() ? String.valueOf(r.overallPeakMib()) : "");
        env.put("GPUSCHED_JOB_COMMAND", r.command());
        try {
            // Reaped by the JDK's process reaper; nobody waits for it here.
            pb.start();
        } catch (IOException x) {
            if (!warned) {
                warned = true;
                log.println("WARN  --on-finish could not be started (" + x.getMessage() + "); jobs are unaffected");
            }
        }
    }
}

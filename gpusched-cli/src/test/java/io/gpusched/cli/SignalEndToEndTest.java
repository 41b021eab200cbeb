package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Ctrl-C / SIGTERM on the scheduler process itself: running jobs are terminated and journaled as interrupted. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SignalEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void signallingTheSchedulerTerminatesItsRunningJobsAndARestartReRunsThem() throws Exception {
        Path pid = dir.resolve("job.pid");
        Path quick = dir.resolve("quick");
        // The same line on both runs (same identity); on the rerun the marker makes it finish at once.
        Path jobs = Files.writeString(dir.resolve("jobs.txt"),
                "[vram=1G] echo $$ > " + pid + "; test -f " + quick + " || exec sleep 60\n");
        Path logs = dir.resolve("logs");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process scheduler = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                jobs.toString(), "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--log-dir", logs.toString())
                .redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(scheduler.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.contains("job 1 started")) {
            // wait for the launch
        }
        while (!Files.exists(pid) || Files.readString(pid).isBlank()) {
            Thread.sleep(10);
        }
        long jobPid = Long.parseLong(Files.readString(pid).strip());
        // SIGTERM takes the same path as Ctrl-C in a terminal (the JVM's shutdown hook). SIGINT itself is
        // not used here: a JVM started with SIGINT ignored (any child of a background job, as under a
        // test runner) never installs a handler for it.
        assertEquals(0, new ProcessBuilder("kill", "-TERM", String.valueOf(scheduler.pid())).start().waitFor());
        StringBuilder rest = new StringBuilder();
        while ((line = out.readLine()) != null) {
            rest.append(line).append('\n');
        }
        assertTrue(scheduler.waitFor(30, TimeUnit.SECONDS));
        assertEquals(130, scheduler.exitValue(), "SIGTERM exits 130 like Ctrl-C, not the JVM's 143:\n" + rest);
        assertTrue(rest.toString().contains("WARN  interrupted — terminating 1 running job"), rest.toString());
        String board = Files.readString(logs.resolve("status.txt"));
        assertFalse(board.contains("▶"), "nothing is shown running after the stop:\n" + board);
        assertTrue(board.contains("0 running, 0 pending, 0 done, 1 interrupted")
                && board.contains("⏹ job 1   gpu[0] interrupted after"), board);
        java.io.ByteArrayOutputStream status = new java.io.ByteArrayOutputStream();
        assertEquals(0, new Cli(new java.io.PrintStream(status, true, StandardCharsets.UTF_8), System.err, s -> { })
                .run("status", "--log-dir", logs.toString(), "--json"));
        assertTrue(status.toString(StandardCharsets.UTF_8).startsWith("{\"state\":\"stopped\","), status.toString());
        assertFalse(ProcessHandle.of(jobPid).map(ProcessHandle::isAlive).orElse(false), "the job outlived its scheduler");
        List<String> journal = Files.readAllLines(logs.resolve("journal.jsonl"));
        assertTrue(journal.get(journal.size() - 1).contains("\"event\":\"interrupted\""), journal.toString());

        Files.createFile(quick);
        CliRun again = new CliRun(dir, Files.readString(jobs));
        assertEquals(0, again.runToEnd("--sim", "1"));
        assertTrue(again.output().contains("job 1 started"), "interrupted jobs run again on restart:\n" + again.output());
    }
}

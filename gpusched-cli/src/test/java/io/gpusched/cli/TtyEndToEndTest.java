package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code [tty]} jobs with the real CLI on simulated GPUs and the real tmux: the command runs in a
 * terminal of its own, yet its log, exit status, timeout and VRAM are as a plain job's, and nothing
 * of it (the tmux server included) outlives it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TtyEndToEndTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void needsTmux() {
        assumeTrue(Tmux.present(), "tmux is not installed (Debian package tmux): [tty] jobs are not tested");
    }

    @Test
    void outputGoesToTheLog_theExitStatusIsExact_andTheVramIsAttributed() throws Exception {
        CliRun run = new CliRun(dir, "[vram=2G tty] echo out-line; echo err-line >&2; test -t 1 && echo on-a-tty; "
                + "$GPUSCHED_SIMJOB --vram 1500 --ramp 0.1 --hold 0.6; exit 7\n");
        assertEquals(7, run.runToEnd("--sim", "1"));
        String finished = run.await("job 1 finished");
        assertTrue(finished.contains("[EXIT 7]") && finished.contains("peak vram gpu0:1500 MiB"), run.output());
        String log = Files.readString(onlyLog(run.logs));
        assertTrue(log.startsWith("out-line\nerr-line\non-a-tty\n"), "the pane's output, without the terminal's \\r: " + log);
        assertEquals(List.of(), tokenHolders(run.logs.resolve("journal.jsonl")), "nothing of the run is left");
    }

    @Test
    void aTimeoutKillsTheCommandAndItsTmuxServer() throws Exception {
        CliRun run = new CliRun(dir, "[vram=1G timeout=1s tty] echo started; $GPUSCHED_SIMJOB --vram 500 --ramp 0.1 --hold 60\n");
        assertEquals(124, run.runToEnd("--sim", "1"));
        assertTrue(run.await("job 1 finished").contains("[TIMEOUT]"), run.output());
        assertTrue(Files.readString(onlyLog(run.logs)).startsWith("started\n"));
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); !tokenHolders(run.logs.resolve("journal.jsonl")).isEmpty()
                && System.nanoTime() < end; Thread.sleep(50)) {
            // the sweep of leftovers runs on the scheduler's next round
        }
        assertEquals(List.of(), tokenHolders(run.logs.resolve("journal.jsonl")), "no process carries the run token");
    }

    @Test
    void withoutTmuxTheJobFailsWithOneLineNamingThePackage() throws Exception {
        Files.writeString(dir.resolve("jobs.txt"), "[vram=1G tty] touch ran\n");
        Path empty = Files.createDirectories(dir.resolve("no-tmux-here"));
        try (SchedulerProcess s = SchedulerProcess.start(dir, List.of("jobs.txt", "--sim", "1", "--log-dir", "logs",
                "--poll", "0.1"), java.util.Map.of("PATH", empty.toString()))) {
            assertEquals(127, s.awaitExit(), s.output());
            assertTrue(s.output().contains("WARN  job 1: tty but no 'tmux' on PATH — install the package tmux"
                    + " (apt install tmux), or drop tty from the job"), s.output());
            assertTrue(s.output().contains("failed: job 1 (failed, exit 127, tty but no 'tmux' on PATH) — touch ran"),
                    s.output());
        }
        assertTrue(!Files.exists(dir.resolve("ran")));
        assertEquals("gpusched: tty but no 'tmux' on PATH; install the package tmux (apt install tmux), or drop tty"
                + " from the job\n", Files.readString(dir.resolve("logs/job001_gpu0.log")));
    }

    static Path onlyLog(Path logs) throws IOException {
        try (var files = Files.list(logs)) {
            List<Path> l = files.filter(f -> f.getFileName().toString().startsWith("job001_")).toList();
            assertEquals(1, l.size(), l.toString());
            return l.get(0);
        }
    }

    /** Live processes whose environment holds a run token of this journal. */
    static List<String> tokenHolders(Path journal) throws IOException {
        byte[] token = ("GPUSCHED_RUN=" + journal.toAbsolutePath() + "#").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path d : dirs) {
                byte[] env;
                String stat;
                try {
                    env = Files.readAllBytes(d.resolve("environ"));
                    stat = Files.readString(d.resolve("stat"));
                } catch (IOException e) {
                    continue;
                }
                boolean zombie = stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
                if (!zombie && indexOf(env, token) >= 0) {
                    out.add(d.getFileName() + " " + Files.readString(d.resolve("cmdline")).replace('\0', ' '));
                }
            }
        }
        return out;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

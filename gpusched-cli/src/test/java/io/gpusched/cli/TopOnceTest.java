package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** gpusched top --once against a real jobs-file run (found by its log directory), and top's one-line errors. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopOnceTest {
    @TempDir
    Path dir;

    private Process run;

    /**
     * A failure half-way leaves the run to be SIGKILLed here: its sleep 60 outlives it, and so does that job's
     * monitor, which writes the job's exit file under {@link #dir} as it ends.
     */
    @AfterEach
    void kill() throws InterruptedException {
        if (run != null && run.isAlive()) {
            run.destroyForcibly().waitFor();
        }
        RunsLeftBehind.end(dir.resolve("logs"));
    }

    @Test
    void onceDrawsOneFrameOfAJobsFileRun_atTheWidthAsked() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=10G priority=3] sleep 60\n[vram=20G] echo second\n");
        Path logs = dir.resolve("logs");
        run = new ProcessBuilder(ServeDaemon.java(), "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                jobs.toString(), "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--log-dir", logs.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("run.log").toFile()).start();
        String l = logs.toString();
        String me = System.getProperty("user.name");
        ServeDaemon.Result once = null;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); once == null || !once.out().contains(" run "); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && run.isAlive(), Files.readString(dir.resolve("run.log")));
            once = ServeDaemon.cli("top", "--log-dir", l, "--once", "--width", "72");
        }
        assertEquals(0, once.code(), once.err());
        List<String> lines = once.out().lines().toList();
        // Block characters where the locale says UTF-8 (as it does for the tests' terminal), ASCII elsewhere.
        TopRenderer.Glyphs g = QueueTable.utf8Locale() ? TopRenderer.Glyphs.UNICODE : TopRenderer.Glyphs.ASCII;
        assertEquals("gpusched top " + g.dash() + " 1 running, 1 pending, 0 done", lines.get(0));
        assertTrue(lines.get(1).matches("gpu0 \\[" + g.declared() + "+ +\\] 0M/23\\.4G +0% busy"),
                "declared, not yet used: " + lines.get(1));
        assertTrue(lines.stream().anyMatch(x -> x.matches("    1 " + me + " +3 run  0 +0M/10\\.0G +sleep 60")), once.out());
        assertTrue(lines.stream().anyMatch(x -> x.matches("    2 " + me + " +0 wait +" + g.dash()
                + "/20\\.0G +needs 1 GPU with ≥ 20992 MiB.*")), once.out());
        assertTrue(lines.stream().allMatch(x -> DisplayWidth.of(x) <= 72), once.out());
        assertEquals(3, ServeDaemon.cli("top", "--log-dir", l, "--once", "--width", "72", "--height", "3").out().lines().count());

        ServeDaemon.Result live = ServeDaemon.cli("top", "--log-dir", l);
        assertEquals(new ServeDaemon.Result(1, "", "gpusched: top needs a terminal; gpusched top --once prints one frame\n"),
                live);
        assertEquals(0, ServeDaemon.cli("cancel", "--log-dir", l, "1").code());
        assertTrue(run.waitFor(30, TimeUnit.SECONDS));
    }

    @Test
    void badCommandLinesAndAMissingDaemonAreOneLine() {
        ServeDaemon.Result none = ServeDaemon.cli("top", "--socket", dir.resolve("nothing.sock").toString(), "--once");
        assertEquals(1, none.code());
        assertTrue(none.err().startsWith("gpusched: no gpusched service at " + dir.resolve("nothing.sock"))
                && none.err().lines().count() == 1, none.err());
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: --width and --height go with --once; live, top fits the terminal\n"),
                ServeDaemon.cli("top", "--width", "80"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: --interval takes seconds from 0.1 to 60, e.g. --interval 0.5; "
                + "got '0'\n"), ServeDaemon.cli("top", "--interval", "0"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: unknown option --json for gpusched top (see gpusched top --help)\n"),
                ServeDaemon.cli("top", "--json"));
        ServeDaemon.Result help = ServeDaemon.cli("top", "--help");
        assertEquals(0, help.code());
        assertTrue(help.out().startsWith("Usage: gpusched top "), help.out());
        assertTrue(help.out().contains("--interval=S") && help.out().contains("Example:\n  gpusched top --interval 2"),
                help.out());
    }
}

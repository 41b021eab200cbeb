package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.cli.ServeDaemon.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched attach} against a real {@code gpusched serve}: driven in a real terminal (a pane of a
 * tmux server of the test's own), it shows a {@code [tty]} job's screen, and detaching (Ctrl-b d)
 * leaves the job running; on a job without a terminal it follows the log and says so.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AttachEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;
    private final Tmux.Server outer = new Tmux.Server("gpusched-test-outer-");

    @AfterEach
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
            // A job outlives a killed daemon by design; one a failed test left waiting ends with its terminal.
            Tmux.killJobServers(daemon.logs(), 20);
        }
        outer.close();
    }

    @Test
    void attachShowsTheJobsScreen_andDetachingLeavesItRunning() throws Exception {
        assumeTrue(Tmux.present(), "tmux is not installed (Debian package tmux): gpusched attach is not tested");
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start();
        Path go = dir.resolve("go");
        assertEquals(0, daemon.verb("submit", "--tty", "--vram", "1G", "--", "echo on-the-job-screen; while [ ! -e "
                + go + " ]; do sleep 0.05; done; echo after-detach").code());
        daemon.awaitQueue("▶ job 1");
        Path client = dir.resolve("attach.sh");
        Files.writeString(client, "exec " + Tmux.shellLine(clientArgv("attach", "1"))
                + "\n");
        tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "30", "sh " + client + "; echo client exited $?; sleep 600");
        String screen = awaitScreen("on-the-job-screen");
        assertTrue(screen.contains("on-the-job-screen"), screen);
        tmux("send-keys", "-t", "t", "C-b", "d");
        String after = awaitScreen("detached: job 1 keeps running");
        assertTrue(after.contains("detached: job 1 keeps running (gpusched attach 1 attaches again)"), after);
        assertTrue(daemon.verb("queue").out().contains("▶ job 1"), "the job runs on");
        Files.writeString(go, "");
        daemon.awaitQueue("✓ job 1 ok");
        assertEquals(new Result(0, "on-the-job-screen\nafter-detach\n", ""), daemon.verb("logs", "1"));
    }

    /**
     * The job ends while its owner is attached: the terminal closes, and {@code attach} says how the job
     * ended, never that it keeps running, however the daemon's notice of the end and tmux's return are
     * ordered. Each job waits for a client to attach and then ends at once, the narrowest window there is.
     * Eight in a row: the race this pins said "keeps running" in 17 runs of 20, so eight that all pass
     * would come from that code about once in 4 million (0.15^8); twenty cost CI 2.5 min.
     */
    @Test
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void attachReportsTheJobsEnd_eightTimesInARow() throws Exception {
        assumeTrue(Tmux.present(), "tmux is not installed (Debian package tmux): gpusched attach is not tested");
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start();
        int times = 8;
        StringBuilder loop = new StringBuilder();
        for (int i = 1; i <= times; i++) {
            // $TMUX inside the pane names the job's own server: the job ends once someone attached.
            assertEquals(0, daemon.verb("submit", "--tty", "--vram", "100M", "--", "until [ -n \"$(tmux list-clients)\" ];"
                    + " do sleep 0.02; done; echo bye-" + i + "; exit 3").code());
            loop.append(Tmux.shellLine(clientArgv("attach", String.valueOf(i))))
                    .append(" 2>").append(dir.resolve("attach-" + i + ".err")).append("; echo $? >").append(dir.resolve("rc-" + i))
                    .append('\n');
        }
        daemon.awaitQueue(times + " running");
        Path client = dir.resolve("attach-all.sh");
        Files.writeString(client, loop + "echo all-attached\n");
        tmux("new-session", "-d", "-s", "t", "-x", "120", "-y", "30", "sh " + client + "; sleep 600");
        awaitScreen("all-attached", 300);
        List<String> wrong = new ArrayList<>();
        for (int i = 1; i <= times; i++) {
            String said = Files.readString(dir.resolve("attach-" + i + ".err"));
            if (!said.startsWith("job " + i + " failed, exit 3 in ") || said.contains("keeps running")) {
                wrong.add("attach " + i + " said: " + said);
            }
        }
        assertEquals(List.of(), wrong, "every attach reports its job's end");
    }

    @Test
    void attachOnAJobWithoutATerminalFollowsItsLog() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start();
        assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", "echo plain; sleep 0.5; echo end").code());
        daemon.awaitQueue("▶ job 1");
        Result r = daemon.verb("attach", "1");
        // Without tmux here the client cannot ask tmux, and says so instead.
        String why = Tmux.present() ? " has no terminal to attach to (not a [tty] job, or not running)"
                : " may have a terminal, but there is no tmux here (install the package tmux)";
        assertEquals(new Result(0, "plain\nend\n", "gpusched: job 1" + why + "; following its log as gpusched logs 1 -f"
                + " does\n"), r);
    }

    private List<String> clientArgv(String... args) {
        return Tmux.clientArgv(daemon.socket(), args);
    }

    private String tmux(String... args) throws Exception {
        return outer.run(args);
    }

    private String awaitScreen(String text) throws Exception {
        return awaitScreen(text, 30);
    }

    private String awaitScreen(String text, int seconds) throws Exception {
        return outer.awaitScreen(text, seconds);
    }
}

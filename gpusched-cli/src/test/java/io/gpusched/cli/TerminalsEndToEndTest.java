package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.cli.ServeDaemon.Result;
import io.gpusched.model.TtySession;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs with a terminal ({@code [tty]}) against a real {@code gpusched serve} and the real tmux: the queue
 * marks them (list, table, {@code --format}, {@code --json}), {@code gpusched attach} without a number
 * lists the caller's or attaches to the only one running, and no tmux socket is left once such a job
 * ended, was cancelled, or was killed after ignoring SIGTERM.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TerminalsEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;
    private final Tmux.Server outer = new Tmux.Server("gpusched-test-terms-");

    @BeforeEach
    void needsTmux() {
        assumeTrue(Tmux.present(), "tmux is not installed (Debian package tmux): jobs with a terminal are not tested");
    }

    @AfterEach
    void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
            Tmux.killJobServers(daemon.logs(), 5);
        }
        outer.close();
    }

    @Test
    void theQueueMarksJobsWithATerminal_inItsList_table_formatAndJson() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start();
        String wait = "while [ ! -e " + dir.resolve("go") + " ]; do sleep 0.05; done";
        assertEquals(0, daemon.verb("submit", "--tty", "--name", "first", "--vram", "1G", "--", wait).code());
        assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", wait).code());
        assertEquals(0, daemon.verb("submit", "--tty", "--after", "first", "--vram", "1G", "--", "true").code());
        daemon.awaitQueue("▶ job 2");
        String list = daemon.awaitQueue("… job 3");
        assertTrue(list.contains("▶ job 1 [tty] gpu[0] "), list);
        assertTrue(list.contains("▶ job 2 gpu[0] "), list);
        assertTrue(list.contains("… job 3 [tty] 1024 MiB, waits: "), list);

        assertEquals(List.of("JOB  TTY  STATE", "1    tty  running", "2    -    running", "3    tty  held"),
                daemon.verb("queue", "--format", "%i %y %t").out().lines().toList());
        assertEquals(daemon.verb("queue", "--format", "%i %y %t").out(), daemon.verb("queue", "--format", "job,tty,state").out());

        String json = daemon.verb("queue", "--json").out();
        assertEquals(2, json.split("\"tty\":true", -1).length - 1, "jobs 1 and 3, and no other: " + json);

        // The default table, on a terminal: a TTY column after STATE, the others aligned around it.
        tmux("new-session", "-d", "-s", "t", "-x", "200", "-y", "30", "sh " + script("queue") + "; echo client-exited; sleep 600");
        String screen = awaitScreen("client-exited");
        List<String> rows = screen.lines().filter(l -> l.matches("^(JOB|[123]) .*")).toList();
        assertEquals(4, rows.size(), screen);
        assertTrue(rows.get(0).matches("JOB +USER +STATE +TTY +GPUS +MEMORY .*"), screen);
        int ttyAt = rows.get(0).indexOf("TTY");
        assertEquals(List.of("tty", "-  ", "tty"), rows.subList(1, 4).stream().map(r -> r.substring(ttyAt, ttyAt + 3)).toList(),
                screen);
        Files.writeString(dir.resolve("go"), "");
        daemon.awaitQueue("✓ job 3 ok");
    }

    @Test
    void attachWithoutANumberListsMyJobsWithATerminal_orAttachesToTheOnlyOneRunning() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start();
        Result none = daemon.verb("attach");
        assertEquals(1, none.code(), none.toString());
        assertTrue(none.err().startsWith("gpusched: no job of " + System.getProperty("user.name") + " has a terminal"),
                none.err());

        String wait = "echo on-job-$GPUSCHED_JOB_NO; while [ ! -e " + dir.resolve("go") + " ]; do sleep 0.05; done";
        assertEquals(0, daemon.verb("submit", "--tty", "--name", "first", "--vram", "1G", "--", wait).code());
        assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", wait).code());
        assertEquals(0, daemon.verb("submit", "--tty", "--after", "first", "--vram", "1G", "--", "echo third").code());
        daemon.awaitQueue("… job 3");
        daemon.awaitQueue("▶ job 2");

        // One running with a terminal (job 3 has none yet): attach goes straight to it.
        tmux("new-session", "-d", "-s", "t", "-x", "150", "-y", "30", "sh " + script("attach") + " 2>" + dir.resolve("err")
                + "; echo client-exited; sleep 600");
        String screen = awaitScreen("on-job-1");
        assertTrue(screen.contains("on-job-1"), screen);
        tmux("send-keys", "-t", "t", "C-b", "d");
        awaitScreen("client-exited");
        String me = System.getProperty("user.name");
        assertEquals("attaching to job 1, the only running job of " + me + " with a terminal (Ctrl-b d detaches)\n"
                + "detached: job 1 keeps running (gpusched attach 1 attaches again)\n", Files.readString(dir.resolve("err")));

        // Two running with a terminal: the list, to pick one from.
        assertEquals(0, daemon.verb("submit", "--tty", "--vram", "1G", "--", wait).code());
        daemon.awaitQueue("▶ job 4");
        Result listed = daemon.verb("attach");
        String shown = DisplayWidth.fit(wait, TerminalJobs.COMMAND_COLUMNS, "…");
        assertEquals(new Result(0, "3 jobs of " + me + " have a terminal:\n"
                + "  1  running  " + shown + "\n"
                + "  4  running  " + shown + "\n"
                + "  3  pending  echo third\n"
                + "gpusched attach N attaches to one (Ctrl-b d detaches)\n", ""), listed);
        Files.writeString(dir.resolve("go"), "");
        daemon.awaitQueue("✓ job 4 ok");
        assertEquals(Cli.USAGE, daemon.verb("attach", "1", "2").code(), "one number at most");
    }

    @Test
    void noTmuxSocketIsLeftWhenAJobEnds_isCancelled_orIsKilledAfterIgnoringSigterm() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1").start();
        assertEquals(0, daemon.verb("submit", "--tty", "--vram", "1G", "--", "echo ended").code());
        daemon.awaitQueue("✓ job 1 ok");
        assertFalse(socketLeft(1), "a job that ended left no socket");

        // Its shell removes it as it ends; on a loaded machine the 1 s grace may run out first, and then the sweep does.
        assertFalse(socketLeftAfterCancelling(2, "echo up; sleep 60"), "a cancelled job left no socket");

        // Its command ignores SIGTERM: after the grace its shell is killed, with no chance to clean up.
        assertFalse(socketLeftAfterCancelling(3, "trap '' TERM; echo up; sleep 60"),
                "a job killed after the grace left no socket");
    }

    /** Submits {@code command} with a terminal as job {@code no} and cancels it once it runs. @return awaitNoSocket */
    private boolean socketLeftAfterCancelling(int no, String command) throws Exception {
        assertEquals(0, daemon.verb("submit", "--tty", "--vram", "1G", "--", command).code());
        awaitSocket(no);
        daemon.awaitQueue("▶ job " + no);
        daemon.verb("cancel", String.valueOf(no));
        daemon.awaitQueue("✗ job " + no + " cancelled");
        return awaitNoSocket(no);
    }

    private boolean socketLeft(int no) throws Exception {
        return Files.exists(Tmux.socketDir().resolve(TtySession.of(daemon.logs(), no).name()), LinkOption.NOFOLLOW_LINKS);
    }

    /** The sweep of leftovers runs on the scheduler's next round, after the job is listed ended. @return socketLeft */
    private boolean awaitNoSocket(int no) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); socketLeft(no) && System.nanoTime() < end; ) {
            Thread.sleep(50);
        }
        return socketLeft(no);
    }

    private void awaitSocket(int no) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); !socketLeft(no); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "job " + no + "'s tmux server never started");
        }
    }

    /** A shell script that runs {@code gpusched VERB --socket S} as a process of its own. */
    private Path script(String verb) throws Exception {
        Path f = dir.resolve(verb + ".sh");
        Files.writeString(f, Tmux.shellLine(Tmux.clientArgv(daemon.socket(), verb)) + "\n");
        return f;
    }

    private String tmux(String... args) throws Exception {
        return outer.run(args);
    }

    private String awaitScreen(String text) throws Exception {
        return outer.awaitScreen(text, 30);
    }
}

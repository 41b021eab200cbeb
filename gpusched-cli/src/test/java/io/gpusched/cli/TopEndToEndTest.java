package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * gpusched top in a real terminal: tmux runs it against a real {@code serve --sim 2} daemon, the test
 * reads the screen with {@code capture-pane} and types with {@code send-keys}. Its capture of the
 * screen is the screenshot in docs/monitoring.md, docs/top.svg ({@code target/top.txt} with colours,
 * {@code target/top.svg}).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TopEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;
    /** tmux's own server for this test, by socket name, so no user's tmux is touched. */
    private final String server = "gpusched-top-test-" + ProcessHandle.current().pid();

    @AfterEach
    void stop() throws Exception {
        tmux("kill-server");
        if (daemon != null) {
            daemon.close();
        }
    }

    private String tmux(String... args) throws IOException, InterruptedException {
        // -u: the pane's text is UTF-8 whatever this JVM's locale says.
        List<String> argv = new ArrayList<>(List.of("tmux", "-u", "-L", server, "-f", "/dev/null"));
        argv.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(argv).redirectErrorStream(true);
        b.environment().put("LANG", "C.UTF-8");
        b.environment().remove("LC_ALL");
        b.environment().remove("TMUX"); // a test run from inside tmux still starts its own server
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "tmux hangs: " + argv);
        return out;
    }

    /** The screen as text; with {@code -e}, with its colours as SGR escapes. */
    private String screen(boolean colours) throws Exception {
        return colours ? tmux("capture-pane", "-p", "-e", "-t", "top") : tmux("capture-pane", "-p", "-t", "top");
    }

    private String awaitScreen(String what, Predicate<String> p) throws Exception {
        String s = "";
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(40); System.nanoTime() < end; Thread.sleep(100)) {
            s = screen(false);
            if (p.test(s)) {
                return s;
            }
        }
        throw new AssertionError("the screen never showed " + what + ":\n" + s + "\ndaemon log:\n" + daemon.log());
    }

    private void keys(String... keys) throws Exception {
        List<String> argv = new ArrayList<>(List.of("send-keys", "-t", "top"));
        argv.addAll(List.of(keys));
        tmux(argv.toArray(String[]::new));
    }

    private void submit(String... args) {
        ServeDaemon.Result r = daemon.verb("submit", args);
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void topInATerminal_barsAndOwners_selectAndCancel_aRefusalInTheStatusLine_resize_quitRestoresTheTerminal()
            throws Exception {
        assumeTrue(Tmux.present(), "tmux is not installed; apt-get install tmux (Debian package tmux) to run this test");
        daemon = new ServeDaemon(dir, "--sim", "2", "--poll", "0.1", "--kill-grace", "1").start();
        String me = System.getProperty("user.name");
        assertEquals(0, daemon.verb("pause", "1").code());
        // Three results first (ok, ok but over-declared, failed), then three running and three waiting.
        submit("--vram", "1G", "--", "true");
        submit("--vram", "8G", "--", "$GPUSCHED_SIMJOB --vram 2000 --ramp 0.2 --hold 0.3");
        submit("--vram", "1G", "--", "exit 3");
        daemon.awaitQueue("✓ job 2 ok");
        daemon.awaitQueue("✗ job 3 failed");
        submit("--vram", "10G", "--priority", "2", "--", "$GPUSCHED_SIMJOB --vram 6000 --ramp 0.5 --hold 120");
        submit("--vram", "4G", "--", "$GPUSCHED_SIMJOB --vram 5000 --ramp 0.5 --hold 120");
        submit("--vram", "6G", "--", "sleep 120");
        submit("--vram", "20G", "--priority", "5", "--", "python train.py --config big.yaml");
        submit("--vram", "16G", "--priority", "1", "--", "python eval.py");
        submit("--", "./render.sh");

        // A shell in a 120x40 terminal; top runs from a script that then says how the terminal was left.
        Path script = dir.resolve("top.sh");
        Files.writeString(script, String.join("\n",
                "unset NO_COLOR",
                "saved=$(stty -g)",
                "'" + ServeDaemon.java() + "' -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp '" + System.getProperty("java.class.path")
                        + "' " + Main.class.getName() + " top --socket '" + daemon.socket() + "' --interval 0.5",
                "code=$?",
                "[ \"$(stty -g)\" = \"$saved\" ] && echo 'terminal settings restored'",
                "echo \"top exited $code\"", ""));
        tmux("new-session", "-d", "-s", "top", "-x", "120", "-y", "40", "env", "LANG=C.UTF-8", "PS1=$ ", "TERM=xterm-256color",
                "sh");
        keys("-l", "sh '" + script + "'");
        keys("Enter");

        String shown = awaitScreen("the jobs at their memory", s -> s.contains("5.9G/10.0G") && s.contains("4.9G/4.0G")
                && s.contains("latest results"));
        assertTrue(shown.contains("gpusched top — 3 running, 3 pending, 3 done"), shown);
        List<String> lines = shown.lines().toList();
        String gpu0 = lines.stream().filter(l -> l.startsWith("gpu0 [")).findFirst().orElseThrow();
        assertTrue(gpu0.contains("█") && gpu0.contains("▓") && gpu0.contains("░"), "a bar split by job: " + gpu0);
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("gpu1 [") && l.endsWith("PAUSED")), shown);
        assertTrue(lines.stream().anyMatch(l -> l.matches(" +█ 4 " + me + " 5\\.9G/10\\.0G +▓ 5 " + me + " 4\\.9G/4\\.0G +█ 6 "
                + me + " 0M/6\\.0G +free .*")), "gpu0's jobs under its bar:\n" + shown);
        for (String job : List.of("4 " + me + " +2", "5 " + me + " +0", "6 " + me + " +0")) {
            assertTrue(lines.stream().anyMatch(l -> l.matches("[> ] +" + job + " run .*")), job + ":\n" + shown);
        }
        assertTrue(lines.stream().anyMatch(l -> l.matches(" +7 " + me + " +5 wait +—/20\\.0G +needs 1 GPU with .*")), shown);
        assertTrue(lines.stream().anyMatch(l -> l.matches(" +9 " + me + " +0 wait +—/— +needs 1 fully idle GPU.*")), shown);
        assertTrue(lines.stream().anyMatch(l -> l.matches("✓ +2 " + me + " ok +over-declared +peak .*/8\\.0G — .*")), shown);
        assertTrue(lines.stream().anyMatch(l -> l.matches("✗ +3 " + me + " failed .*— exit 3")), shown);

        // The screenshot: the screen with its colours, as text and as SVG, in a terminal just tall
        // enough for all of it (redrawn to its new size on SIGWINCH).
        tmux("resize-window", "-t", "top", "-x", "120", "-y", "24");
        awaitScreen("the frame at 120x24", s -> s.lines().count() == 24 && s.lines().skip(23).findFirst().orElse("")
                .startsWith("q quit") && s.contains("latest results"));
        String coloured = screen(true);
        assertTrue(coloured.contains("\u001b["), "colours on the screen: " + coloured);
        Path target = Files.createDirectories(Path.of("target"));
        Files.writeString(target.resolve("top.txt"), coloured);
        Files.writeString(target.resolve("top.svg"), AnsiSvg.render(coloured.lines().toList(), 120));

        // Select job 5 (the second running one) and cancel it: asked first, then done by the daemon.
        assertTrue(lines.stream().anyMatch(l -> l.matches("> +4 .*")), "the first job is selected:\n" + shown);
        keys("Down");
        awaitScreen("job 5 selected", s -> s.lines().anyMatch(l -> l.matches("> +5 .*")));
        keys("c");
        awaitScreen("the question", s -> s.contains("cancel job 5 (" + me + ": $GPUSCHED_SIMJOB --vram 5000"));
        keys("y");
        awaitScreen("the daemon's answer", s -> s.contains("job 5: stopping (SIGTERM to its session)"));
        daemon.awaitQueue("✗ job 5 cancelled");
        awaitScreen("job 5 among the results", s -> s.lines().anyMatch(l -> l.matches("— +5 " + me + " +cancelled.*")));

        // The daemon refuses: its one line in the status line, and top goes on.
        keys("p");
        awaitScreen("which GPU", s -> s.contains("pause which GPU (0-1)?"));
        keys("7");
        awaitScreen("the refusal", s -> s.contains("gpusched: no GPU 7 here; GPUs: [0, 1]"));
        keys("r", "1");
        awaitScreen("gpu1 resumed", s -> s.contains("gpu 1 resumed") && s.lines().noneMatch(l -> l.endsWith("PAUSED")));

        // A smaller terminal: redrawn to its size (SIGWINCH), the time column gone below 100 columns.
        tmux("resize-window", "-t", "top", "-x", "80", "-y", "16");
        String small = awaitScreen("a frame for 80x16", s -> s.lines().anyMatch(l -> l.startsWith("  JOB ") && !l.contains("TIME")));
        assertTrue(small.lines().allMatch(l -> DisplayWidth.of(l) <= 80), small);

        keys("q");
        // Until the shell's prompt is back after the script's last line: the screen can be caught between the two.
        String after = awaitScreen("the shell again", s -> s.matches("(?s).*top exited \\d+\n\\$.*"));
        assertTrue(after.contains("terminal settings restored\ntop exited 0\n$"), after);
        assertTrue(!after.contains("gpusched top —"), "the alternate screen is gone:\n" + after);
        assertEquals(130, daemon.stop(), "the daemon stops as an interrupted run does");
    }
}

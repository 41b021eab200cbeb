package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched srun} against a real daemon on a real socket: the command runs in the caller's
 * terminal (a pseudo-terminal from util-linux's {@code script}), Ctrl-C typed into that terminal
 * reaches the command (or withdraws a waiting request), its exit status comes back through srun, its
 * VRAM is measured by the run token, and the grant survives the daemon's SIGKILL and the client's.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SrunEndToEndTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path dir;

    private Process daemon;
    private final List<Process> clients = new ArrayList<>();

    private static ServeDaemon.Result cli(String... argv) {
        return ServeDaemon.cli(argv);
    }

    private String socket() {
        return dir.resolve("run/gpusched.sock").toString();
    }

    private void startDaemon() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(JAVA, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--socket", socket(),
                "--log-dir", dir.resolve("logs").toString());
        // One usage directory for every daemon of the test, as a real GPU outlives a daemon's restart.
        pb.environment().put("GPUSCHED_SIM_DIR", Files.createDirectories(dir.resolve("sim")).toString());
        daemon = pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("daemon.log").toFile()))
                .start();
        await(() -> cli("queue", "--socket", socket()).code() == 0 ? "" : null, "the daemon to come up");
    }

    @AfterEach
    void killAll() {
        clients.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
        clients.forEach(Process::destroyForcibly);
        ServeDaemon.stopGracefully(daemon);
    }

    /** The srun command line, as the shell {@code script} starts would run it. */
    private String srunLine(String... args) {
        StringBuilder s = new StringBuilder(quote(JAVA) + " -cp " + quote(System.getProperty("java.class.path")) + " "
                + Main.class.getName() + " srun --socket " + quote(socket()));
        for (String a : args) {
            s.append(' ').append(quote(a));
        }
        return s.toString();
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /** srun in a pseudo-terminal of its own: what it prints, and a keyboard. */
    private final class Terminal {
        final Process script;
        final ByteArrayOutputStream screen = new ByteArrayOutputStream();

        Terminal(String... srunArgs) throws IOException {
            // script runs $SHELL -c LINE. dash forks for it rather than exec'ing, shares the terminal's Ctrl-C and,
            // once srun exits, kills itself with that SIGINT (exit 130 whatever srun returned). exec takes the shell
            // out, as bin/gpusched's own exec does for a user; SHELL is fixed so the test is the same everywhere.
            ProcessBuilder pb = new ProcessBuilder("script", "-qefc", "exec " + srunLine(srunArgs), "/dev/null")
                    .redirectErrorStream(true);
            pb.environment().put("SHELL", "/bin/sh");
            script = pb.start();
            clients.add(script);
            Thread t = new Thread(() -> {
                try {
                    script.getInputStream().transferTo(new OutputStream() {
                        @Override
                        public void write(int b) {
                            synchronized (screen) {
                                screen.write(b);
                            }
                        }

                        @Override
                        public void write(byte[] b, int off, int len) {
                            synchronized (screen) {
                                screen.write(b, off, len);
                            }
                        }
                    });
                } catch (IOException e) {
                    // the terminal closed
                }
            });
            t.setDaemon(true);
            t.start();
        }

        String text() {
            synchronized (screen) {
                return screen.toString(StandardCharsets.UTF_8);
            }
        }

        void type(String keys) throws IOException {
            script.getOutputStream().write(keys.getBytes(StandardCharsets.UTF_8));
            script.getOutputStream().flush();
        }

        void awaitScreen(String text) throws Exception {
            await(() -> text().contains(text) ? "" : null, "'" + text + "' on the terminal");
        }

        int exit() throws Exception {
            assertTrue(script.waitFor(60, TimeUnit.SECONDS), "srun did not end:\n" + text());
            return script.exitValue();
        }
    }

    private static void await(Supplier<String> probe, String what) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(45); probe.get() == null; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "waited in vain for " + what);
        }
    }

    private void awaitQueue(String text) throws Exception {
        await(() -> cli("queue", "--socket", socket()).out().contains(text) ? "" : null, "queue to show '" + text + "':\n"
                + cli("queue", "--socket", socket()).out());
    }

    /** How many live processes carry this environment entry. */
    private static long carriers(String entry) {
        try (var procs = Files.list(Path.of("/proc"))) {
            return procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).filter(p -> {
                try {
                    return ("\0" + new String(Files.readAllBytes(p.resolve("environ")), StandardCharsets.UTF_8) + "\0")
                            .contains("\0" + entry + "\0");
                } catch (IOException e) {
                    return false; // gone, or not ours to read
                }
            }).count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private List<String> journal() throws IOException {
        return Files.readAllLines(dir.resolve("logs/journal.jsonl"));
    }

    private static void assumeScript() {
        assumeTrue(new java.io.File("/usr/bin/script").canExecute(), "needs util-linux's script (package bsdutils)"
                + " for a pseudo-terminal; skipped");
    }

    @Test
    void srunRunsTheCommandInTheCallersTerminalWithItsGpusAndPassesItsExitStatusBack() throws Exception {
        assumeScript();
        startDaemon();
        Terminal t = new Terminal("--vram", "2G", "--", "tty; echo cvd=$CUDA_VISIBLE_DEVICES order=$CUDA_DEVICE_ORDER;"
                + " $GPUSCHED_SIMJOB --vram 1500 --ramp 0.1 --hold 1.5; exit 7");
        assertEquals(7, t.exit(), t.text());
        String screen = t.text();
        assertTrue(screen.contains("/dev/pts/"), "the command's stdin is the caller's terminal:\n" + screen);
        assertTrue(screen.contains("cvd=0 order=PCI_BUS_ID"), screen);
        assertTrue(screen.contains("gpusched: job 1 granted gpu [0]"), screen);
        // Measured through the run token in its environment: the command is not in a session of the daemon's.
        assertTrue(screen.contains("gpusched: job 1 failed, exit 7 in ") && screen.contains("peak 1500 MiB of 2048 MiB"
                + " declared"), screen);
        assertTrue(journal().stream().anyMatch(l -> l.contains("\"event\":\"done\"") && l.contains("\"returncode\":7")
                && l.contains("\"peak_mib\":{\"0\":1500}")), String.join("\n", journal()));
        ServeDaemon.Result quiet = cli("srun", "--socket", socket(), "--quiet", "true");
        assertEquals(new ServeDaemon.Result(0, "", ""), quiet, "--quiet prints only what the command prints");
    }

    @Test
    void ctrlCInTheTerminalReachesTheRunningCommandAndItsExitIsJournaled() throws Exception {
        assumeScript();
        startDaemon();
        Terminal t = new Terminal("--", "trap 'echo got-int; exit 42' INT; echo ready; sleep 30 & wait");
        t.awaitScreen("ready");
        t.type("\u0003");
        assertEquals(42, t.exit(), t.text());
        assertTrue(t.text().contains("got-int"), t.text());
        awaitQueue("✗ job 1 failed");
        assertTrue(journal().stream().anyMatch(l -> l.contains("\"event\":\"done\"") && l.contains("\"returncode\":42")));
    }

    @Test
    void ctrlCWhileWaitingWithdrawsTheRequest() throws Exception {
        assumeScript();
        startDaemon();
        assertEquals(0, cli("submit", "--socket", socket(), "--vram", "20G", "--", "sleep", "60").code());
        awaitQueue("▶ job 1");
        Terminal t = new Terminal("--vram", "20G", "--", "echo should-not-run");
        t.awaitScreen("gpusched: job 2 waits, 1 of 1 pending: needs 1 GPU");
        t.type("\u0003");
        assertEquals(130, t.exit(), t.text());
        assertTrue(t.text().contains("gpusched: srun withdrawn; job 2 is cancelled") && !t.text().contains("should-not-run"),
                t.text());
        awaitQueue("✗ job 2 cancelled");
        assertEquals("job 1: stopping (SIGTERM to its session)\n", cli("cancel", "--socket", socket(), "1").out());
    }

    @Test
    void aDaemonKilledWhileSrunRunsKeepsItsGpuForItAndRecordsTheRealExitStatus() throws Exception {
        startDaemon();
        Path marker = dir.resolve("go");
        Process srun = new ProcessBuilder("sh", "-c", srunLine("--vram", "4G", "--",
                "$GPUSCHED_SIMJOB --vram 3000 --ramp 0.1 --hold 60 & touch " + dir.resolve("started") + "; while [ ! -e "
                        + marker + " ]; do sleep 0.1; done; kill $!; exit 5")).redirectErrorStream(true)
                .redirectOutput(dir.resolve("srun.out").toFile()).start();
        clients.add(srun);
        awaitQueue("▶ job 1");
        await(() -> Files.exists(dir.resolve("started")) ? "" : null, "the command to start"); // the grant reached srun
        daemon.destroyForcibly().waitFor();
        startDaemon();
        // The grant holds across the restart: a job needing the GPU's rest waits behind it.
        assertEquals(0, cli("submit", "--socket", socket(), "--vram", "21G", "--", "true").code());
        awaitQueue("… job 2");
        Thread.sleep(1000);
        assertTrue(cli("queue", "--socket", socket()).out().contains("… job 2"), cli("queue", "--socket", socket()).out());
        Files.writeString(marker, "");
        assertTrue(srun.waitFor(60, TimeUnit.SECONDS));
        assertEquals(5, srun.exitValue(), Files.readString(dir.resolve("srun.out")));
        awaitQueue("✓ job 2 ok");
        List<String> j = journal();
        assertTrue(j.stream().anyMatch(l -> l.contains("\"key\":\"s1\",\"event\":\"done\"") && l.contains("\"returncode\":5")),
                "the exit status srun reported after the restart is the job's:\n" + String.join("\n", j));
        assertEquals(1, j.stream().filter(l -> l.contains("\"key\":\"s1\",\"event\":\"launching\"")).count(),
                "never granted twice");
    }

    /** An srun whose command holds 1500 MiB until {@code go-N} exists, then exits 3; its output goes to srun-N.out. */
    private Process srunUntilGo(int n) throws Exception {
        Process srun = new ProcessBuilder("sh", "-c", srunLine("--vram", "2G", "--",
                "$GPUSCHED_SIMJOB --vram 1500 --ramp 0.1 --hold 60 & touch " + dir.resolve("started-" + n) + "; while [ ! -e "
                        + dir.resolve("go-" + n) + " ]; do sleep 0.1; done; kill $!; wait; exit 3")).redirectErrorStream(true)
                .redirectOutput(dir.resolve("srun-" + n + ".out").toFile()).start();
        clients.add(srun);
        await(() -> Files.exists(dir.resolve("started-" + n)) ? "" : null, "command " + n + " to start");
        return srun;
    }

    /** srun's last line, with the job's number and its seconds made N, which differ between runs. */
    private String finalLine(int n, Process srun) throws Exception {
        Files.writeString(dir.resolve("go-" + n), "");
        assertTrue(srun.waitFor(60, TimeUnit.SECONDS));
        String out = Files.readString(dir.resolve("srun-" + n + ".out"));
        assertEquals(3, srun.exitValue(), out);
        List<String> lines = out.lines().toList();
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1).replaceAll("job [0-9]+", "job N").replaceAll(" in [0-9]+s", " in Ns");
    }

    @Test
    void srunsFinalLineSaysTheVerdictOnTheDeclaration_overDeclaredHere() throws Exception {
        startDaemon();
        Process srun = new ProcessBuilder("sh", "-c", srunLine("--vram", "4G", "--",
                "$GPUSCHED_SIMJOB --vram 1500 --ramp 0.1 --hold 1.5")).redirectErrorStream(true).start();
        clients.add(srun);
        String out = new String(srun.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(srun.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, srun.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertEquals("gpusched: job 1 ok in Ns, peak 1500 MiB of 4096 MiB declared, over-declared",
                lines.get(lines.size() - 1).replaceAll(" in [0-9]+s", " in Ns"), out);
    }

    @Test
    void srunPrintsTheSameFinalLineAfterADaemonRestartAsWithout() throws Exception {
        startDaemon();
        Process plain = srunUntilGo(1);
        Thread.sleep(1000); // sampled at its peak
        String without = finalLine(1, plain);
        assertEquals("gpusched: job N failed, exit 3 in Ns, peak 1500 MiB of 2048 MiB declared", without);

        Process restarted = srunUntilGo(2);
        daemon.destroyForcibly().waitFor();
        startDaemon();
        awaitQueue("▶ job 2");
        Thread.sleep(1000); // sampled again by the new daemon
        assertEquals(without, finalLine(2, restarted), Files.readString(dir.resolve("srun-2.out")));
    }

    @Test
    void aClientKilledWhileItsCommandRunsEndsTheGrantOnceNothingOfTheRunIsLeft() throws Exception {
        startDaemon();
        Path marker = dir.resolve("go");
        Process srun = new ProcessBuilder(JAVA, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "srun",
                "--socket", socket(), "--", "touch " + dir.resolve("started") + "; while [ ! -e " + marker + " ]; do sleep 0.1;"
                + " done").redirectErrorStream(true).redirectOutput(dir.resolve("srun.out").toFile()).start();
        clients.add(srun);
        awaitQueue("▶ job 1");
        await(() -> Files.exists(dir.resolve("started")) ? "" : null, "the command to start"); // not just the grant
        srun.destroyForcibly().waitFor();
        Thread.sleep(1000);
        assertTrue(cli("queue", "--socket", socket()).out().contains("▶ job 1"),
                "its command still runs, so the grant holds");
        Files.writeString(marker, "");
        awaitQueue("✗ job 1 failed");
        assertTrue(Files.readString(dir.resolve("daemon.log")).contains("its srun client went away before its command"
                + " ended"), Files.readString(dir.resolve("daemon.log")));
        assertTrue(journal().stream().anyMatch(l -> l.contains("\"event\":\"done\"") && l.contains("\"returncode\":255")));
    }

    @Test
    void srunWorksAgainstAJobsFileRunThroughItsLogDirectory() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=1G] sleep 2\n");
        Path logs = dir.resolve("run-logs");
        Process run = new ProcessBuilder(JAVA, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                jobs.toString(), "--sim", "1", "--poll", "0.1", "--log-dir", logs.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("run.log").toFile()).start();
        clients.add(run);
        await(() -> cli("queue", "--log-dir", logs.toString()).code() == 0 ? "" : null, "the run's socket");
        ServeDaemon.Result r = cli("srun", "--log-dir", logs.toString(), "--quiet", "--vram", "1G", "--", "true");
        assertEquals(new ServeDaemon.Result(0, "", ""), r);
        assertTrue(run.waitFor(60, TimeUnit.SECONDS), "the run drains once the file's job and the srun ended");
        assertEquals(0, run.exitValue(), Files.readString(dir.resolve("run.log")));
        assertTrue(Files.readString(dir.resolve("run.log")).contains("job 2 started on gpu [0]"),
                Files.readString(dir.resolve("run.log")));
    }

    @Test
    void aTimeoutAndACancelReachTheSrunCommandsProcessesAndEndTheJobAsForAnyJob() throws Exception {
        startDaemon();
        // The command forks a child that leaves the shell's process group: the run token still finds it.
        ServeDaemon.Result timedOut = cli("srun", "--socket", socket(), "--quiet", "--timeout", "1s", "--",
                "setsid sleep 30 & wait");
        assertEquals(143, timedOut.code(), timedOut.toString());
        awaitQueue("✗ job 1 timeout");
        Path marker = dir.resolve("started");
        java.util.concurrent.CompletableFuture<ServeDaemon.Result> cancelled = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> cli("srun", "--socket", socket(), "--quiet", "--", "touch " + marker + "; sleep 30"));
        await(() -> Files.exists(marker) ? "" : null, "the command to start");
        assertEquals("job 2: stopping (SIGTERM to its session)\n", cli("cancel", "--socket", socket(), "2").out());
        assertEquals(143, cancelled.get(30, TimeUnit.SECONDS).code());
        awaitQueue("✗ job 2 cancelled");
        String token = "GPUSCHED_RUN=" + dir.resolve("logs/journal.jsonl").toAbsolutePath() + "#1";
        await(() -> carriers(token) == 0 ? "" : null, "the timed-out run's escaped sleep to be killed");
    }

    @Test
    void aWaitingSrunIsWithdrawnWhenItsClientDies() throws Exception {
        startDaemon();
        assertEquals(0, cli("submit", "--socket", socket(), "--vram", "20G", "--", "sleep", "60").code());
        awaitQueue("▶ job 1");
        Process srun = new ProcessBuilder(JAVA, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "srun",
                "--socket", socket(), "--vram", "20G", "--", "true").redirectErrorStream(true).start();
        clients.add(srun);
        awaitQueue("… job 2");
        srun.destroyForcibly().waitFor();
        awaitQueue("✗ job 2 cancelled");
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** gpusched serve as a real process on a real socket, driven by the CLI's client verbs. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeEndToEndTest {
    @TempDir
    Path dir;

    private Process daemon;

    private record Result(int code, String out, String err) {
    }

    private Result cli(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                s -> { }).run(argv);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path socket() {
        return dir.resolve("run/gpusched.sock");
    }

    private void startDaemon() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        daemon = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve",
                "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--socket", socket().toString(),
                "--log-dir", dir.resolve("logs").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); cli("queue", "--socket", socket().toString()).code() != 0;
             Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), "the daemon did not come up: "
                    + (Files.exists(dir.resolve("daemon.log")) ? Files.readString(dir.resolve("daemon.log")) : ""));
        }
    }

    /** SIGTERM; what jobs it leaves running are ended too, as none of these tests takes them up. */
    private int stopDaemon() throws Exception {
        return ServeDaemon.stopLeavingNoJob(daemon, java.time.Duration.ofSeconds(30));
    }

    @AfterEach
    void killDaemon() {
        ServeDaemon.stopGracefully(daemon);
    }

    private void awaitQueue(String text) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); ; Thread.sleep(50)) {
            String q = cli("queue", "--socket", socket().toString()).out();
            if (q.contains(text)) {
                return;
            }
            assertTrue(System.nanoTime() < end, "queue never showed '" + text + "':\n" + q);
        }
    }

    @Test
    void submitQueueCancelPauseAgainstARealDaemon_andAPendingSubmissionOutlivesARestart() throws Exception {
        startDaemon();
        String s = socket().toString();
        Path work = Files.createDirectories(dir.resolve("work"));
        Result first = cli("submit", "--socket", s, "--vram", "20G", "--", "sleep", "60");
        assertEquals(new Result(0, "submitted job 1\n", ""), first);
        assertEquals(0, cli("pause", "--socket", s, "0").code());
        // Submitted from another directory: the job runs there, the shell joins and reads the words.
        String prev = System.getProperty("user.dir");
        Result second = cli("submit", "--socket", s, "--vram", "1G", "--priority", "2", "--",
                "pwd > " + work.resolve("where") + " && echo done >> " + work.resolve("where"));
        assertEquals("submitted job 2\n", second.out(), second.err());
        awaitQueue("… job 2 1024 MiB, waits: needs 1 GPU with ≥ 1536 MiB headroom");
        awaitQueue("sleep 60   [" + System.getProperty("user.name") + "]"); // each row says whose job it is
        awaitQueue("gpu0 is paused");
        assertEquals("job 1: stopping (SIGTERM to its session)\njob 7: no such job\n",
                cli("cancel", "--socket", s, "1", "7").out());
        awaitQueue("✗ job 1 cancelled");

        assertEquals(130, stopDaemon(), "a stopped daemon exits as an interrupted run does");
        assertTrue(!Files.exists(work.resolve("where")), "job 2 waited behind the paused GPU");
        startDaemon(); // the pause and the pending submission are in the journal
        awaitQueue("gpu0 is paused");
        assertEquals(0, cli("resume", "--socket", s, "0").code());
        awaitQueue("✓ job 2 ok");
        assertEquals(prev + "\ndone", Files.readString(work.resolve("where")).strip(),
                "it ran in the directory it was submitted from");
        String json = cli("queue", "--socket", s, "--json").out();
        assertTrue(json.startsWith("{\"snapshot\":{\"at\":") && json.contains("\"key\":\"s2\""), json);
        // Said once nothing is left to run: here, after job 2. (Asked of the first daemon, before its stop, it
        // depended on its first idle round ending before the first submission came: a CI run's did not.)
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
             !Files.readString(dir.resolve("daemon.log")).contains("queue drained — waiting for submissions"); Thread.sleep(20)) {
            assertTrue(System.nanoTime() < end, Files.readString(dir.resolve("daemon.log")));
        }
        stopDaemon();
    }

    @Test
    void submitTakesSetupAndConda_quotedForTheLine() throws Exception {
        startDaemon();
        String s = socket().toString();
        Path bin = FakeConda.install(dir.resolve("my bin"), dir.resolve("conda-argv"));
        Files.writeString(dir.resolve("activate"), "export GREETING='hi there'\n");
        Path out = dir.resolve("out");
        Result r = cli("submit", "--socket", s, "--vram", "1G", "--conda", "torch", "--setup",
                ". '" + dir.resolve("activate") + "'; PATH=\"" + bin + ":$PATH\"", "--",
                // One word: a shell line (its $VARs and > are the shell's); several words would be an exact argv.
                "echo \"$GREETING in $CONDA_DEFAULT_ENV\" > '" + out + "'");
        assertEquals(new Result(0, "submitted job 1\n", ""), r);
        awaitQueue("✓ job 1 ok");
        assertEquals("hi there in torch", Files.readString(out).strip());
        stopDaemon();
    }

    @Test
    void clientsSayWhatIsWrongInOneLine() throws Exception {
        Result none = cli("queue", "--socket", dir.resolve("nothing.sock").toString());
        assertEquals(1, none.code());
        assertTrue(none.err().startsWith("gpusched: no gpusched service at " + dir.resolve("nothing.sock"))
                && none.err().contains("start one with gpusched serve") && none.err().lines().count() == 1, none.err());
        Result noCommand = cli("submit", "--vram", "8G");
        assertEquals(new Result(2, "", "gpusched: submit needs a command after --: gpusched submit [options] -- CMD...\n"),
                noCommand);
        Result wrongOption = cli("queue", "--vram", "8G");
        assertEquals(2, wrongOption.code());
        assertEquals("gpusched: --vram is an option of gpusched submit\n", wrongOption.err());
    }

    @Test
    void aJobsFileRunAnswersTheVerbsOnASocketInItsLogDirectory() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=10G] sleep 60\n[vram=20G] echo second\n");
        Path logs = dir.resolve("logs");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        daemon = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                jobs.toString(), "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--log-dir", logs.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("run.log").toFile()).start();
        String l = logs.toString();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             !cli("queue", "--log-dir", l).out().contains("▶ job 1"); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), Files.readString(dir.resolve("run.log")));
        }
        assertTrue(cli("queue", "--log-dir", l).out().contains("… job 2 20480 MiB, waits: needs 1 GPU with ≥ 20992 MiB"));
        Result info = cli("info", "--log-dir", l);
        assertEquals("gpu0  simulated  0/24000 MiB used, 0% busy\n", info.out(), info.err());
        assertEquals("job 1: stopping (SIGTERM to its session)\n", cli("cancel", "--log-dir", l, "1").out());
        assertTrue(daemon.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, daemon.exitValue(), "a cancelled job is not a failure");
        assertTrue(Files.readString(dir.resolve("run.log")).contains("1 ok, 0 failed, 1 cancelled"));
        assertTrue(!Files.exists(logs.resolve("gpusched.sock")), "the run removes its socket when it ends");
    }

    @Test
    void logsPrintsAJobsOutput_andFollowsItUntilTheJobEnds() throws Exception {
        startDaemon();
        String s = socket().toString();
        Path go = dir.resolve("go");
        assertEquals(0, cli("submit", "--socket", s, "--vram", "1G", "--", "echo first; while [ ! -e " + go
                + " ]; do sleep 0.05; done; echo last").code());
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
             !cli("logs", "--socket", s, "1").out().equals("first\n"); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "no log: " + cli("logs", "--socket", s, "1"));
        }
        java.util.concurrent.CompletableFuture<Result> follow =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> cli("logs", "--socket", s, "-f", "1"));
        Thread.sleep(500);
        assertTrue(!follow.isDone(), () -> "-f returned while the job still ran: " + follow.join());
        Files.createFile(go);
        assertEquals(new Result(0, "first\nlast\n", ""), follow.get(20, TimeUnit.SECONDS));
        Result none = cli("logs", "--socket", s, "42");
        assertEquals(1, none.code());
        assertEquals("gpusched: no job 42 in this queue\n", none.err());
        stopDaemon();
    }
}

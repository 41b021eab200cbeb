package io.gpusched.engine.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native spawn server: real processes through the binary the build made. Each run leads its own
 * session, gets exactly the environment, directory and log it was given, and its exit is reported; a
 * run the server cannot start is an error naming why; and runs outlive the server, their exits then
 * read from their exit files. A monitored run's leader (issue #27) writes the pid file before its
 * command starts and the exit status once the command ends, survives a stop signal to its group to
 * record it, and writes none when it is killed itself.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpawnServerTest {
    @TempDir
    Path dir;

    private SpawnServer server;

    @BeforeEach
    void start() {
        Optional<SpawnServer> s = SpawnServer.start(dir.resolve("runs"));
        assumeTrue(s.isPresent(), "the spawn server was not built (needs gcc at build time) or cannot run here");
        server = s.get();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private RunDriver.Started wrapped(String command, Path log) throws IOException {
        return server.spawn(List.of("/bin/sh", "-c", JobLauncher.WRAPPER, "sh", dir.resolve("run.pid").toString(),
                dir.resolve("run.exit").toString(), command), Map.of("PATH", "/usr/bin:/bin", "ONLY", "this"), dir, log,
                dir.resolve("run.exit"));
    }

    private RunDriver.Started monitored(String command, Path log) throws IOException {
        return server.monitored(List.of("/bin/sh", "-c", command), Map.of("PATH", "/usr/bin:/bin", "ONLY", "this"), dir,
                log, dir.resolve("run.pid"), dir.resolve("run.exit"));
    }

    private void awaitFile(Path file) throws InterruptedException {
        for (int i = 0; i < 2000 && !Files.exists(file); i++) {
            Thread.sleep(10);
        }
        assertTrue(Files.exists(file), file + " appeared");
    }

    @Test
    void aMonitoredRunsShellLeadsItsSession_itsPidFileIsWrittenBeforeTheCommandStarts_andItsExitStatusAfter()
            throws Exception {
        Path log = dir.resolve("job.log");
        Files.writeString(log, "before\n");
        Path pid = dir.resolve("run.pid");
        RunDriver.Started s = monitored("echo \"$ONLY $HOME $(pwd)\"; cat " + pid + "; echo $$; ps -o sid= -p $$;"
                + " ps -o sid= -p $PPID; [ -e " + dir.resolve("run.exit") + " ] && echo early; exit 7", log);
        assertEquals(String.valueOf(s.sessionId()), Files.readString(pid).strip(), "written before the answer");
        assertEquals(7, s.exit().get(20, TimeUnit.SECONDS));
        List<String> lines = Files.readAllLines(log);
        String sid = String.valueOf(s.sessionId());
        assertEquals(List.of("before", "this  " + dir.toRealPath(), sid, sid), lines.subList(0, 4),
                "appended; only the environment given; in its directory; the pid file there already; $$ is the run's pid");
        assertEquals(sid, lines.get(4).strip(), "the command's shell leads the run's session");
        assertFalse(lines.get(5).strip().equals(sid), "its parent, the monitor, is in a session of its own");
        assertEquals(6, lines.size(), "no exit file while the command ran: " + lines);
        assertEquals("7\n", Files.readString(dir.resolve("run.exit")));
    }

    @Test
    void manyMonitoredRunsStartedTogether_eachLeadsItsOwnSession_withItsOwnPidExitAndLog() throws Exception {
        // Each run's process is cloned in its monitor's memory until it execs (spawnd.c, command()):
        // started back to back, none may take another's arguments, environment, files or status.
        int n = 40;
        List<RunDriver.Started> runs = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            runs.add(server.monitored(List.of("/bin/sh", "-c", "echo \"$$ $RUN\"; ps -o sid= -p $$; exit " + (i % 7)),
                    Map.of("PATH", "/usr/bin:/bin", "RUN", "run" + i), dir, dir.resolve(i + ".log"), dir.resolve(i + ".pid"),
                    dir.resolve(i + ".exit")));
        }
        java.util.Set<Long> sessions = new java.util.HashSet<>();
        for (int i = 0; i < n; i++) {
            RunDriver.Started s = runs.get(i);
            assertEquals(i % 7, s.exit().get(20, TimeUnit.SECONDS), "run " + i + "'s own status");
            String sid = String.valueOf(s.sessionId());
            assertEquals(sid, Files.readString(dir.resolve(i + ".pid")).strip(), "run " + i + "'s pid file");
            assertEquals(List.of(sid + " run" + i, sid), Files.readAllLines(dir.resolve(i + ".log")).stream().map(String::strip)
                    .toList(), "run " + i + " leads its session with its own environment");
            assertEquals(String.valueOf(i % 7), Files.readString(dir.resolve(i + ".exit")).strip());
            sessions.add(s.sessionId());
        }
        assertEquals(n, sessions.size(), "a session each");
    }

    @Test
    void aStopSignalToTheRunsGroupEndsTheCommand_whichMayTrapIt_andTheMonitorRecordsHowItEnded() throws Exception {
        Path log = dir.resolve("t.log");
        RunDriver.Started s = monitored("trap 'echo trapped; exit 3' TERM; : > " + dir.resolve("ready")
                + "; while :; do sleep 0.05; done", log);
        awaitFile(dir.resolve("ready"));
        new ProcessBuilder("kill", "-TERM", "--", "-" + s.sessionId()).start().waitFor();
        assertEquals(3, s.exit().get(20, TimeUnit.SECONDS), "the command's own trap ran: TERM is not ignored in it");
        assertTrue(Files.readString(log).endsWith("trapped\n"), "the trap's output: " + Files.readString(log));
        assertEquals("3", Files.readString(dir.resolve("run.exit")).strip());

        RunDriver.Started plain = server.monitored(List.of("/bin/sh", "-c", ": > " + dir.resolve("ready2") + "; sleep 30"),
                Map.of("PATH", "/usr/bin:/bin"), dir, dir.resolve("p.log"), dir.resolve("p.pid"), dir.resolve("p.exit"));
        awaitFile(dir.resolve("ready2"));
        new ProcessBuilder("kill", "-TERM", "--", "-" + plain.sessionId()).start().waitFor();
        assertEquals(143, plain.exit().get(20, TimeUnit.SECONDS));
        assertEquals("143", Files.readString(dir.resolve("p.exit")).strip(), "128 + SIGTERM, as a shell says it");
    }

    @Test
    void aKillOfTheRunsGroupIsRecordedAsOneHundredThirtySeven_aKilledMonitorWritesNoStatus() throws Exception {
        RunDriver.Started s = monitored(": > " + dir.resolve("ready") + "; sleep 30", dir.resolve("k.log"));
        awaitFile(dir.resolve("ready"));
        new ProcessBuilder("kill", "-KILL", "--", "-" + s.sessionId()).start().waitFor();
        assertEquals(137, s.exit().get(20, TimeUnit.SECONDS));
        assertEquals("137", Files.readString(dir.resolve("run.exit")).strip(), "the monitor is outside the group");

        RunDriver.Started m = server.monitored(List.of("/bin/sh", "-c", "echo $PPID > " + dir.resolve("monitor") + "; sleep 30"),
                Map.of("PATH", "/usr/bin:/bin"), dir, dir.resolve("m.log"), dir.resolve("m.pid"), dir.resolve("m.exit"));
        awaitFile(dir.resolve("monitor"));
        for (int i = 0; i < 200 && Files.readString(dir.resolve("monitor")).isBlank(); i++) {
            Thread.sleep(10);
        }
        long monitor = Long.parseLong(Files.readString(dir.resolve("monitor")).strip());
        new ProcessBuilder("kill", "-KILL", String.valueOf(monitor)).start().waitFor();
        new ProcessBuilder("kill", "-KILL", "--", "-" + m.sessionId()).start().waitFor();
        for (int i = 0; i < 500 && ProcessHandle.of(m.sessionId()).isPresent(); i++) {
            Thread.sleep(10);
        }
        assertFalse(Files.exists(dir.resolve("m.exit")), "no status: the run counts as interrupted");
    }

    @Test
    void aCommandThatCannotBeExecutedEndsOneHundredTwentySevenSayingWhy() throws Exception {
        RunDriver.Started s = server.monitored(List.of(dir.resolve("no-such-program").toString()), Map.of(), dir,
                dir.resolve("n.log"), dir.resolve("n.pid"), dir.resolve("n.exit"));
        assertEquals(127, s.exit().get(20, TimeUnit.SECONDS));
        assertEquals("127", Files.readString(dir.resolve("n.exit")).strip());
        assertEquals("gpusched-spawnd: cannot run " + dir.resolve("no-such-program") + ": No such file or directory",
                Files.readString(dir.resolve("n.log")).strip());
    }

    @Test
    void aMonitoredRunThatCannotGetReadyWritesNoPidFile_andIsAnError() throws Exception {
        IOException e = assertThrows(IOException.class, () -> server.monitored(List.of("/bin/true"), Map.of(), dir,
                dir.resolve("x.log"), dir.resolve("no-such-dir").resolve("x.pid"), dir.resolve("x.exit")));
        assertEquals("No such file or directory", e.getMessage());
        assertTrue(server.alive());
        assertEquals(0, monitored("true", dir.resolve("ok.log")).exit().get(20, TimeUnit.SECONDS));
    }

    @Test
    void monitoredRunsOutliveTheServer_writeTheirExitFiles_andTheirExitsAreReadFromThem() throws Exception {
        Path go = dir.resolve("go");
        RunDriver.Started s = monitored(": > " + dir.resolve("running") + "; while [ ! -e " + go + " ]; do sleep 0.05; done;"
                + " exit 5", dir.resolve("j.log"));
        // Once its command runs: until the server lets it go, a run would end unrun with the server, by design.
        awaitFile(dir.resolve("running"));
        ProcessHandle spawnd = ProcessHandle.of(server.pid()).orElseThrow();
        spawnd.destroyForcibly();
        spawnd.onExit().get(20, TimeUnit.SECONDS);
        for (int i = 0; i < 200 && server.alive(); i++) {
            Thread.sleep(10);
        }
        assertFalse(server.alive(), "the reader saw the server go");
        assertTrue(ProcessHandle.of(s.sessionId()).map(ProcessHandle::isAlive).orElse(false), "the run goes on");
        assertFalse(s.exit().isDone());
        Files.createFile(go);
        assertEquals(5, s.exit().get(20, TimeUnit.SECONDS));
        assertEquals("5", Files.readString(dir.resolve("run.exit")).strip());
    }

    @Test
    void aRunLeadsItsOwnSession_withExactlyItsEnvironmentDirectoryAndLog_andItsExitIsReported() throws Exception {
        Path log = dir.resolve("job.log");
        Files.writeString(log, "before\n");
        RunDriver.Started s = wrapped("echo \"$ONLY $HOME $(pwd)\"; ps -o sid= -p $$; exit 7", log);
        assertEquals(7, s.exit().get(20, TimeUnit.SECONDS));
        List<String> lines = Files.readAllLines(log);
        assertEquals("before", lines.get(0), "appended, not truncated");
        assertEquals("this  " + dir.toRealPath(), lines.get(1), "only the environment given; started in its directory");
        assertEquals(String.valueOf(s.sessionId()), lines.get(2).strip(), "the run leads its session");
        assertEquals(String.valueOf(s.sessionId()), Files.readString(dir.resolve("run.pid")).strip());
        assertEquals("7", Files.readString(dir.resolve("run.exit")).strip());
    }

    @Test
    void aRunThatCannotStartIsAnErrorSayingWhy_andTheServerTakesTheNext() throws Exception {
        IOException e = assertThrows(IOException.class, () -> server.spawn(List.of("/bin/sh", "-c", "true"), Map.of(),
                dir.resolve("no-such-dir"), dir.resolve("x.log"), dir.resolve("x.exit")));
        assertEquals("working directory: No such file or directory", e.getMessage());
        assertTrue(server.alive());
        assertEquals(0, wrapped("true", dir.resolve("ok.log")).exit().get(20, TimeUnit.SECONDS));
    }

    @Test
    void aSignalledRunReportsOneHundredTwentyEightPlusTheSignal() throws Exception {
        RunDriver.Started s = server.spawn(List.of("/bin/sh", "-c", "kill -KILL $$"), Map.of(), dir, dir.resolve("k.log"),
                dir.resolve("k.exit"));
        assertEquals(137, s.exit().get(20, TimeUnit.SECONDS));
    }

    @Test
    void runsOutliveTheServer_andTheirExitsAreThenReadFromTheirExitFiles() throws Exception {
        Path go = dir.resolve("go");
        RunDriver.Started s = wrapped("while [ ! -e " + go + " ]; do sleep 0.05; done; exit 5", dir.resolve("j.log"));
        // Once its wrapper runs (its pid file is written): until the server lets it go, a child it forked
        // would end unrun with the server, by design.
        for (int i = 0; i < 500 && !Files.exists(dir.resolve("run.pid")); i++) {
            Thread.sleep(10);
        }
        ProcessHandle spawnd = ProcessHandle.of(server.pid()).orElseThrow();
        spawnd.destroyForcibly();
        spawnd.onExit().get(20, TimeUnit.SECONDS);
        for (int i = 0; i < 200 && server.alive(); i++) {
            Thread.sleep(10);
        }
        assertFalse(server.alive(), "the reader saw the server go");
        assertTrue(ProcessHandle.of(s.sessionId()).map(ProcessHandle::isAlive).orElse(false), "the run goes on");
        assertFalse(s.exit().isDone());
        Files.createFile(go);
        assertEquals(5, s.exit().get(20, TimeUnit.SECONDS));
    }

    private void killServer() throws Exception {
        ProcessHandle spawnd = ProcessHandle.of(server.pid()).orElseThrow();
        spawnd.destroyForcibly();
        spawnd.onExit().get(20, TimeUnit.SECONDS);
        for (int i = 0; i < 500 && server.alive(); i++) {
            Thread.sleep(10);
        }
        assertFalse(server.alive(), "the reader saw the server go");
    }

    @Test
    void aServerThatWasKilled_isReplacedForTheNextRun_whichRunsUnderItsMonitorAsBefore_andTheRestartIsSaid()
            throws Exception {
        long first = server.pid();
        killServer();
        // Before, every run after the death went to the JVM's own spawn: a thread and pipes per running job.
        assertTrue(server.ready());
        assertTrue(server.alive());
        assertNotEquals(first, server.pid());
        List<String> said = server.restarts();
        assertEquals(1, said.size(), said.toString());
        assertTrue(said.get(0).startsWith("the spawn server (gpusched-spawnd, pid " + first + ") ended by signal 9;"
                + " started another (pid " + server.pid() + ")"), said.get(0));
        assertEquals(List.of(), server.restarts(), "said once");
        Path log = dir.resolve("after.log");
        RunDriver.Started s = monitored("echo $$; exit 4", log);
        assertEquals(4, s.exit().get(20, TimeUnit.SECONDS));
        assertEquals("4\n", Files.readString(dir.resolve("run.exit")));
        assertEquals(String.valueOf(s.sessionId()), Files.readString(log).strip());
        assertTrue(ProcessHandle.of(s.sessionId()).isEmpty() || !ProcessHandle.of(s.sessionId()).get().isAlive());
    }

    @Test
    void theRunsOfAServerThatWasKilled_areWatchedByOneThread_notOneEach_andEachExitIsReadFromItsFile() throws Exception {
        int n = 30;
        Path go = dir.resolve("go");
        List<RunDriver.Started> runs = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            runs.add(server.monitored(List.of("/bin/sh", "-c", ": > " + dir.resolve(i + ".running") + "; while [ ! -e " + go
                    + " ]; do sleep 0.05; done; exit " + (i % 5)), Map.of("PATH", "/usr/bin:/bin"), dir, dir.resolve(i + ".log"),
                    dir.resolve(i + ".pid"), dir.resolve(i + ".exit")));
        }
        try {
            for (int i = 0; i < n; i++) {
                awaitFile(dir.resolve(i + ".running"));
            }
            int before = Thread.getAllStackTraces().size();
            killServer();
            // The reader sees the server go and hands its runs over before it ends (before: to a ProcessHandle.onExit
            // each, whose thread polls that run's pid).
            for (int i = 0; i < 2000 && Thread.getAllStackTraces().keySet().stream()
                    .anyMatch(t -> t.getName().equals("gpusched-spawnd-reader")); i++) {
                Thread.sleep(10);
            }
            int after = Thread.getAllStackTraces().size();
            assertTrue(after - before < 5, "threads went from " + before + " to " + after + " for " + n + " runs");
            assertTrue(runs.stream().noneMatch(r -> r.exit().isDone()), "they run on");
            Files.createFile(go);
            for (int i = 0; i < n; i++) {
                assertEquals(i % 5, runs.get(i).exit().get(20, TimeUnit.SECONDS));
            }
        } finally {
            // Whatever failed above, the runs end: left waiting for a go file in a deleted directory, 30 shells
            // forking a sleep every 50 ms held both cores of this machine for 40 minutes.
            if (!Files.exists(go)) {
                Files.createFile(go);
            }
            for (RunDriver.Started r : runs) {
                r.exit().get(20, TimeUnit.SECONDS);
            }
        }
    }
}

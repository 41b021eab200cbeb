package io.gpusched.engine.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * read from their wrappers' exit files.
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
        assertEquals("No such file or directory", e.getMessage());
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
}

package io.gpusched.engine.spawn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.options.SchedulerOptions.VisibleDevices;
import java.nio.charset.StandardCharsets;
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
 * The launcher through the spawn server's monitor (issue #27): the command reaches {@code /bin/sh -c}
 * as its UTF-8 bytes whatever the JVM's locale, one too long for an argument goes through the run's
 * command file, and the run's pid and exit files are the monitor's; where the server is gone, the run
 * goes through the wrapper shell and the files are the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobLauncherTest {
    @TempDir
    Path dir;

    private SpawnServer server;
    private JobLauncher launcher;
    private RunFiles runFiles;

    @BeforeEach
    void start() throws Exception {
        runFiles = new RunFiles(dir.resolve("logs"));
        runFiles.createDirectory();
        Optional<SpawnServer> s = SpawnServer.start(runFiles.dir());
        assumeTrue(s.isPresent(), "the spawn server was not built (needs gcc at build time) or cannot run here");
        server = s.get();
        Path setsid = JobLauncher.findSetsid().orElseThrow();
        launcher = new JobLauncher(setsid, dir, Map.of(), VisibleDevices.INDEX, Optional.of(server), Optional.empty());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private RunDriver.Started launch(String command, int no) throws Exception {
        runFiles.prepare(no, 1);
        return launcher.launch(command, List.of(0), new GpuSnapshot(List.of(), List.of()), dir.resolve("job" + no + ".log"),
                Map.of(), "token#" + no, runFiles.paths(no, 1), dir, Optional.of(Map.of("PATH", "/usr/bin:/bin")),
                Optional.empty());
    }

    @Test
    void aSubmissionsOutputIsCreatedWithItsClientsUmask_notTheDaemons_soAnotherUserCannotReadIt() throws Exception {
        // A root daemon's (or a user's daemon's) process mask, usually 022, would make its output 0644.
        int daemons = io.gpusched.service.GpuschedClient.processUmask().orElseThrow();
        assumeTrue((daemons & 044) == 0, "this JVM's own umask already hides files from others: nothing to tell apart");
        runFiles.prepare(3, 1);
        Path out = dir.resolve("private").resolve("out.log");
        RunDriver.Started s = launcher.start(new RunDriver.Launch("echo api-token-in-output", List.of(0),
                new GpuSnapshot(List.of(), List.of()), out, Map.of(), "token#3", runFiles.paths(3, 1), Optional.of(dir),
                Optional.of(Map.of("PATH", "/usr/bin:/bin")), Optional.empty(), java.util.OptionalInt.of(0077)));
        assertEquals(0, s.exit().get(20, TimeUnit.SECONDS));
        assertEquals("api-token-in-output\n", Files.readString(out));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(out)),
                "submitted with umask 077: the submitter's alone");

        // Exactly what the client's mask leaves, group bits included, whatever this process's own mask takes.
        runFiles.prepare(5, 1);
        Path group = dir.resolve("group.log");
        RunDriver.Started grouped = launcher.start(new RunDriver.Launch("true", List.of(0),
                new GpuSnapshot(List.of(), List.of()), group, Map.of(), "token#5", runFiles.paths(5, 1), Optional.of(dir),
                Optional.of(Map.of("PATH", "/usr/bin:/bin")), Optional.empty(), java.util.OptionalInt.of(0002)));
        assertEquals(0, grouped.exit().get(20, TimeUnit.SECONDS));
        assertEquals("rw-rw-r--", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(group)),
                "submitted with umask 002");

        // A file already there is theirs: appended to, its mode left as it is.
        Path shared = dir.resolve("shared.log");
        Files.writeString(shared, "before\n");
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        runFiles.prepare(4, 1);
        RunDriver.Started again = launcher.start(new RunDriver.Launch("echo after", List.of(0),
                new GpuSnapshot(List.of(), List.of()), shared, Map.of(), "token#4", runFiles.paths(4, 1), Optional.of(dir),
                Optional.of(Map.of("PATH", "/usr/bin:/bin")), Optional.empty(), java.util.OptionalInt.of(0077)));
        assertEquals(0, again.exit().get(20, TimeUnit.SECONDS));
        assertEquals("before\nafter\n", Files.readString(shared));
        assertEquals("rw-r--r--", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(shared)));
    }

    private RunDriver.Launch submissionTo(Path output, int no) throws Exception {
        runFiles.prepare(no, 1);
        return new RunDriver.Launch("echo secret-of-" + no, List.of(0), new GpuSnapshot(List.of(), List.of()), output, Map.of(),
                "token#" + no, runFiles.paths(no, 1), Optional.of(dir), Optional.of(Map.of("PATH", "/usr/bin:/bin")),
                Optional.empty(), java.util.OptionalInt.of(0077));
    }

    /**
     * Root's own submission with {@code --output} in a directory another user may write: what she planted at
     * the name is never written through, never given root's output, and never holds the launch.
     */
    @Test
    void anOutputAnotherUserPlanted_aLinkAFifoOrHerFile_isRefusedBeforeTheCommandRuns() throws Exception {
        Path shared = Files.createDirectories(dir.resolve("shared"));
        Path roots = Files.writeString(dir.resolve("roots-file"), "root's own\n");
        Path link = Files.createSymbolicLink(shared.resolve("link.log"), roots);
        java.io.IOException linked = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> launcher.start(submissionTo(link, 6)));
        assertTrue(linked.getMessage().startsWith("output " + link + " is a symbolic link;"), linked.getMessage());
        assertEquals("root's own\n", Files.readString(roots), "nothing appended through her link");

        Path fifo = shared.resolve("fifo.log");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        java.io.IOException piped = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> launcher.start(submissionTo(fifo, 7)));
        assertTrue(piped.getMessage().contains("is not a regular file"), piped.getMessage());

        Path hers = Files.writeString(shared.resolve("hers.log"), "");
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can give a file to another user");
        Files.setAttribute(hers, "unix:uid", 65534);
        java.io.IOException theirs = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> launcher.start(submissionTo(hers, 8)));
        assertTrue(theirs.getMessage().contains("belongs to") && theirs.getMessage().contains("uid 65534"), theirs.getMessage());
        assertEquals("", Files.readString(hers));
    }

    /** A link swapped in after the scheduler looked, before the spawn server opens the output: refused there. */
    @Test
    void theSpawnServerNeverOpensAnOutputThroughALink() throws Exception {
        Path roots = Files.writeString(dir.resolve("roots-file"), "root's own\n");
        Path link = Files.createSymbolicLink(dir.resolve("swapped.log"), roots);
        runFiles.prepare(9, 1);
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> launcher.launch("echo swapped",
                List.of(0), new GpuSnapshot(List.of(), List.of()), link, Map.of(), "token#9", runFiles.paths(9, 1), dir,
                Optional.of(Map.of("PATH", "/usr/bin:/bin")), Optional.empty()));
        assertEquals("root's own\n", Files.readString(roots));
    }

    /**
     * Another user's regular file swapped in after the scheduler looked (she may write the directory): the
     * spawn server refuses it as gpusched-runas refuses one for a user's job. Before, it checked for a link
     * and a regular file only, and appended root's job's output to her file, for her to read.
     */
    @Test
    void theSpawnServerNeverAppendsToAnotherUsersFileSwappedIn() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to give a file to another user");
        Path hers = Files.writeString(dir.resolve("swapped-hers.log"), "hers\n");
        Files.setAttribute(hers, "unix:uid", 65534);
        runFiles.prepare(10, 1);
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> launcher.launch("echo roots-secret", List.of(0), new GpuSnapshot(List.of(), List.of()), hers, Map.of(),
                        "token#10", runFiles.paths(10, 1), dir, Optional.of(Map.of("PATH", "/usr/bin:/bin")), Optional.empty()));
        assertTrue(e.getMessage().contains("output belongs to another user"), e.getMessage());
        assertEquals("hers\n", Files.readString(hers));
        // The scheduler's own file, there already, is appended to as before.
        Path mine = Files.writeString(dir.resolve("mine.log"), "mine\n");
        runFiles.prepare(11, 1);
        RunDriver.Started s = launcher.launch("echo more", List.of(0), new GpuSnapshot(List.of(), List.of()), mine, Map.of(),
                "token#11", runFiles.paths(11, 1), dir, Optional.of(Map.of("PATH", "/usr/bin:/bin")), Optional.empty());
        assertEquals(0, s.exit().get(20, TimeUnit.SECONDS));
        assertEquals("mine\nmore\n", Files.readString(mine));
    }

    @Test
    void aNonAsciiCommandReachesTheShellAsItsUtf8Bytes_andTheMonitorWritesTheRunFiles() throws Exception {
        String text = "héllo ✓ 🚀 $x";
        RunDriver.Started s = launch("printf '%s' '" + text + "' > out.txt; exit 4", 1);
        assertEquals(4, s.exit().get(20, TimeUnit.SECONDS));
        assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), Files.readAllBytes(dir.resolve("out.txt")));
        assertEquals(s.sessionId(), runFiles.pid(1, 1).orElseThrow());
        assertEquals(4, runFiles.exitCode(1, 1).orElseThrow());
        assertFalse(Files.exists(runFiles.paths(1, 1).command()), "short enough for an argument");
    }

    @Test
    void aCommandTooLongForOneArgumentRunsFromTheRunsCommandFile_withThePlainShellsParameters() throws Exception {
        String value = "é".repeat(JobLauncher.MAX_ARGUMENT_BYTES / 2 + 1);
        RunDriver.Started s = launch("v='" + value + "'; echo \"${#v} [$#] [$0]\" > out.txt", 2);
        assertEquals(0, s.exit().get(20, TimeUnit.SECONDS), () -> readOrEmpty(dir.resolve("job2.log")));
        assertTrue(Files.exists(runFiles.paths(2, 1).command()), "over the argument limit in bytes");
        // dash counts bytes, bash characters: either way the whole value arrived.
        String out = Files.readString(dir.resolve("out.txt")).strip();
        assertTrue(out.equals(value.length() + " [0] [sh]") || out.equals(2 * value.length() + " [0] [sh]"), out);
        assertEquals(0, runFiles.exitCode(2, 1).orElseThrow());
    }

    @Test
    void aRunIsToldItsGpusByUuidWhenEveryOneIsKnown_elseByIndex_inTheOrderItGotThem() {
        JobLauncher byUuid = new JobLauncher(Path.of("/usr/bin/setsid"), dir, Map.of(), VisibleDevices.UUID,
                Optional.empty(), Optional.empty());
        GpuSnapshot snap = new GpuSnapshot(List.of(gpu(0, Optional.of("GPU-a")), gpu(1, Optional.empty()),
                gpu(2, Optional.of("GPU-c"))), List.of());
        assertEquals("GPU-c,GPU-a", byUuid.visibleDevices(List.of(2, 0), snap));
        assertEquals("2,1", byUuid.visibleDevices(List.of(2, 1), snap));
        Map<String, String> env = byUuid.runEnvironment(List.of(2, 0), snap, Map.of(), "t#1");
        assertEquals("GPU-c,GPU-a", env.get("CUDA_VISIBLE_DEVICES"));
        assertEquals("2,0", env.get("GPUSCHED_GPUS"));
        assertEquals("2,0", launcher.visibleDevices(List.of(2, 0), snap)); // INDEX: indices whatever is known
        assertEquals("", launcher.visibleDevices(List.of(), snap));
    }

    @Test
    void withVisibleDevicesIndexOnAMachineWithMigInstancesARunIsStillToldItsGpusByUuid() {
        // gpu 0 is in MIG mode with two instances (scheduler indices 0 and 1); the next physical GPU is
        // scheduler index 2 but CUDA's (and nvidia-smi's) 1, and no index names a MIG instance at all.
        GpuSnapshot snap = new GpuSnapshot(List.of(gpu(0, Optional.of("MIG-a1")), gpu(1, Optional.of("MIG-a2")),
                gpu(2, Optional.of("GPU-c"))), List.of());
        assertEquals("GPU-c", launcher.visibleDevices(List.of(2), snap));
        assertEquals("MIG-a2", launcher.visibleDevices(List.of(1), snap));
        assertEquals("2", launcher.visibleDevices(List.of(2), new GpuSnapshot(List.of(gpu(0, Optional.of("GPU-a")),
                gpu(1, Optional.of("GPU-b")), gpu(2, Optional.of("GPU-c"))), List.of())), "no MIG: indices as asked");
    }

    private static io.gpusched.gpu.GpuStat gpu(int index, Optional<String> uuid) {
        return new io.gpusched.gpu.GpuStat(index, uuid, "g", Optional.empty(), 24_000, 0, java.util.OptionalInt.empty(), true);
    }

    @Test
    void runsDirectoryRemovedWhileTheSchedulerRuns_isMadeAgainOwnerOnlyByTheNextLaunch() throws Exception {
        RunDriver.Started first = launch("exit 0", 5);
        assertEquals(0, first.exit().get(30, TimeUnit.SECONDS));
        try (var files = Files.list(runFiles.dir())) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(runFiles.dir());
        RunDriver.Started second = launch("exit 3", 6);
        assertEquals(3, second.exit().get(30, TimeUnit.SECONDS));
        assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"),
                Files.getPosixFilePermissions(runFiles.dir()));
        assertEquals(java.util.OptionalInt.of(3), runFiles.exitCode(6, 1));
    }

    @Test
    void whenTheServerIsGone_theNextRunGoesThroughANewOne_withTheSameRunFiles() throws Exception {
        long first = server.pid();
        ProcessHandle spawnd = ProcessHandle.of(first).orElseThrow();
        spawnd.destroyForcibly();
        spawnd.onExit().get(20, TimeUnit.SECONDS);
        for (int i = 0; i < 200 && server.alive(); i++) {
            Thread.sleep(10);
        }
        // $$ is the session's leader: the command's own shell, under a new server's monitor.
        RunDriver.Started s = launch("echo $$ > leader.txt; tr '\\0' ' ' < /proc/$$/cmdline > cmdline.txt; exit 6", 3);
        assertEquals(6, s.exit().get(20, TimeUnit.SECONDS));
        assertNotEquals(first, server.pid());
        assertEquals(s.sessionId(), runFiles.pid(3, 1).orElseThrow());
        assertEquals(6, runFiles.exitCode(3, 1).orElseThrow());
        assertEquals(String.valueOf(s.sessionId()), Files.readString(dir.resolve("leader.txt")).strip());
        assertFalse(Files.readString(dir.resolve("cmdline.txt")).contains(JobLauncher.WRAPPER), "no wrapper shell");
    }

    @Test
    void withoutAServer_aRunGoesThroughTheWrapperShell_withTheSameRunFiles() throws Exception {
        launcher = new JobLauncher(JobLauncher.findSetsid().orElseThrow(), dir, Map.of(), VisibleDevices.INDEX,
                Optional.empty(), Optional.empty());
        // $$ in the command's subshell is the wrapper's pid: the session's leader.
        RunDriver.Started s = launch("echo $$ > leader.txt; tr '\\0' ' ' < /proc/$$/cmdline > cmdline.txt; exit 6", 3);
        assertEquals(6, s.exit().get(20, TimeUnit.SECONDS));
        assertEquals(s.sessionId(), runFiles.pid(3, 1).orElseThrow());
        assertEquals(6, runFiles.exitCode(3, 1).orElseThrow());
        assertEquals(String.valueOf(s.sessionId()), Files.readString(dir.resolve("leader.txt")).strip());
        assertTrue(Files.readString(dir.resolve("cmdline.txt")).contains(JobLauncher.WRAPPER),
                "the wrapper shell leads the session and runs the command in its subshell");
    }

    private static String readOrEmpty(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "";
        }
    }
}

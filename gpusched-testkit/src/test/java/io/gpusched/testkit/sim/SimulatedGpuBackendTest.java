package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The backend over hand-written usage files; {@link SimJobTest} covers files written by real jobs. */
class SimulatedGpuBackendTest {
    static final long ME = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    private SimulatedGpuBackend backend(int gpus) {
        return SimulatedGpuBackend.builder(gpus).directory(dir).build();
    }

    private void report(long pid, String json) throws IOException {
        Files.writeString(dir.resolve(pid + ".json"), json);
    }

    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        return p.pid();
    }

    @Test
    void defaultsAreTwentyFourThousandMibAndNoUsage() {
        try (var b = new SimulatedGpuBackend(2)) {
            GpuSnapshot s = b.snapshot();
            assertEquals(2, s.gpus().size());
            s.gpus().forEach(g -> {
                assertEquals(24_000, g.totalMib());
                assertEquals(0, g.usedMib());
                assertEquals(OptionalInt.of(0), g.utilPercent());
                assertTrue(g.uuid().isEmpty() && g.pciBusId().isEmpty() && g.healthy());
            });
            assertTrue(s.processes().isEmpty());
            assertTrue(s.warnings().isEmpty());
        }
    }

    @Test
    void liveReportsAddUpPerGpu() throws Exception {
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        report(ME, "{\"pid\": " + ME + ", \"usage\": {\"0\": 1000, \"1\": 2000}}");
        report(parent, "{\"usage\": {\"1\": 500}, \"pid\": " + parent + ", \"note\": [1, {\"x\": \"}\"}]}");
        try (var b = backend(2)) {
            GpuSnapshot s = b.snapshot();
            assertEquals(1000, s.gpu(0).orElseThrow().usedMib());
            assertEquals(2500, s.gpu(1).orElseThrow().usedMib());
            assertEquals(OptionalInt.of(90), s.gpu(1).orElseThrow().utilPercent());
            assertEquals(3, s.processes().size());
            assertTrue(s.processes().contains(new GpuProcess(1, parent, 500)));
        }
    }

    @Test
    void usageFilesOfDeadPidsAreDroppedAndDeleted() throws Exception {
        long dead = deadPid();
        report(dead, "{\"pid\": " + dead + ", \"usage\": {\"0\": 1000}}");
        Files.writeString(dir.resolve("." + dead + ".tmp"), "{\"pid\": " + dead);
        try (var b = backend(1)) {
            GpuSnapshot s = b.snapshot();
            assertEquals(0, s.gpu(0).orElseThrow().usedMib());
            assertTrue(s.processes().isEmpty());
        }
        assertFalse(Files.exists(dir.resolve(dead + ".json")));
        assertFalse(Files.exists(dir.resolve("." + dead + ".tmp")));
    }

    @Test
    void garbageAndHalfWrittenFilesAreSkipped() throws Exception {
        report(ME, "{\"pid\": " + ME + ", \"usage\": {\"0\": 1000}}");
        Files.writeString(dir.resolve("1.json"), "{\"pid\": 1, \"usage\": {\"0\": 10"); // torn
        Files.writeString(dir.resolve("garbage.json"), "\u0000\u0001not json at all");
        Files.writeString(dir.resolve("negative.json"), "{\"pid\": 1, \"usage\": {\"0\": -10}}");
        Files.writeString(dir.resolve("empty.json"), "");
        Files.writeString(dir.resolve("notes.txt"), "ignored: not a .json file");
        try (var b = backend(1)) {
            GpuSnapshot s = b.snapshot();
            assertEquals(1000, s.gpu(0).orElseThrow().usedMib());
            assertEquals(List.of(new GpuProcess(0, ME, 1000)), s.processes());
            assertEquals(4, s.warnings().size(), s.warnings().toString());
            assertTrue(s.warnings().get(0).startsWith("sim: skipped usage file"));
        }
        assertTrue(Files.exists(dir.resolve("1.json")), "a bad file of a live pid is left alone");
    }

    @Test
    void garbageFileOfDeadPidIsDeletedSilently() throws Exception {
        long dead = deadPid();
        report(dead, "{\"pid\": ");
        try (var b = backend(1)) {
            assertTrue(b.snapshot().warnings().isEmpty());
        }
        assertFalse(Files.exists(dir.resolve(dead + ".json")));
    }

    @Test
    void externalUsageIsAnExternalProcess() {
        try (var b = SimulatedGpuBackend.builder(2).external(0, 1_200).external(1, 0).directory(dir).build()) {
            GpuSnapshot s = b.snapshot();
            assertEquals(1_200, s.gpu(0).orElseThrow().usedMib());
            assertEquals(List.of(new GpuProcess(0, SimulatedGpuBackend.EXTERNAL_PID, 1_200)), s.processes());
            assertEquals(OptionalInt.of(0), s.gpu(0).orElseThrow().utilPercent(), "external use is not a sim job");
            assertTrue(ProcessHandle.of(SimulatedGpuBackend.EXTERNAL_PID).isEmpty());
        }
    }

    @Test
    void usedIsClampedAtTotalWhileProcessesKeepTheirClaims() throws Exception {
        report(ME, "{\"pid\": " + ME + ", \"usage\": {\"0\": 900}}");
        try (var b = SimulatedGpuBackend.builder(1).totalMib(1_000).external(0, 300).directory(dir).build()) {
            GpuSnapshot s = b.snapshot();
            assertEquals(1_000, s.gpu(0).orElseThrow().usedMib());
            assertEquals(900, SimJobLauncher.usedBy(s, ME, 0));
        }
    }

    @Test
    void usageOnGpusBeyondTheCountIsIgnoredWithAWarning() throws Exception {
        report(ME, "{\"pid\": " + ME + ", \"usage\": {\"0\": 10, \"5\": 20}}");
        try (var b = backend(2)) {
            GpuSnapshot s = b.snapshot();
            assertEquals(1, s.processes().size());
            assertTrue(s.warnings().get(0).contains("GPU 5"), s.warnings().toString());
        }
    }

    @Test
    void directoryComesFromOptionThenEnvironmentThenPrivateTemp() throws Exception {
        Path fromEnv = dir.resolve("env");
        try (var b = SimulatedGpuBackend.builder(1).build(Map.of(SimulatedGpuBackend.SIM_DIR_ENV, fromEnv.toString()))) {
            assertEquals(fromEnv, b.directory());
            assertTrue(Files.isDirectory(fromEnv));
        }
        assertTrue(Files.isDirectory(fromEnv), "a directory the backend did not create is kept");
        Path option = dir.resolve("opt");
        try (var b = SimulatedGpuBackend.builder(1).directory(option)
                .build(Map.of(SimulatedGpuBackend.SIM_DIR_ENV, fromEnv.toString()))) {
            assertEquals(option, b.directory());
        }
        Path privateDir;
        try (var b = SimulatedGpuBackend.builder(1).build(Map.of())) {
            privateDir = b.directory();
            Files.writeString(privateDir.resolve("1.json"), "{}");
        }
        assertFalse(Files.exists(privateDir), "the private directory is deleted on close");
    }

    @Test
    void jobEnvironmentNamesDirectoryAndSimJob() throws Exception {
        try (var b = backend(1)) {
            Map<String, String> env = b.jobEnvironment();
            assertEquals(dir.toAbsolutePath().toString(), env.get("GPUSCHED_SIM_DIR"));
            assertEquals(SimJobs.shellCommand(), env.get("GPUSCHED_SIMJOB"));
            // what a jobs-file line does: the shell expands the prefix and appends the flags
            ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", "$GPUSCHED_SIMJOB --vram 10 --ramp 0 --hold 0 --exit-code 4");
            pb.environment().putAll(env);
            assertEquals(4, pb.start().waitFor());
        }
    }

    @Test
    void closedBackendRefusesSnapshotsAndClosesTwiceQuietly() {
        var b = backend(1);
        b.close();
        b.close();
        assertThrows(BackendException.class, b::snapshot);
    }

    @Test
    void closeRemovesTheDirectoryItCreatedWithWhateverJobsLeftInIt() throws Exception {
        Path created;
        try (var b = SimulatedGpuBackend.builder(1).build(Map.of())) {
            created = b.directory();
            // what SIGKILLed jobs and the demo's --oom-once marker leave behind
            Files.writeString(created.resolve("123.json"), "{\"pid\": 123, \"usage\": {\"0\": 10}}");
            Files.writeString(created.resolve(".123.tmp"), "{");
            Files.createDirectories(created.resolve("markers")).resolve("demo-oom.marker").toFile().createNewFile();
        }
        assertFalse(Files.exists(created), "close deletes the directory the backend created");
    }

    @Test
    void closeKeepsAGivenDirectoryAndItsFiles() throws Exception {
        Path given = dir.resolve("given");
        try (var b = SimulatedGpuBackend.builder(1).directory(given).build(Map.of())) {
            Files.writeString(b.directory().resolve("notes.txt"), "mine");
        }
        assertTrue(Files.exists(given.resolve("notes.txt")), "a directory the user named is never deleted");
    }

    /**
     * The scheduler reads snapshots on a worker thread while another thread closes the backend: a
     * scan that finds the directory gone recreates it, which must not outlive the close.
     */
    @Test
    void snapshotsOverlappingCloseLeaveNoDirectoryBehind() throws Exception {
        for (int round = 0; round < 200; round++) {
            var b = SimulatedGpuBackend.builder(1).build(Map.of());
            Thread reader = new Thread(() -> {
                try {
                    while (true) {
                        b.snapshot();
                    }
                } catch (BackendException closed) {
                    // closed: done
                }
            });
            reader.start();
            Thread.sleep(0, 100_000 * (round % 10));
            b.close();
            reader.join(10_000);
            assertFalse(Files.exists(b.directory()), "round " + round + " left " + b.directory());
        }
    }

    @Test
    void builderRejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> SimulatedGpuBackend.builder(0));
        assertThrows(IllegalArgumentException.class, () -> SimulatedGpuBackend.builder(1).totalMib(0));
        assertThrows(IllegalArgumentException.class, () -> SimulatedGpuBackend.builder(1).external(0, -1));
        var beyond = SimulatedGpuBackend.builder(2).external(2, 10).directory(dir);
        var e = assertThrows(IllegalArgumentException.class, beyond::build);
        assertTrue(e.getMessage().contains("GPU 2"), e.getMessage());
    }

    @Test
    void describeSaysSimAndSize() {
        try (var b = backend(2)) {
            assertTrue(b.describe().startsWith("sim (2 GPUs x 24000 MiB"), b.describe());
        }
    }
}

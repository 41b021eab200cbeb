package io.gpusched.testkit.sim;

import static io.gpusched.testkit.sim.SimJobLauncher.awaitSnapshot;
import static io.gpusched.testkit.sim.SimJobLauncher.hasProcess;
import static io.gpusched.testkit.sim.SimJobLauncher.start;
import static io.gpusched.testkit.sim.SimJobLauncher.usedBy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import io.gpusched.testkit.sim.SimJobLauncher.Impl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The simulated job, run as a real process and observed through the backend. Every behaviour is
 * checked for both implementations, native and Java, so they cannot drift apart.
 */
class SimJobTest {
    @TempDir
    Path tmp;
    Path simDir;
    Path stderr;
    SimulatedGpuBackend backend;
    final List<Process> started = new ArrayList<>();

    @BeforeEach
    void setUp() {
        simDir = tmp.resolve("sim");
        stderr = tmp.resolve("stderr.txt");
        backend = SimulatedGpuBackend.builder(3).directory(simDir).build();
    }

    @AfterEach
    void tearDown() {
        started.forEach(Process::destroyForcibly);
        backend.close();
    }

    private Process run(Impl impl, Optional<String> devices, String... flags) throws IOException {
        Process p = start(impl, simDir, devices, stderr, flags);
        started.add(p);
        return p;
    }

    private static int exitOf(Process p) throws InterruptedException {
        assertTrue(p.waitFor(SimJobLauncher.PATIENCE.toSeconds(), TimeUnit.SECONDS), "simjob did not exit");
        return p.exitValue();
    }

    @Test
    void nativeSimJobIsBuiltAndPreferred() {
        assertTrue(SimJobs.nativeCommand().isPresent(), "the build compiles src/main/c/simjob.c for this machine");
        assertEquals(SimJobs.nativeCommand().get(), SimJobs.command());
        assertEquals(String.join(" ", SimJobs.command()), SimJobs.shellCommand());
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void usageAppearsOnTheVisibleGpuWithBusyUtilisation(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("1"), "--vram", "8000", "--ramp", "0", "--hold", "30");
        GpuSnapshot s = awaitSnapshot(backend, "8000 MiB on GPU 1", x -> usedBy(x, p.pid(), 1) == 8000);
        GpuStat gpu1 = s.gpu(1).orElseThrow();
        assertEquals(8000, gpu1.usedMib());
        assertEquals(OptionalInt.of(90), gpu1.utilPercent());
        assertEquals(OptionalInt.of(0), s.gpu(0).orElseThrow().utilPercent());
        assertEquals(0, s.gpu(0).orElseThrow().usedMib());
        assertTrue(gpu1.uuid().isEmpty());
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void unsetVisibleDevicesMeansGpuZero(Impl impl) throws Exception {
        Process p = run(impl, Optional.empty(), "--vram", "500", "--ramp", "0", "--hold", "30");
        GpuSnapshot s = awaitSnapshot(backend, "usage on GPU 0", x -> usedBy(x, p.pid(), 0) == 500);
        assertEquals(1, s.processes().size());
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void multiGpuJobReportsOnEachVisibleGpu(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("0,2"), "--vram", "3000", "--ramp", "0", "--hold", "30");
        GpuSnapshot s = awaitSnapshot(backend, "usage on GPUs 0 and 2",
                x -> usedBy(x, p.pid(), 0) == 3000 && usedBy(x, p.pid(), 2) == 3000);
        assertEquals(0, s.gpu(1).orElseThrow().usedMib());
        assertEquals(List.of(0, 2), s.processes().stream().map(io.gpusched.gpu.GpuProcess::gpu).toList());
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void rampRisesSteadilyToVram(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("0"), "--vram", "4000", "--ramp", "1", "--hold", "30");
        List<Long> seen = new ArrayList<>();
        awaitSnapshot(backend, "the ramp to reach 4000 MiB", x -> {
            if (hasProcess(x, p.pid())) {
                seen.add(usedBy(x, p.pid(), 0));
            }
            return seen.contains(4000L);
        });
        for (int i = 1; i < seen.size(); i++) {
            assertTrue(seen.get(i) >= seen.get(i - 1), "usage fell during the ramp: " + seen);
        }
        assertTrue(seen.stream().anyMatch(v -> v > 0 && v < 4000), "no value part-way up the ramp: " + seen);
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void exitCodeIsHonouredAndFileRemovedAtExit(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("0"), "--vram", "100", "--ramp", "0", "--hold", "0.2", "--exit-code", "3");
        assertEquals(3, exitOf(p));
        assertFalse(Files.exists(simDir.resolve(p.pid() + ".json")));
        assertTrue(backend.snapshot().processes().isEmpty());
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void sigtermRemovesFileAndExits143(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("0"), "--vram", "100", "--ramp", "0", "--hold", "60");
        awaitSnapshot(backend, "the job to report", x -> hasProcess(x, p.pid()));
        p.destroy(); // SIGTERM
        assertEquals(143, exitOf(p));
        assertFalse(Files.exists(simDir.resolve(p.pid() + ".json")));
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void ignoreTermLeavesOnlySigkill(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("0"), "--vram", "100", "--ramp", "0", "--hold", "60", "--ignore-term");
        awaitSnapshot(backend, "the job to report", x -> hasProcess(x, p.pid()));
        p.destroy(); // SIGTERM, ignored
        assertFalse(p.waitFor(300, TimeUnit.MILLISECONDS), "a job started with --ignore-term exited on SIGTERM");
        assertTrue(hasProcess(backend.snapshot(), p.pid()));
        p.destroyForcibly();
        assertEquals(137, exitOf(p));
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void usageFilesOfDeadPidsAreDropped(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("0"), "--vram", "100", "--ramp", "0", "--hold", "60");
        awaitSnapshot(backend, "the job to report", x -> hasProcess(x, p.pid()));
        p.destroyForcibly(); // SIGKILL: the job cannot clean up after itself
        exitOf(p);
        assertTrue(Files.exists(simDir.resolve(p.pid() + ".json")), "SIGKILL should leave the file behind");
        GpuSnapshot s = backend.snapshot();
        assertTrue(s.processes().isEmpty(), s.toString());
        assertEquals(0, s.gpu(0).orElseThrow().usedMib());
        assertFalse(Files.exists(simDir.resolve(p.pid() + ".json")), "the backend deletes a dead job's file");
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void oomOnceFailsFirstRunThenSucceeds(Impl impl) throws Exception {
        Path marker = tmp.resolve("markers/job1");
        Process first = run(impl, Optional.of("0"), "--vram", "2000", "--hold", "0", "--oom-once", marker.toString());
        assertEquals(1, exitOf(first));
        assertTrue(Files.readString(stderr).contains("torch.OutOfMemoryError: CUDA out of memory"),
                Files.readString(stderr));
        assertTrue(Files.exists(marker));
        Process second = run(impl, Optional.of("0"), "--vram", "2000", "--ramp", "0", "--hold", "0.1",
                "--oom-once", marker.toString());
        assertEquals(0, exitOf(second));
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void spikeIsReportedForItsWindowOnly(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("0"), "--vram", "1000", "--ramp", "0", "--hold", "30",
                "--spike", "5000", "--spike-at", "0.3", "--spike-for", "0.3");
        awaitSnapshot(backend, "the spike", x -> usedBy(x, p.pid(), 0) == 5000);
        awaitSnapshot(backend, "the spike to end", x -> usedBy(x, p.pid(), 0) == 1000);
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void badCommandLinesExitWithUsageError(Impl impl) throws Exception {
        assertEquals(2, exitOf(run(impl, Optional.of("0"), "--ramp", "1")));
        assertTrue(Files.readString(stderr).contains("--vram is required"));
        assertEquals(2, exitOf(run(impl, Optional.of("0"), "--vram", "10", "--bogus", "1")));
        assertTrue(Files.readString(stderr).contains("unknown flag --bogus"));
        assertEquals(2, exitOf(run(impl, Optional.of("0"), "--vram", "-5")));
        assertEquals(2, exitOf(run(impl, Optional.of("GPU-1234"), "--vram", "10")));
    }

    @ParameterizedTest
    @EnumSource(Impl.class)
    void bothImplementationsWriteTheSameFile(Impl impl) throws Exception {
        Process p = run(impl, Optional.of("2,0"), "--vram", "700", "--ramp", "0", "--hold", "30");
        awaitSnapshot(backend, "the job to report", x -> hasProcess(x, p.pid()));
        String text = Files.readString(simDir.resolve(p.pid() + ".json"));
        assertEquals("{\"pid\": " + p.pid() + ", \"usage\": {\"2\": 700, \"0\": 700}}\n", text);
        assertEquals(Optional.of(new UsageReport(p.pid(), Map.of(0, 700L, 2, 700L))), UsageReport.parse(text));
    }
}

package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.proc.ProcSessions;
import io.gpusched.testkit.sim.SimJobs;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The wrapper on its own, as a compute node runs it: real processes, simulated GPUs, no Slurm. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlurmWrapTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int wrap(String shellCommand) {
        return SlurmWrap.run(List.of("--out", dir.toString(), "--backend", "sim", "--backend-option", "gpus=2",
                "--sample", "0.05", "--", "/bin/sh", "-c", shellCommand), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void theCommandsPeakPerGpuItsExitAndItsOutputAreLeftInTheDirectory() throws Exception {
        int exit = wrap("echo hello; " + SimJobs.shellCommand() + " --vram 700 --ramp 0.1 --hold 0.5 && exit 3");
        assertEquals(3, exit, "the command's own status");
        WrapReport r = WrapReport.read(dir, WrapReport.RESULT).orElseThrow();
        assertEquals(Map.of(0, 700L), r.peakMib(), "its session's processes, measured on the simulated GPUs");
        assertEquals(3, r.exitCode().getAsInt());
        assertTrue(r.avgUtil().isPresent());
        assertTrue(r.endedMs().getAsLong() >= r.startedMs() + 500, r.toString());
        assertTrue(WrapReport.read(dir, WrapReport.STARTED).isPresent());
        assertTrue(Files.readString(dir.resolve(WrapReport.LOG)).startsWith("hello\n"));
    }

    @Test
    void memoryOfProcessesOutsideTheCommandsSessionIsNotItsPeak() throws Exception {
        // a sim job started elsewhere (here: by this test, in its own session) reports to the same usage directory
        Path usage = Files.createDirectories(dir.resolve("usage"));
        List<String> other = new ArrayList<>(List.of("setsid"));
        other.addAll(SimJobs.command());
        other.addAll(List.of("--vram", "5000", "--hold", "5"));
        ProcessBuilder pb = new ProcessBuilder(other).redirectErrorStream(true).redirectOutput(dir.resolve("other.log").toFile());
        pb.environment().put("GPUSCHED_SIM_DIR", usage.toString());
        Process stranger = pb.start();
        try {
            int exit = SlurmWrap.run(List.of("--out", dir.resolve("job").toString(), "--backend", "sim", "--backend-option",
                    "gpus=1", "--backend-option", "dir=" + usage, "--sample", "0.05", "--", "/bin/sh", "-c",
                    SimJobs.shellCommand() + " --vram 300 --ramp 0.1 --hold 0.5"), System.err);
            assertEquals(0, exit);
            assertEquals(Map.of(0, 300L), WrapReport.read(dir.resolve("job"), WrapReport.RESULT).orElseThrow().peakMib());
        } finally {
            stranger.destroyForcibly();
        }
    }

    @Test
    void sigtermFromSlurmReachesTheCommandsSession_andTheResultIsStillWritten() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process wrapper = new ProcessBuilder(java, "-cp", cp, SlurmWrap.class.getName(), "--out", dir.toString(), "--backend",
                "sim", "--backend-option", "gpus=1", "--sample", "0.05", "--", "/bin/sh", "-c",
                SimJobs.shellCommand() + " --vram 900 --ramp 0.1 --hold 60").redirectErrorStream(true)
                .redirectOutput(dir.resolve("wrapper.out").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        WrapReport started = null;
        while (System.nanoTime() < deadline) {
            started = WrapReport.read(dir, WrapReport.STARTED).orElse(null);
            if (started != null && heldLongEnough()) {
                break;
            }
            Thread.sleep(50);
        }
        assertTrue(started != null, "it started");
        wrapper.destroy(); // SIGTERM, as scancel sends it
        assertTrue(wrapper.waitFor(15, TimeUnit.SECONDS), "the wrapper ends");
        WrapReport r = WrapReport.read(dir, WrapReport.RESULT).orElseThrow();
        assertEquals(143, r.exitCode().getAsInt(), "the command ended by SIGTERM: " + Files.readString(dir.resolve("wrapper.out")));
        assertEquals(Map.of(0, 900L), r.peakMib(), "measured until it was cancelled");
        long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!ProcSessions.system().members(started.session()).isEmpty() && System.nanoTime() < gone) {
            Thread.sleep(50);
        }
        assertTrue(ProcSessions.system().members(started.session()).isEmpty(), "nothing of its session is left");
    }

    /** Gives the simulated job time to reach its memory (0.1 s ramp) and the wrapper time to sample it. */
    private static boolean heldLongEnough() throws InterruptedException {
        Thread.sleep(600);
        return true;
    }

    @Test
    void theJobsGpusAreThoseOfCudaVisibleDevices_elseSlurmJobGpus() {
        assertEquals(List.of(1, 0), SlurmWrap.visibleGpus(Map.of("CUDA_VISIBLE_DEVICES", "1,0", "SLURM_JOB_GPUS", "3,2")));
        assertEquals(List.of(3), SlurmWrap.visibleGpus(Map.of("CUDA_VISIBLE_DEVICES", "NoDevFiles", "SLURM_JOB_GPUS", "3")));
        assertEquals(List.of(), SlurmWrap.visibleGpus(Map.of("CUDA_VISIBLE_DEVICES", "GPU-1a2b")));
    }

    @Test
    void whatTheWrapperDoesNotKnowIsRemoved_notLeftAsTheSubmittersEnvironmentSaidIt() {
        Map<String, String> env = new java.util.HashMap<>(Map.of("GPUSCHED_GPUS", "7", "GPUSCHED_JOB_NO", "99",
                "GPUSCHED_JOB_KEY", "theirs#0", "PATH", "/bin", SlurmWrap.LOCAL_RUN_VARIABLE, "/var/log/gpusched/journal.jsonl#12"));
        SlurmWrap.jobEnvironment(env, List.of(), java.util.Optional.of("3"), java.util.Optional.empty());
        assertEquals(Map.of("GPUSCHED_JOB_NO", "3", "PATH", "/bin"), env);
    }

    @Test
    void aCommandLineWithoutOutOrCommandIsAUsageError() {
        assertEquals(2, SlurmWrap.run(List.of("--", "true"), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertEquals(2, SlurmWrap.run(List.of("--out", dir.toString()), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertEquals(2, SlurmWrap.run(List.of("--bogus", "1", "--", "true"), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: gpusched slurm-wrap"));
    }
}

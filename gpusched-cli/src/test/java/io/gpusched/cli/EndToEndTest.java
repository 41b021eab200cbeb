package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented behaviours (README.md, docs/), end to end: the real CLI, real subprocesses (the simulated GPU job), and
 * simulated GPUs of 24000 MiB. Polls are 0.1 s, samples 0.05 s, the kill grace 0.5 s.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EndToEndTest {
    private static final String SIM = "$GPUSCHED_SIMJOB";

    @TempDir
    Path dir;

    @Test
    void unusableLogDirectoryIsAOneLineErrorAndStartsNothing() throws Exception {
        Path marker = dir.resolve("ran");
        CliRun run = new CliRun(dir, "[vram=1G] touch " + marker + "\n");
        Files.writeString(run.logs, "a file where the log directory should be");
        assertEquals(2, run.runToEnd("--sim", "1"));
        String err = run.errors().strip();
        assertFalse(err.contains("\n"), err);
        assertTrue(err.startsWith("gpusched: cannot use log directory " + run.logs
                + ": something that is not a directory is in the way"), err);
        assertTrue(err.endsWith("no job was started; pick a writable directory with --log-dir"), err);
        assertFalse(Files.exists(marker));
    }

    @Test
    void accurateDeclarationIsWithinTolerance() throws Exception {
        CliRun run = new CliRun(dir, job("vram=8000", 7800, 0.1, 0.4));
        assertEquals(0, run.runToEnd("--sim", "1"));
        String done = run.await("job 1 finished [OK]");
        assertTrue(done.contains("peak vram gpu0:7800 MiB | declared 8000 MiB → within ±10%"), done);
        // device-level utilisation is sampled: at most the sim's 90 %, less if a sample preceded the job's first report
        assertTrue(done.matches(".*\\| avg gpu util [0-9]+%$"), done);
        assertTrue(run.output().contains("all 1 jobs done — 1 ok, 0 failed, 0 cancelled, 0 under-declared vram, 0 over-declared vram"));
    }

    @Test
    void underDeclarationWarnsAtOnceWhileTheJobRuns() throws Exception {
        CliRun run = new CliRun(dir, job("vram=4G", 6000, 0.2, 1.0));
        assertEquals(0, run.runToEnd("--sim", "1"));
        int warn = run.indexOf("WARN  job 1 EXCEEDS declared VRAM");
        int finished = run.indexOf("job 1 finished");
        assertTrue(warn >= 0 && warn < finished, run.output());
        assertEquals(1, run.lines().stream().filter(l -> l.contains("EXCEEDS")).count(), "warned once");
        assertTrue(run.lines().get(finished).contains("UNDER-DECLARED (+46%); raise it"), run.output());
    }

    @Test
    void overDeclarationIsReportedAtCompletion() throws Exception {
        CliRun run = new CliRun(dir, job("vram=12288", 4000, 0.1, 0.3));
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertTrue(run.await("job 1 finished").contains("declared 12288 MiB → over-declared (-67%); lowering it frees packing headroom"));
        assertFalse(run.output().contains("EXCEEDS"));
    }

    @Test
    void verboseLogsGrowthLinesPerJob() throws Exception {
        CliRun run = new CliRun(dir, job("vram=8G", 6000, 0.6, 0.3) + job("vram=8G", 3000, 0.6, 0.3, "--exit-code 0"));
        assertEquals(0, run.runToEnd("--sim", "1", "-v"));
        long job1 = run.lines().stream().filter(l -> l.startsWith("job 1 vram now gpu0:")).count();
        long job2 = run.lines().stream().filter(l -> l.startsWith("job 2 vram now gpu0:")).count();
        assertTrue(job1 >= 2 && job2 >= 2, run.output());
        // growth lines come every 256 MiB of peak, so the last one need not be the final peak; the summary is
        assertTrue(run.await("job 1 finished").contains("peak vram gpu0:6000 MiB"), run.output());
    }

    @Test
    void twoDeclaredJobsPackOnOneGpu() throws Exception {
        CliRun run = new CliRun(dir, job("vram=10G", 9000, 0.1, 1.0) + job("vram=10G", 9000, 0.1, 1.0));
        assertEquals(0, run.runToEnd("--sim", "1"));
        int second = run.indexOf("job 2 started on gpu [0]");
        int firstDone = run.indexOf("job 1 finished");
        assertTrue(second >= 0 && second < firstDone, "both ran at once on gpu0:\n" + run.output());
    }

    @Test
    void undeclaredJobsSerialise() throws Exception {
        CliRun run = new CliRun(dir, job("", 2000, 0.1, 0.4) + job("", 2000, 0.1, 0.4, "--exit-code 0"));
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertTrue(run.indexOf("job 1 finished") < run.indexOf("job 2 started"), run.output());
        assertTrue(run.await("job 2 started").contains("undeclared (exclusive idle GPU)"));
    }

    @Test
    void smallerJobsBackfillPastABlockedHead() throws Exception {
        // job 1 holds 20G; job 2 (16G) cannot fit beside it; job 3 (2G) can and must not wait behind job 2.
        CliRun run = new CliRun(dir, job("vram=20000", 19000, 0.1, 1.2) + job("vram=16G", 1000, 0.1, 0.1)
                + job("vram=2G", 1000, 0.1, 0.1));
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertTrue(run.indexOf("job 3 started") < run.indexOf("job 1 finished"), run.output());
        assertTrue(run.indexOf("job 2 started") > run.indexOf("job 1 finished"), run.output());
        assertTrue(Files.readString(run.logs.resolve("status.txt")).contains("✓ job 3"));
    }

    @Test
    void infeasibleJobFailsFastWithoutBlockingTheQueue() throws Exception {
        CliRun run = new CliRun(dir, job("vram=30G", 1000, 0.1, 0.1) + job("vram=1G gpus=3", 100, 0.1, 0.1)
                + job("vram=1G", 500, 0.1, 0.1));
        assertEquals(1, run.runToEnd("--sim", "2"));
        assertTrue(run.await("WARN  job 1 INFEASIBLE").contains("needs 1 GPU with ≥ 31232 MiB"), run.output());
        assertTrue(run.await("WARN  job 2 INFEASIBLE").contains("needs 3 GPUs but only 2 are present"), run.output());
        run.await("job 3 finished [OK]");
        assertTrue(run.output().contains("failed: job 1 (infeasible, exit 1)"));
    }

    @Test
    void multiGpuJobGetsDistinctGpusAndPerGpuPeaks() throws Exception {
        Path env = dir.resolve("env.txt");
        CliRun run = new CliRun(dir, "[vram=8G gpus=2] echo \"$CUDA_VISIBLE_DEVICES\" > " + env + "; " + SIM
                + " --vram 7000 --ramp 0.1 --hold 0.5\n");
        assertEquals(0, run.runToEnd("--sim", "3", "--gpus", "1,2"));
        assertEquals("1,2", Files.readString(env).strip());
        assertTrue(run.await("job 1 finished").contains("peak vram gpu1:7000 MiB, gpu2:7000 MiB"), run.output());
        assertTrue(Files.exists(run.logs.resolve("job001_gpu1-2.log")));
    }

    @Test
    void failedExitCodePropagatesAsTheLargest() throws Exception {
        CliRun run = new CliRun(dir, job("vram=1G", 100, 0.1, 0.1, "--exit-code 3") + job("vram=1G", 100, 0.1, 0.1, "--exit-code 5")
                + job("vram=1G", 100, 0.1, 0.1));
        assertEquals(5, run.runToEnd("--sim", "2"));
        assertTrue(run.output().contains("job 1 finished [EXIT 3]"), run.output());
        assertTrue(run.output().contains("all 3 jobs done — 1 ok, 2 failed"), run.output());
    }

    @Test
    void cpuOnlyJobIsReportedAsNoGpuMemorySeenNotZero() throws Exception {
        CliRun run = new CliRun(dir, "[vram=1G] sleep 0.3\n");
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertTrue(run.await("job 1 finished").contains("peak vram n/a (no GPU memory seen)"), run.output());
        assertTrue(run.output().contains("(file and GPUs polled every 0.1s; a job that ends frees its GPUs at once;"),
                "the header says what the poll is for:\n" + run.output());
    }

    @Test
    void concurrentJobsOnOneGpuAreAttributedSeparately() throws Exception {
        CliRun run = new CliRun(dir, job("vram=5000", 5000, 0.1, 0.8) + job("vram=9000", 9000, 0.1, 0.8));
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertTrue(run.await("job 1 finished").contains("peak vram gpu0:5000 MiB"), run.output());
        assertTrue(run.await("job 2 finished").contains("peak vram gpu0:9000 MiB"), run.output());
    }

    @Test
    void failedJobLogHoldsItsOutputAndTheJobsFileIsNeverWritten() throws Exception {
        String text = "[vram=1G] echo hello-from-job; exit 4\n";
        CliRun run = new CliRun(dir, text);
        long mtime = Files.getLastModifiedTime(run.jobs).toMillis();
        assertEquals(4, run.runToEnd("--sim", "1"));
        assertEquals(text, Files.readString(run.jobs));
        assertEquals(mtime, Files.getLastModifiedTime(run.jobs).toMillis());
        assertTrue(Files.readString(run.logs.resolve("job001_gpu0.log")).contains("hello-from-job"));
    }
}

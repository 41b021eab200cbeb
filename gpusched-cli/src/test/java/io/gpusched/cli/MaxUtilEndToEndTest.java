package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --max-util} through the real CLI: a simulated GPU reports 90 % while a simulated job runs on it,
 * 0 % otherwise, so with a limit of 80 a busy card takes no new job until its recent mean falls.
 */
class MaxUtilEndToEndTest {
    private static final Pattern BUSY = Pattern.compile("job 3 +pending vram 2048 \\[needs 1 GPU with ≥ 2560 MiB headroom; "
            + "gpu0 is ([0-9]+)% busy \\(limit --max-util 80\\)\\]");

    @TempDir
    Path dir;

    @Test
    void aBusyGpuTakesNoNewJob_theBoardSaysWhy_andItTakesJobsAgainOnceIdle() throws Exception {
        CliRun run = new CliRun(dir, job("vram=2G", 1500, 0.1, 6.0));
        run.start("--sim", "2", "--max-util", "80");
        assertTrue(run.await("job 1 started").contains("on gpu [0]"), run.output());
        // Long enough for gpu0's 30 s mean to climb past 80 % over the idle readings before job 1 started.
        Thread.sleep(3_000);
        run.appendJobs(job("vram=2G", 1000, 0.1, 0.3) + job("vram=2G gpu-ids=0", 1000, 0.1, 0.3));
        // Best fit would pack job 2 beside job 1 on gpu0; the limit sends it to the idle gpu1.
        assertTrue(run.await("job 2 started").contains("on gpu [1]"), run.output());
        // Job 3 may only use gpu0: it waits, and the board names the busy GPU and the limit.
        Path board = run.logs.resolve("status.txt");
        long end = System.nanoTime() + CliRun.WAIT.toNanos();
        Matcher m = null;
        while (System.nanoTime() < end) {
            String text = Files.exists(board) ? Files.readString(board) : "";
            m = BUSY.matcher(text);
            if (m.find()) {
                break;
            }
            m = null;
            Thread.sleep(20);
        }
        if (m == null) {
            fail("no busy reason on the board:\n" + (Files.exists(board) ? Files.readString(board) : "(none)") + "\n" + run.output());
        }
        int pct = Integer.parseInt(m.group(1));
        assertTrue(pct > 80 && pct <= 90, "the sim's 90 % averaged with its earlier idle readings: " + pct);
        assertEquals(0, run.exitCode());
        // It started only once job 1 had ended and gpu0's mean fell to the limit.
        assertTrue(run.indexOf("job 3 started on gpu [0]") > run.indexOf("job 1 finished"), run.output());
    }
}

package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpus=0.5} through the real CLI on simulated GPUs of different sizes (24000 and 80000 MiB). */
class GpuShareEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void twoHalvesShareTheSmallCard_andEachVerdictIsAgainstTheMibItsShareReservedThere() throws Exception {
        CliRun run = new CliRun(dir, job("gpus=0.5", 11000, 0.1, 1.2) + job("gpus=0.5", 11500, 0.1, 1.2)
                + job("gpus=0.5 gpu-ids=1", 20000, 0.1, 0.3));
        assertEquals(0, run.runToEnd("--sim", "2", "--sim-mib", "24000,80000"));
        // Best fit: half of gpu0 (12000 MiB) leaves less over than half of gpu1 (40000), so both halves go
        // to gpu0, side by side, each declared at its 12000 MiB share.
        assertTrue(run.await("job 1 started").contains("on gpu [0]") && run.await("job 1 started")
                .contains("declared 12000 MiB/gpu (0.5 of gpu0)"), run.output());
        int second = run.indexOf("job 2 started on gpu [0]");
        assertTrue(second >= 0 && second < run.indexOf("job 1 finished"), "both halves at once on gpu0:\n" + run.output());
        assertTrue(run.await("job 2 started").contains("declared 12000 MiB/gpu (0.5 of gpu0)"), run.output());
        assertTrue(run.await("job 1 finished").contains("peak vram gpu0:11000 MiB | declared 12000 MiB → within ±10%"),
                run.output());
        // Half of the 80000 MiB card is 40000 MiB: a 20000 MiB peak is over-declared against that.
        assertTrue(run.await("job 3 started").contains("declared 40000 MiB/gpu (0.5 of gpu1)"), run.output());
        assertTrue(run.await("job 3 finished").contains("declared 40000 MiB → over-declared (-50%)"), run.output());
    }

    @Test
    void aFractionAboveOneIsAOneLineErrorNamingFileLineAndFix() throws Exception {
        CliRun run = new CliRun(dir, "python a.py\n[gpus=1.5] python b.py\n");
        assertEquals(2, run.runToEnd("--sim", "1"));
        assertEquals("gpusched: jobs.txt:2: bad gpus 'gpus=1.5' (a fraction is a share of one GPU: above 0, below 1,"
                + " at most 9 decimals); give a whole number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1"
                + " such as 0.5", run.errors().strip());
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pinned GPUs as mgpu means them (issue 26, item 4), through the real CLI on simulated GPUs: pinning
 * N GPUs without {@code gpus=} gives the job all N, in a jobs file and on {@code submit}'s command
 * line; {@code gpus=K} with more pins picks K of them.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PinnedGpusEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;

    /** A command that writes the GPUs it was given into {@code file}, holding them a moment. */
    private static String visibleDevicesTo(Path file) {
        return "echo \"$CUDA_VISIBLE_DEVICES\" > " + file + "; $GPUSCHED_SIMJOB --vram 100 --ramp 0.05 --hold 0.1";
    }

    @Test
    void aJobsFileLinePinningTwoGpusGetsBoth_andGpus1AmongThemGetsOne() throws Exception {
        Path both = dir.resolve("both.txt");
        Path one = dir.resolve("one.txt");
        Path twoOfThree = dir.resolve("two-of-three.txt");
        CliRun run = new CliRun(dir, "[gpu-ids=0,1] " + visibleDevicesTo(both) + "\n"
                + "[gpus=1 gpu-ids=0,1] " + visibleDevicesTo(one) + "\n"
                + "[gpus=2 gpu-ids=0-2] " + visibleDevicesTo(twoOfThree) + "\n");
        assertEquals(0, run.runToEnd("--sim", "3"));
        assertEquals("0,1", Files.readString(both).strip(), "torchrun --nproc_per_node=2 sees both: " + run.output());
        assertTrue(List.of("0", "1").contains(Files.readString(one).strip()), Files.readString(one));
        String[] two = Files.readString(twoOfThree).strip().split(",");
        assertEquals(2, two.length, String.join(",", two));
        assertTrue(List.of("0", "1", "2").containsAll(List.of(two)), String.join(",", two));
        assertTrue(run.await("job 1 started").contains("started on gpu [0,1]"), run.output());
    }

    @Test
    void submitWithGpuIdsAloneGetsEveryPinnedGpu_andAPinTheMachineLacksIsRefusedAtSubmit() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "2", "--poll", "0.1", "--kill-grace", "1").start();
        Path both = dir.resolve("both.txt");
        Result r = daemon.verb("submit", "--gpu-ids", "0,1", "--", visibleDevicesTo(both));
        assertEquals(0, r.code(), r.toString());
        Path one = dir.resolve("one.txt");
        assertEquals(0, daemon.verb("submit", "--gpu-ids", "0,1", "--gpus", "1", "--", visibleDevicesTo(one)).code());
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); !(Files.exists(both) && Files.exists(one)
                && !Files.readString(one).isBlank() && !Files.readString(both).isBlank()); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "the jobs never ran:\n" + daemon.verb("queue", "--all").out());
        }
        assertEquals("0,1", Files.readString(both).strip());
        assertTrue(List.of("0", "1").contains(Files.readString(one).strip()), Files.readString(one));
        // Two pins ask for two GPUs; one of them is not on this machine, so it could never run.
        assertEquals(new Result(1, "", "gpusched: cannot submit 'true': it could never run here: needs 2 GPUs but only"
                + " 1 of its gpu-ids is present (no GPU 5 here; this machine has GPUs 0,1)\n"), daemon.verb("submit", "--gpu-ids", "1,5", "--", "true"));
    }
}

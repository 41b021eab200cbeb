package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** --on-finish runs a script per ended job, with the job's outcome in its environment, never waited for. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FinishHookEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void theHookGetsEachJobsOutcome_andAHangingHookDoesNotHoldTheRunUp() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=1G] true\n[vram=1G] exit 3\n");
        Path seen = dir.resolve("seen");
        String hook = "echo \"$GPUSCHED_JOB_NO $GPUSCHED_JOB_STATUS $GPUSCHED_JOB_EXIT_CODE [$GPUSCHED_JOB_COMMAND]\" >> "
                + seen + "; echo hook-output; exec sleep 29.7";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        int code = new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), System.err, s -> { })
                .run(jobs.toString(), "--sim", "1", "--poll", "0.1", "--log-dir", dir.resolve("logs").toString(),
                        "--on-finish", hook);
        assertEquals(3, code, out.toString(StandardCharsets.UTF_8));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "the run waited for its hooks");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
             !Files.exists(seen) || Files.readAllLines(seen).size() < 2; Thread.sleep(20)) {
            assertTrue(System.nanoTime() < end, "the hooks never ran");
        }
        assertEquals(List.of("1 ok 0 [true]", "2 failed 3 [exit 3]"), Files.readAllLines(seen).stream().sorted().toList());
        assertTrue(Files.readString(dir.resolve("logs/on-finish.log")).contains("hook-output"));
        new ProcessBuilder("pkill", "-f", "^sleep 29.7$").start().waitFor(); // the hanging hooks
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.Scheduler;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run on {@code --sim} that is stopped (Ctrl-C / SIGTERM, or {@link Scheduler#close()}) leaves no
 * {@code gpusched-sim-*} usage directory behind. The JVM may halt as soon as the shutdown hook's
 * {@code Scheduler.close()} returns, so the directory must be gone by then, not merely at the end of
 * the CLI's try-with-resources.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SimDirectoryCleanupEndToEndTest {
    private static final Pattern USAGE_DIR = Pattern.compile("usage in (\\S+)\\)");
    private static final String JOB = "[vram=1G] $GPUSCHED_SIMJOB --vram 1000 --ramp 0.1 --hold 60\n";

    @TempDir
    Path dir;

    /**
     * The real {@code Main} in its own JVM with a private {@code java.io.tmpdir}, so only its own sim
     * directory can appear there. Three times, because on the old code the directory survived only
     * when the JVM halted before the main thread reached the end of its try-with-resources.
     */
    @Test
    void sigtermedSchedulerLeavesNoSimDirectory() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), JOB);
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int attempt = 1; attempt <= 3; attempt++) {
            Process scheduler = new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmp, "-XX:TieredStopAtLevel=1",
                    "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                    jobs.toString(), "--sim", "1", "--fresh", "--poll", "0.1", "--kill-grace", "1",
                    "--log-dir", dir.resolve("logs").toString())
                    .directory(dir.toFile()).redirectErrorStream(true).start();
            StringBuilder output = new StringBuilder();
            try (BufferedReader out = new BufferedReader(
                    new InputStreamReader(scheduler.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    output.append(line).append('\n');
                    if (line.contains("job 1 started")) {
                        break;
                    }
                }
                // the check below could only pass vacuously if the run did not use the private tmpdir
                assertEquals(1, simDirectories(tmp).size(), "the running scheduler's sim directory is in " + tmp
                        + "\n" + output);
                assertEquals(0, new ProcessBuilder("kill", "-TERM", String.valueOf(scheduler.pid())).start().waitFor());
                while ((line = out.readLine()) != null) {
                    output.append(line).append('\n');
                }
            } finally {
                if (!scheduler.waitFor(30, TimeUnit.SECONDS)) {
                    scheduler.destroyForcibly();
                }
            }
            assertTrue(output.toString().contains("interrupted"), output.toString());
            assertEquals(List.of(), simDirectories(tmp), "attempt " + attempt + " left its sim directory:\n" + output);
        }
    }

    /**
     * A scheduler that dies without its hooks (as at an exit on OutOfMemoryError, which the launchers ask
     * for: SIGKILL runs no more of it) leaves its directory; the next run on {@code --sim} removes it. Before,
     * it stayed in the temporary directory for good.
     */
    @Test
    void theNextRunRemovesTheDirectoryOfASchedulerThatDiedWithoutItsHooks() throws Exception {
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "exec sleep 60\n");
        Process scheduler = scheduler(tmp, jobs, dir.resolve("logs"));
        try (BufferedReader out = new BufferedReader(new InputStreamReader(scheduler.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null && !line.contains("job 1 started"); line = out.readLine()) {
                assertTrue(scheduler.isAlive(), line);
            }
            assertEquals(0, new ProcessBuilder("kill", "-KILL", String.valueOf(scheduler.pid())).start().waitFor());
            assertTrue(scheduler.waitFor(30, TimeUnit.SECONDS));
            List<Path> left = simDirectories(tmp);
            assertEquals(1, left.size(), "the killed scheduler's directory is left: " + left);
            assertTrue(left.get(0).getFileName().toString().startsWith("gpusched-sim-" + scheduler.pid() + "-"), left.toString());

            Process next = scheduler(tmp, Files.writeString(dir.resolve("next.txt"), "true\n"), dir.resolve("next-logs"));
            String said = new String(next.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(next.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, next.exitValue(), said);
            assertEquals(List.of(), simDirectories(tmp), "the next run removed the dead one's directory, and its own:\n" + said);
        } finally {
            scheduler.destroyForcibly().waitFor();
            // The job outlives a SIGKILLed scheduler (its own session), and so does its monitor, which writes
            // the job's exit file under dir as the job ends: both are ended and waited for here.
            RunsLeftBehind.end(dir.resolve("logs"));
        }
    }

    private Process scheduler(Path tmp, Path jobs, Path logs) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmp, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), jobs.toString(), "--sim", "1", "--fresh",
                "--poll", "0.1", "--kill-grace", "1", "--log-dir", logs.toString())
                .directory(dir.toFile()).redirectErrorStream(true).start();
    }

    /**
     * In-process, stopped through {@link Scheduler#close()} as Main's shutdown hook does: when
     * {@code close()} returns, the directory is already gone.
     */
    @Test
    void simDirectoryIsGoneWhenSchedulerCloseReturns() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), JOB);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AtomicReference<Scheduler> running = new AtomicReference<>();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new Cli(print, print, running::set)
                .run(jobs.toString(), "--sim", "1", "--poll", "0.1", "--kill-grace", "1",
                        "--log-dir", dir.resolve("logs").toString()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!text(out).contains("job 1 started") && !exit.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Matcher m = USAGE_DIR.matcher(text(out));
        assertTrue(text(out).contains("job 1 started") && m.find(), text(out));
        Path simDir = Path.of(m.group(1));
        assertTrue(Files.isDirectory(simDir), simDir + " exists while the job runs");

        running.get().close();
        boolean goneAtClose = !Files.exists(simDir);
        exit.get(30, TimeUnit.SECONDS);
        assertTrue(goneAtClose, "the sim directory " + simDir + " still existed when Scheduler.close() returned,"
                + " which is when a shutdown hook lets the JVM halt:\n" + text(out));
        assertFalse(Files.exists(simDir));
    }

    private static String text(ByteArrayOutputStream out) {
        return out.toString(StandardCharsets.UTF_8);
    }

    private static List<Path> simDirectories(Path tmp) throws IOException {
        try (Stream<Path> entries = Files.list(tmp)) {
            return entries.filter(p -> p.getFileName().toString().startsWith("gpusched-sim-")).toList();
        }
    }
}

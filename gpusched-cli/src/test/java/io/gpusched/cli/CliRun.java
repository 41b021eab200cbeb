package io.gpusched.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Runs the CLI in-process on a jobs file in a temporary directory, on simulated GPUs, with fast
 * polls, and collects its log lines so tests can wait for and assert on them.
 */
final class CliRun implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(20);

    /**
     * One jobs-file line running the simulated GPU job.
     *
     * @param block attributes without brackets, e.g. {@code vram=8G}; empty for none
     * @param vram MiB the job ramps to, per GPU
     * @param ramp seconds to reach it
     * @param hold seconds to hold it
     * @param extra further sim-job flags
     */
    static String job(String block, int vram, double ramp, double hold, String... extra) {
        return (block.isEmpty() ? "" : "[" + block + "] ") + "$GPUSCHED_SIMJOB --vram " + vram + " --ramp " + ramp
                + " --hold " + hold + (extra.length == 0 ? "" : " " + String.join(" ", extra)) + "\n";
    }

    final Path dir;
    final Path jobs;
    final Path logs;
    private final StringBuffer out = new StringBuffer();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private CompletableFuture<Integer> exit;
    private final java.util.concurrent.atomic.AtomicReference<io.gpusched.Scheduler> scheduler =
            new java.util.concurrent.atomic.AtomicReference<>();

    CliRun(Path dir, String jobsText) throws IOException {
        this.dir = dir;
        this.jobs = dir.resolve("jobs.txt");
        this.logs = dir.resolve("logs");
        Files.writeString(jobs, jobsText);
    }

    /** Starts the scheduler on a background thread. */
    CliRun start(String... extraArgs) {
        List<String> args = new ArrayList<>(List.of(jobs.toString(), "--log-dir", logs.toString(), "--poll", "0.1",
                "--sample", "0.05", "--kill-grace", "0.5"));
        args.addAll(List.of(extraArgs));
        PrintStream o = new PrintStream(new OutputStream() {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override
            public synchronized void write(int b) {
                line.write(b);
                if (b == '\n') {
                    out.append(line.toString(StandardCharsets.UTF_8));
                    line.reset();
                }
            }
        }, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        exit = CompletableFuture.supplyAsync(() -> new Cli(o, e, scheduler::set).run(args.toArray(String[]::new)));
        return this;
    }

    /** Runs to completion and returns the exit code. */
    int runToEnd(String... extraArgs) throws Exception {
        return start(extraArgs).exitCode();
    }

    /**
     * Stops, after each test, the {@code --watch} runs it registered: they run until stopped and would
     * write into the test's directory while JUnit deletes it. Register with
     * {@code @RegisterExtension final CliRun.Stopper watching = new CliRun.Stopper();}.
     */
    static final class Stopper implements org.junit.jupiter.api.extension.AfterEachCallback {
        private final List<CliRun> runs = new ArrayList<>();

        void add(CliRun run) {
            runs.add(run);
        }

        @Override
        public void afterEach(org.junit.jupiter.api.extension.ExtensionContext context) throws Exception {
            for (CliRun run : runs) {
                run.close();
            }
            runs.clear();
        }
    }

    /**
     * Stops a scheduler still running (a {@code --watch} run) and waits for it, so it writes nothing
     * into the test's directory while JUnit deletes it.
     */
    @Override
    public void close() throws java.util.concurrent.ExecutionException, java.util.concurrent.TimeoutException {
        if (exit == null || exit.isDone()) {
            return;
        }
        try {
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (scheduler.get() == null && !exit.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            if (scheduler.get() != null) {
                scheduler.get().close();
            }
            exit.get(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            // AutoCloseable.close should not throw InterruptedException: keep the flag, fail the test
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the scheduler", e);
        }
    }

    int exitCode() throws Exception {
        return exit.get(60, TimeUnit.SECONDS);
    }

    List<String> lines() {
        // drop the "[HH:MM:SS] " prefix
        return out.toString().lines().map(l -> l.length() > 11 && l.charAt(0) == '[' ? l.substring(11) : l).toList();
    }

    String output() {
        return String.join("\n", lines());
    }

    String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Waits until a log line matches; fails with the output so far if none does in time. */
    String await(Predicate<String> matches, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            for (String l : lines()) {
                if (matches.test(l)) {
                    return l;
                }
            }
            if (exit != null && exit.isDone()) {
                break;
            }
            Thread.sleep(20);
        }
        for (String l : lines()) {
            if (matches.test(l)) {
                return l;
            }
        }
        throw new AssertionError("no log line " + what + " in:\n" + output() + "\nstderr: " + errors());
    }

    String await(String contains) throws InterruptedException {
        return await(l -> l.contains(contains), "containing '" + contains + "'");
    }

    int indexOf(String contains) {
        List<String> l = lines();
        for (int i = 0; i < l.size(); i++) {
            if (l.get(i).contains(contains)) {
                return i;
            }
        }
        return -1;
    }

    void writeJobs(String text) throws IOException {
        Path tmp = dir.resolve("jobs.txt.tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, jobs, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    void appendJobs(String text) throws IOException {
        Files.writeString(jobs, text, java.nio.file.StandardOpenOption.APPEND);
    }
}

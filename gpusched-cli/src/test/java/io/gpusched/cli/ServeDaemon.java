package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@code gpusched serve} daemon as a real process on simulated GPUs, its socket and log directory in a
 * test's directory, and its clients: the CLI in-process ({@link #verb}) or as a process of its own
 * ({@link #client}), for what only a process shows (its working directory, signals, exit code).
 */
final class ServeDaemon implements AutoCloseable {
    /** What a CLI run printed and returned. */
    record Result(int code, String out, String err) {
    }

    private final Path dir;
    private final List<String> options;
    private Process process;
    /** JVM options of the daemon's process, before its main class ({@link #withJvmOptions}). */
    private final List<String> jvmOptions = new ArrayList<>();
    /**
     * What the daemons of this test started, seen at each stop or kill: a stopped daemon leaves its jobs
     * running, and the next one takes them up without being their parent, so {@link #close()} ends
     * them by this list.
     */
    private final java.util.Set<Long> started = new java.util.HashSet<>();

    /**
     * @param dir the test's directory: {@code run/gpusched.sock}, {@code logs/}, {@code daemon.log} go there
     * @param options the run options after {@code serve}, e.g. {@code --sim 1 --poll 0.1}
     */
    ServeDaemon(Path dir, String... options) {
        this.dir = dir;
        this.options = List.of(options);
    }

    /**
     * Adds JVM options (e.g. {@code -Dgpusched.dashboard.answerSeconds=5}) to the daemon's process, for the
     * next {@link #start()} and those after it. @return this
     */
    ServeDaemon withJvmOptions(String... options) {
        jvmOptions.addAll(List.of(options));
        return this;
    }

    Path socket() {
        return dir.resolve("run/gpusched.sock");
    }

    Path logs() {
        return dir.resolve("logs");
    }

    Process process() {
        return process;
    }

    /** Starts the daemon on the same socket and log directory, and waits until it answers {@code queue}. */
    ServeDaemon start() throws Exception {
        List<String> argv = new ArrayList<>(List.of(java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        argv.addAll(jvmOptions);
        argv.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve"));
        argv.addAll(options);
        argv.addAll(List.of("--socket", socket().toString(), "--log-dir", logs().toString()));
        process = new ProcessBuilder(argv).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("daemon.log").toFile())).start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); verb("queue").code() != 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && process.isAlive(), "the daemon did not come up: " + log());
        }
        return this;
    }

    /**
     * SIGTERM, as Ctrl-C or systemd stops it: running jobs keep running, for the next {@link #start()}
     * to take up. @return its exit code
     */
    int stop() throws Exception {
        process.descendants().forEach(p -> started.add(p.pid()));
        assertEquals(0, new ProcessBuilder("kill", "-TERM", String.valueOf(process.pid())).start().waitFor());
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the daemon did not stop: " + log());
        return process.exitValue();
    }

    /** SIGKILL: no chance to say or journal anything more. */
    void kill() throws Exception {
        process.descendants().forEach(p -> started.add(p.pid()));
        process.destroyForcibly().waitFor();
    }

    String log() throws IOException {
        Path f = dir.resolve("daemon.log");
        return Files.exists(f) ? Files.readString(f) : "";
    }

    /**
     * Stops the daemon, then ends every job its daemons left running and waits for them and their monitors:
     * a job taken up from a killed or stopped daemon is not the last one's to stop, and its monitor would
     * write its exit file under {@link #logs()} as JUnit removes the test's directory.
     */
    @Override
    public void close() {
        stopGracefully(process);
        ProcSessions.killAll(started);
        try {
            RunsLeftBehind.end(logs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A test's clean-up: SIGTERM (SIGKILL if it has not gone within 15 s), then SIGKILL to every job
     * session it left running. A stopped daemon leaves its jobs running for the next one to take up;
     * after a test there is no next one, and a job left behind (a {@code sleep 60}, a real user's
     * process that keeps {@code userdel} from removing them) would outlive the test.
     */
    static void stopGracefully(Process daemon) {
        if (daemon == null || !daemon.isAlive()) {
            return;
        }
        stopLeavingNoJob(daemon, java.time.Duration.ofSeconds(15));
    }

    /**
     * SIGTERM to the daemon, SIGKILL if it is still there after {@code wait}, then SIGKILL to every
     * process of the sessions of what it had started (each job leads a session of its own, and outlives
     * the daemon that started it); waits until they are gone.
     *
     * @return the daemon's exit code
     */
    static int stopLeavingNoJob(Process daemon, java.time.Duration wait) {
        java.util.Set<Long> started = new java.util.HashSet<>();
        daemon.descendants().forEach(p -> started.add(p.pid()));
        daemon.destroy();
        // What it started up to the signal, seen again before it is gone (once it is, they are no one's children).
        daemon.descendants().forEach(p -> started.add(p.pid()));
        try {
            if (!daemon.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                daemon.destroyForcibly().waitFor();
            }
            ProcSessions.killAll(started);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ProcSessions.anyAlive(started)
                    && System.nanoTime() < end; Thread.sleep(20)) {
                ProcSessions.killAll(started);
            }
        } catch (InterruptedException e) {
            daemon.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        return daemon.exitValue();
    }

    /** {@code gpusched VERB --socket S ARGS...}, in this JVM (its working directory is the module's). */
    Result verb(String verb, String... args) {
        List<String> argv = new ArrayList<>(List.of(verb, "--socket", socket().toString()));
        argv.addAll(List.of(args));
        return cli(argv.toArray(String[]::new));
    }

    static Result cli(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                s -> { }).run(argv);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * {@code gpusched VERB --socket S ARGS...} as a process of its own, started in {@code cwd}, its
     * stdout and stderr piped.
     */
    Process client(Path cwd, String verb, String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of(java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), verb, "--socket", socket().toString()));
        argv.addAll(List.of(args));
        return new ProcessBuilder(argv).directory(cwd.toFile()).start();
    }

    /** Waits for a client process to end; @return what it printed and returned */
    /**
     * A real daemon ({@code --sim 2}) whose queue does not move: two ended jobs (one failed), then, on its
     * paused GPUs, four pending ones (a priority, a comment and UTF-8, a 300-character command, two GPUs),
     * for tests that compare what clients print of one queue.
     */
    static ServeDaemon withSettledQueue(Path dir) throws Exception {
        ServeDaemon daemon = new ServeDaemon(dir, "--sim", "2", "--poll", "0.1").start();
        Path work = Files.createDirectories(dir.resolve("work"));
        assertEquals(0, result(daemon.client(work, "submit", "--vram", "1G", "--", "echo done")).code());
        assertEquals(0, result(daemon.client(work, "submit", "--", "exit 3")).code());
        daemon.awaitQueue("✗ job 2 failed");
        assertEquals(0, daemon.verb("pause", "0", "1").code());
        for (String[] args : List.of(new String[] {"--vram", "2G", "--priority", "3", "--", "python train.py --lr 3e-4"},
                new String[] {"--comment", "nightly sweep", "--", "echo héllo ✓ wörld"},
                new String[] {"--vram", "500M", "--", "echo " + "x".repeat(300)},
                new String[] {"--gpus", "2", "--", "python big.py"})) {
            Result r = result(daemon.client(work, "submit", args));
            assertEquals(0, r.code(), r.err());
        }
        daemon.awaitQueue("0 running, 4 pending, 2 done");
        return daemon;
    }

    /**
     * Runs {@code gpusched queue --socket SOCKET ARGS...} as a JVM of its own (the real client's start,
     * its quick path included) in {@code cwd}, with no locale or terminal width but those in {@code env}.
     */
    static Result queueProcess(Path socket, Path cwd, java.util.Map<String, String> env, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "queue"));
        // The daemon's socket unless ARGS name another: an option is given once (a second --socket is refused).
        if (java.util.Arrays.stream(args).noneMatch(a -> a.equals("--socket") || a.startsWith("--socket="))) {
            argv.addAll(List.of("--socket", socket.toString()));
        }
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile());
        for (String v : List.of("LC_ALL", "LC_CTYPE", "LANG", "COLUMNS")) {
            pb.environment().remove(v);
        }
        pb.environment().putAll(env);
        return result(pb.start());
    }

    static Result result(Process p) throws Exception {
        // Both pipes drained at once, so neither can fill up and stall the client.
        var err = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the client hangs");
        return new Result(p.exitValue(), out, err.get(60, TimeUnit.SECONDS));
    }

    /** Waits until {@code gpusched queue ARGS} shows {@code text}; @return that queue */
    String awaitQueue(String text, String... args) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); ; Thread.sleep(50)) {
            String q = verb("queue", args).out();
            if (q.contains(text)) {
                return q;
            }
            assertTrue(System.nanoTime() < end, "queue never showed '" + text + "':\n" + q);
        }
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * Closes, after each test, the daemon each {@code ServeDaemon} field of the test holds (a test that
     * started none leaves it null): {@code @ExtendWith(ServeDaemon.ClosedAfterEach.class)} on the class.
     */
    static final class ClosedAfterEach implements AfterEachCallback {
        @Override
        public void afterEach(ExtensionContext context) throws IllegalAccessException {
            Object test = context.getRequiredTestInstance();
            for (Field f : test.getClass().getDeclaredFields()) {
                if (f.getType() == ServeDaemon.class && !Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    if (f.get(test) instanceof ServeDaemon daemon) {
                        daemon.close();
                    }
                }
            }
        }
    }
}

package io.gpusched.engine.spawn;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The native spawn server, {@code gpusched-spawnd} ({@code src/main/c/spawnd.c}, built into this jar):
 * one small process per scheduler that starts each run as the leader of a new session and reports its
 * exit. Its forked child is the run's monitor ({@link #monitored}): it forks the run's process, writes
 * the run's pid file before the scheduler is told the run started, lets the process exec the command's
 * shell (which so leads the session, its {@code $$} the session id), and writes the exit file when the
 * command ends. A run then costs two forks of that small process and the shell's exec;
 * the wrapper shell it replaces (issue #27) was an exec of {@code sh} that forked a subshell for the
 * command and wrote both files, and the JVM's own spawn of {@code setsid /bin/sh WRAPPER} costs an exec
 * of {@code setsid} more (issue #18).
 *
 * <p>The run files, the run token and the session are as with the wrapper. If the server dies, the runs
 * it started go on (their monitors write their exit files), their exits are then found by polling their
 * pids, and new runs go back to the JVM's spawn of the wrapper. Where the binary cannot be extracted or
 * run (no C compiler at build time, a {@code noexec} mount), {@link #start} says so by returning empty.
 */
public final class SpawnServer implements AutoCloseable {
    /** The binary, a resource beside this class. */
    public static final String RESOURCE = "gpusched-spawnd";
    private static final long START_ANSWER_SECONDS = 10;

    private final Process process;
    private final OutputStream requests;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, CompletableFuture<Long>> starting = new ConcurrentHashMap<>();
    /** Runs asked for and not yet answered, by request id: the reader moves each to {@link #runs}. */
    private final Map<Long, Run> pendingExit = new ConcurrentHashMap<>();
    /** Started runs, by pid, until their exit is read. */
    private final Map<Long, Run> runs = new ConcurrentHashMap<>();
    private volatile boolean dead;

    /** A started run: how it ends, and where its status is written should this server die first. */
    private record Run(CompletableFuture<Integer> exit, Path exitFile) {
    }

    private SpawnServer(Process process) {
        this.process = process;
        this.requests = process.getOutputStream();
        Thread reader = new Thread(() -> read(process.getInputStream()), "gpusched-spawnd-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Extracts the binary into {@code dir} (once per version) and starts it.
     *
     * @param dir a directory only the scheduler's user writes (the log directory's run files)
     * @return the server; empty when this jar has no binary or it cannot run here
     */
    public static Optional<SpawnServer> start(Path dir) {
        if (System.getenv("GPUSCHED_NO_SPAWND") != null) {
            return Optional.empty();
        }
        Optional<Path> exe = NativeBinary.extract(RESOURCE, dir);
        if (exe.isEmpty()) {
            return Optional.empty();
        }
        try {
            Process p = new ProcessBuilder(exe.get().toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            return Optional.of(new SpawnServer(p));
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /** @return the server's own pid */
    long pid() {
        return process.pid();
    }

    /** @return whether it still takes requests */
    boolean alive() {
        return !dead;
    }

    /**
     * Starts a run under its monitor, on the scheduler's loop thread: waits for the server's answer (two
     * forks and the pid file's write). The command leads the run's session; its pid is in {@code pidFile}
     * before this returns, and its exit status (or 128 + the signal that ended it) goes to
     * {@code exitFile} when it ends, before it is reaped.
     *
     * @param argv the command's program and its arguments ({@code /bin/sh -c COMMAND})
     * @param env its whole environment
     * @param cwd where it starts
     * @param log where its stdout and stderr are appended
     * @param pidFile where the monitor writes its pid (an older file is replaced)
     * @param exitFile where the monitor writes the exit status (read should this server die)
     * @return its session id and how it ends
     * @throws IOException when it could not start
     */
    RunDriver.Started monitored(List<String> argv, Map<String, String> env, Path cwd, Path log, Path pidFile,
                                Path exitFile) throws IOException {
        return request(argv, env, cwd, log, pidFile.toString(), exitFile);
    }

    /**
     * Starts a program as a session leader itself, with no monitor: its own exit files, if any, are its
     * business (the wrapper shell's, when the monitor cannot be used).
     *
     * @param argv the program and its arguments
     * @param env its whole environment
     * @param cwd where it starts
     * @param log where its stdout and stderr are appended
     * @param exitFile where it writes its exit status (read should this server die)
     * @return its session id and how it ends
     * @throws IOException when it could not start
     */
    RunDriver.Started spawn(List<String> argv, Map<String, String> env, Path cwd, Path log, Path exitFile)
            throws IOException {
        return request(argv, env, cwd, log, "", exitFile);
    }

    private RunDriver.Started request(List<String> argv, Map<String, String> env, Path cwd, Path log, String pidFile,
                                      Path exitFile) throws IOException {
        long id = ids.incrementAndGet();
        ByteArrayOutputStream req = new ByteArrayOutputStream(1024);
        field(req, Long.toString(id));
        field(req, cwd.toString());
        field(req, "/dev/null");
        field(req, log.toString());
        field(req, pidFile);
        field(req, pidFile.isEmpty() ? "" : exitFile.toString());
        field(req, Integer.toString(argv.size()));
        argv.forEach(a -> field(req, a));
        field(req, Integer.toString(env.size()));
        env.forEach((k, v) -> entry(req, k, v));
        CompletableFuture<Long> started = new CompletableFuture<>();
        starting.put(id, started);
        // The run's exit is registered under its id before the request goes: the reader moves it to the
        // pid when the server answers, before any exit of that pid can be read.
        Run run = new Run(new CompletableFuture<>(), exitFile);
        pendingExit.put(id, run);
        try {
            synchronized (requests) {
                requests.write(req.toByteArray());
                requests.flush();
            }
            long pid = started.get(START_ANSWER_SECONDS, TimeUnit.SECONDS);
            return new RunDriver.Started(pid, run.exit());
        } catch (IOException e) {
            dead = true;
            throw new IOException("the spawn server is gone: " + e.getMessage(), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            dead = true;
            process.destroy();
            throw new IOException("the spawn server did not answer within " + START_ANSWER_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting a run", e);
        } finally {
            starting.remove(id);
            pendingExit.remove(id);
        }
    }

    private static void field(ByteArrayOutputStream out, String s) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a NUL in an argument or the environment cannot be passed to a process");
        }
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    /** {@code NAME=VALUE} as one field, written without joining the two first (at every launch, ~50 of them). */
    private static void entry(ByteArrayOutputStream out, String name, String value) {
        if (name.indexOf('\0') >= 0 || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a NUL in an argument or the environment cannot be passed to a process");
        }
        out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
        out.write('=');
        out.writeBytes(value.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }

    private void read(InputStream in) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] f = line.split(" ", 4);
                if (f[0].equals("started") && f.length >= 3) {
                    long id = Long.parseLong(f[1]);
                    long pid = Long.parseLong(f[2]);
                    Run run = pendingExit.get(id);
                    if (run != null) {
                        runs.put(pid, run);
                    }
                    complete(id, pid);
                } else if (f[0].equals("failed") && f.length >= 3) {
                    CompletableFuture<Long> s = starting.get(Long.parseLong(f[1]));
                    if (s != null) {
                        s.completeExceptionally(new IOException(f.length > 3 ? f[3] : "errno " + f[2]));
                    }
                } else if (f[0].equals("exit") && f.length >= 3) {
                    Run run = runs.remove(Long.parseLong(f[1]));
                    if (run != null) {
                        run.exit().complete(Integer.parseInt(f[2]));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // falls through: the server is gone either way
        }
        dead = true;
        starting.values().forEach(s -> s.completeExceptionally(new IOException("the spawn server stopped")));
        // Its runs go on without it: their monitors write their statuses, found once their pids are gone.
        runs.forEach((pid, run) -> {
            CompletableFuture<?> gone = ProcessHandle.of(pid).map(ProcessHandle::onExit)
                    .orElse(CompletableFuture.completedFuture(null));
            gone.thenRun(() -> run.exit().complete(exitStatus(run.exitFile())));
        });
    }

    private void complete(long id, long pid) {
        CompletableFuture<Long> s = starting.get(id);
        if (s != null) {
            s.complete(pid);
        }
    }

    /** A run's status as its exit file says; 137 (killed) when none was written, or not all of its line. */
    private static int exitStatus(Path exitFile) {
        return RunFiles.exitCode(exitFile).orElse(137);
    }

    /** Ends the server: the runs it started go on (a scheduler that stops has settled them already). */
    @Override
    public void close() {
        dead = true;
        try {
            requests.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            process.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroy();
    }
}

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
 * pids (one thread for them all), and a new server is started for the runs after them ({@link #ready});
 * a run asked for as it died goes to the JVM's spawn of the wrapper. Where the binary cannot be extracted or
 * run (no C compiler at build time, a {@code noexec} mount), {@link #start} says so by returning empty.
 */
public final class SpawnServer implements AutoCloseable {
    /** The binary, a resource beside this class. */
    public static final String RESOURCE = "gpusched-spawnd";
    private static final long START_ANSWER_SECONDS = 10;
    /** How often the runs of a server that died are looked at, until each has ended. */
    private static final long ORPHAN_POLL_MILLIS = 200;
    /** Servers started after the first at most: one that keeps dying is left dead, its runs started by the JVM. */
    private static final int MAX_RESTARTS = 10;

    private final Path exe;
    private final AtomicLong ids = new AtomicLong();
    /** The server process now: replaced by a new one once it died ({@link #ready}). */
    private volatile Server current;
    private volatile boolean closed;
    /** What {@link #ready} did, for the scheduler to say ({@link #restarts}); the loop's thread only. */
    private final List<String> restarted = new java.util.ArrayList<>();
    private int restarts;

    /** A started run: how it ends, and where its status is written should this server die first. */
    private record Run(CompletableFuture<Integer> exit, Path exitFile) {
    }

    /** One {@code gpusched-spawnd} process and what it was asked for. */
    private static final class Server {
        private final Process process;
        private final OutputStream requests;
        private final Map<Long, CompletableFuture<Long>> starting = new ConcurrentHashMap<>();
        /** Runs asked for and not yet answered, by request id: the reader moves each to {@link #runs}. */
        private final Map<Long, Run> pendingExit = new ConcurrentHashMap<>();
        /** Started runs, by pid, until their exit is read. */
        private final Map<Long, Run> runs = new ConcurrentHashMap<>();
        private volatile boolean dead;

        private Server(Process process) {
            this.process = process;
            this.requests = process.getOutputStream();
            Thread reader = new Thread(() -> read(process.getInputStream()), "gpusched-spawnd-reader");
            reader.setDaemon(true);
            reader.start();
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
                        CompletableFuture<Long> s = starting.get(id);
                        if (s != null) {
                            s.complete(pid);
                        }
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
            // Its runs go on without it: their monitors write their statuses, read once their pids are gone.
            // One thread looks at them all: a ProcessHandle.onExit each (they are not this JVM's children, so
            // the JDK polls each on a thread of its own) was a thread per running job.
            Map<ProcessHandle, Run> left = new java.util.HashMap<>();
            runs.forEach((pid, run) -> {
                Optional<ProcessHandle> h = ProcessHandle.of(pid);
                if (h.isPresent()) {
                    left.put(h.get(), run);
                } else {
                    run.exit().complete(exitStatus(run.exitFile()));
                }
            });
            runs.clear();
            if (!left.isEmpty()) {
                Thread t = new Thread(() -> awaitEnds(left), "gpusched-spawnd-orphans");
                t.setDaemon(true);
                t.start();
            }
        }
    }

    /**
     * Completes each run once its process is gone, from its exit file (a zombie still counts as there:
     * its monitor writes the file before it reaps it).
     */
    private static void awaitEnds(Map<ProcessHandle, Run> left) {
        while (!left.isEmpty()) {
            left.entrySet().removeIf(e -> {
                if (e.getKey().isAlive()) {
                    return false;
                }
                e.getValue().exit().complete(exitStatus(e.getValue().exitFile()));
                return true;
            });
            try {
                Thread.sleep(ORPHAN_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private SpawnServer(Path exe, Process process) {
        this.exe = exe;
        this.current = new Server(process);
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
            return Optional.of(new SpawnServer(exe.get(), launch(exe.get())));
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    private static Process launch(Path exe) throws IOException {
        return new ProcessBuilder(exe.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** @return the current server process's pid */
    long pid() {
        return current.process.pid();
    }

    /** @return whether the current server process takes requests: false once it died, until {@link #ready} */
    boolean alive() {
        return !current.dead;
    }

    /**
     * Whether a run can be asked for now: a server that died (killed, out of memory) is replaced here, on
     * the loop's thread, so the runs after it are started as before rather than by the JVM, which holds a
     * thread and a pipe for each process it starts. The runs the dead one started go on (their monitors
     * write their exit files) and are read from those files once they end.
     *
     * @return whether a server runs; false once closed, or when no new one could be started (or
     *     {@value #MAX_RESTARTS} were)
     */
    public boolean ready() {
        Server s = current;
        if (!s.dead) {
            return true;
        }
        if (closed || restarts > MAX_RESTARTS) {
            return false;
        }
        if (++restarts > MAX_RESTARTS) {
            restarted.add("the spawn server (gpusched-spawnd) ended " + MAX_RESTARTS + " times; jobs are started by the"
                    + " JVM from now on (a thread each while it runs)");
            return false;
        }
        int code = s.process.isAlive() ? -1 : s.process.exitValue();
        try {
            current = new Server(launch(exe));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
        restarted.add("the spawn server (gpusched-spawnd, pid " + s.process.pid() + ") ended"
                + (code < 0 ? "" : code > 128 ? " by signal " + (code - 128) : " with status " + code)
                + "; started another (pid " + current.process.pid() + "): running jobs go on, their exits read from"
                + " their exit files");
        return true;
    }

    /**
     * @return what {@link #ready} did since the last call, one line each, for the scheduler's log; the
     *     loop's thread only
     */
    public List<String> restarts() {
        List<String> said = List.copyOf(restarted);
        restarted.clear();
        return said;
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
        Server server = current;
        CompletableFuture<Long> started = new CompletableFuture<>();
        server.starting.put(id, started);
        // The run's exit is registered under its id before the request goes: the reader moves it to the
        // pid when the server answers, before any exit of that pid can be read.
        Run run = new Run(new CompletableFuture<>(), exitFile);
        server.pendingExit.put(id, run);
        try {
            synchronized (server.requests) {
                server.requests.write(req.toByteArray());
                server.requests.flush();
            }
            long pid = started.get(START_ANSWER_SECONDS, TimeUnit.SECONDS);
            return new RunDriver.Started(pid, run.exit());
        } catch (IOException e) {
            server.dead = true;
            throw new IOException("the spawn server is gone: " + e.getMessage(), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            server.dead = true;
            server.process.destroy();
            throw new IOException("the spawn server did not answer within " + START_ANSWER_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting a run", e);
        } finally {
            server.starting.remove(id);
            server.pendingExit.remove(id);
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

    /** A run's status as its exit file says; 137 (killed) when none was written, or not all of its line. */
    private static int exitStatus(Path exitFile) {
        return RunFiles.exitCode(exitFile).orElse(137);
    }

    /** Ends the server: the runs it started go on (a scheduler that stops has settled them already). */
    @Override
    public void close() {
        closed = true;
        Server s = current;
        s.dead = true;
        try {
            s.requests.close();
        } catch (IOException e) {
            // already gone
        }
        try {
            s.process.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        s.process.destroy();
    }
}

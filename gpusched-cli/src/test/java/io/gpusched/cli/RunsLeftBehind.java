package io.gpusched.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Ends what the schedulers of one log directory left running, and waits until it is gone, so that nothing
 * of theirs writes under a test's directory while JUnit removes it. A SIGKILLed or stopped scheduler's jobs
 * run on in sessions of their own, and so do their monitors (forks of its {@code gpusched-spawnd}, whose
 * executable is in {@code <log-dir>/runs/}), outside those sessions: each writes its job's exit file into
 * {@code <log-dir>/runs/} as the job ends. Ending the jobs alone, or without waiting, raced that write
 * against the directory's removal (CI: "Failed to close extension context", fixed for one test in 00ae56b).
 */
final class RunsLeftBehind {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private RunsLeftBehind() {
    }

    /**
     * SIGKILLs, until none is left: every process whose executable is in {@code <logDir>/runs/} (a spawn
     * server and its monitors), every process carrying a run token of {@code <logDir>/journal.jsonl}, and
     * every process of the sessions these lead or sit in, bar this JVM's own and its ancestors'. Zombies
     * count as gone: they write nothing.
     *
     * @throws AssertionError naming the survivors if some are still there after 10 s
     */
    static void end(Path logDir) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        List<Long> left = find(logDir);
        while (!left.isEmpty()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("still running 10 s after SIGKILL, of the runs of " + logDir + ": pids " + left);
            }
            left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            Thread.sleep(20);
            left = find(logDir);
        }
    }

    private static List<Long> find(Path logDir) {
        Set<String> runsDirs = new HashSet<>();
        Set<String> tokens = new HashSet<>();
        for (Path d : variants(logDir)) {
            runsDirs.add(d.resolve("runs") + "/");
            tokens.add("GPUSCHED_RUN=" + d.resolve("journal.jsonl") + "#");
        }
        Set<Long> ours = ourSessionsAndAncestors();
        List<ProcSessions.Stat> live = new ArrayList<>();
        Set<Long> monitors = new HashSet<>();
        Set<Long> carriers = new HashSet<>();
        Set<Long> sessions = new HashSet<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                Optional<ProcSessions.Stat> p = ProcSessions.stat(proc);
                if (p.isEmpty() || ours.contains(p.get().pid())) {
                    continue;
                }
                live.add(p.get());
                if (executable(proc).filter(exe -> runsDirs.stream().anyMatch(exe::startsWith)).isPresent()) {
                    monitors.add(p.get().pid());
                } else if (carriesOneOf(proc, tokens)) {
                    carriers.add(p.get().pid());
                    sessions.add(p.get().session());
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        // A monitor's child leads its job's session: before its exec it shows the monitor's environment, no token.
        live.stream().filter(p -> monitors.contains(p.ppid())).forEach(p -> sessions.add(p.pid()));
        sessions.removeIf(s -> s <= 1 || ours.contains(s));
        List<Long> out = new ArrayList<>();
        for (ProcSessions.Stat p : live) {
            if (monitors.contains(p.pid()) || carriers.contains(p.pid()) || sessions.contains(p.session())) {
                out.add(p.pid());
            }
        }
        return out;
    }

    /** The directory as given and as the kernel names it (its real path), which the links in /proc show. */
    private static Set<Path> variants(Path logDir) {
        Set<Path> out = new HashSet<>(List.of(logDir.toAbsolutePath().normalize()));
        try {
            out.add(logDir.toRealPath());
        } catch (IOException gone) {
            // nothing can be running from a directory that is not there
        }
        return out;
    }

    /** This JVM, its ancestors, and their sessions: never to be signalled, whatever carries what. */
    private static Set<Long> ourSessionsAndAncestors() {
        Set<Long> out = new HashSet<>(List.of(1L));
        for (Optional<ProcessHandle> h = Optional.of(ProcessHandle.current()); h.isPresent(); h = h.get().parent()) {
            long pid = h.get().pid();
            out.add(pid);
            ProcSessions.stat(Path.of("/proc", Long.toString(pid))).ifPresent(p -> out.add(p.session()));
        }
        return out;
    }

    /** Where its executable is, or was: a replaced spawn server's reads "... (deleted)". */
    private static Optional<String> executable(Path proc) {
        try {
            return Optional.of(Files.readSymbolicLink(proc.resolve("exe")).toString().replaceFirst(" \\(deleted\\)$", ""));
        } catch (IOException | UnsupportedOperationException unreadable) {
            return Optional.empty(); // a kernel thread, or gone
        }
    }

    private static boolean carriesOneOf(Path proc, Set<String> tokens) {
        try {
            for (String var : new String(Files.readAllBytes(proc.resolve("environ")), StandardCharsets.UTF_8).split("\0")) {
                if (tokens.stream().anyMatch(var::startsWith)) {
                    return true;
                }
            }
        } catch (IOException gone) {
            // exited while read, or not ours to read
        }
        return false;
    }
}

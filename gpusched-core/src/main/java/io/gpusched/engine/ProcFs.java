package io.gpusched.engine;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads process sessions and start times from {@code /proc/<pid>/stat}, and environments from
 * {@code /proc/<pid>/environ}. Each scheduled job runs in its own session (its pid is the session id),
 * so matching a GPU process by session catches workers that moved to their own process group
 * (torchrun, multiprocessing); processes that left the session are found by their run's environment
 * entry.
 *
 * <p>Scans read every process's stat once per job end, so parsing is by hand over the bytes (no
 * regular expressions, no strings per field): on a 2-core machine that is the difference between a
 * fraction of a millisecond and two milliseconds per scan.
 */
final class ProcFs implements ProcTable {
    private final Path proc;

    ProcFs(Path proc) {
        this.proc = proc;
    }

    static ProcFs system() {
        return new ProcFs(Path.of("/proc"));
    }

    /**
     * The fields of one process's stat the scheduler uses.
     *
     * @param zombie whether it has exited and waits to be reaped
     * @param session its session id
     * @param startTicks its start time, in clock ticks since boot
     */
    record Stat(boolean zombie, long session, long startTicks) {
    }

    /** Session id of a live process, empty if it does not exist here (exited, or another PID namespace). */
    @Override
    public OptionalLong sessionOf(long pid) {
        Optional<Stat> s = stat(pid);
        return s.isPresent() ? OptionalLong.of(s.get().session()) : OptionalLong.empty();
    }

    /** Start time of a process in clock ticks since boot (field 22 of its stat), if it is alive here. */
    @Override
    public OptionalLong startTicks(long pid) {
        Optional<Stat> s = stat(pid);
        return s.isPresent() ? OptionalLong.of(s.get().startTicks()) : OptionalLong.empty();
    }

    /** Every live process whose session is {@code sid}, the leader included. */
    @Override
    public List<Long> sessionMembers(long sid) {
        List<Long> members = new ArrayList<>();
        if (sid <= 1) {
            return members; // session 0 holds the kernel's threads, 1 is init's: never a job's
        }
        for (long pid : pids()) {
            Optional<Stat> s = stat(pid);
            if (s.isPresent() && !s.get().zombie() && s.get().session() == sid) {
                members.add(pid);
            }
        }
        return members;
    }

    @Override
    public boolean sessionAlive(long sid) {
        return !sessionMembers(sid).isEmpty();
    }

    /**
     * A finished run whose leftovers are looked for: its session, the environment entry its processes
     * inherited ({@code NAME=value}), and its leader's start time in clock ticks since boot (0 when
     * unknown: every candidate's environment is read then).
     */
    record Run(long sid, String envEntry, long minStartTicks) {
    }

    /**
     * Every live process each run left behind, in one pass over {@code /proc}: the members of its
     * session, and processes that left the session (a daemon's {@code setsid}) but still carry the
     * run's environment entry. Only processes born at or after a run's leader and not in one of
     * {@code otherSessions} (other jobs', the scheduler's own: a process cannot move into an existing
     * session it does not lead) can be a run's escapees, so only their environments are read, once.
     *
     * @param runs the finished runs
     * @param otherSessions sessions known to belong to someone else
     * @return for each run, in order, its leftover pids
     */
    @Override
    public List<List<Long>> leftovers(List<Run> runs, Set<Long> otherSessions) {
        List<List<Long>> out = new ArrayList<>();
        List<byte[]> entries = new ArrayList<>();
        long earliest = Long.MAX_VALUE;
        for (Run r : runs) {
            out.add(new ArrayList<>());
            entries.add(r.envEntry().getBytes(StandardCharsets.UTF_8));
            earliest = Math.min(earliest, r.minStartTicks());
        }
        for (long pid : pids()) {
            Optional<Stat> o = stat(pid);
            if (o.isEmpty() || o.get().zombie()) {
                continue;
            }
            Stat s = o.get();
            boolean member = false;
            for (int i = 0; i < runs.size(); i++) {
                if (runs.get(i).sid() > 1 && s.session() == runs.get(i).sid()) {
                    out.get(i).add(pid);
                    member = true;
                }
            }
            if (member || s.startTicks() < earliest || s.session() <= 1 || otherSessions.contains(s.session())) {
                continue;
            }
            byte[] env = environ(pid);
            for (int i = 0; i < runs.size(); i++) {
                if (s.startTicks() >= runs.get(i).minStartTicks() && containsEntry(env, entries.get(i))) {
                    out.get(i).add(pid);
                }
            }
        }
        return out;
    }

    /** Whether a process's environment holds {@code envEntry} exactly; false when it cannot be read. */
    @Override
    public boolean carries(long pid, String envEntry) {
        return environContains(pid, envEntry.getBytes(StandardCharsets.UTF_8));
    }

    /** Every live process whose environment holds {@code envEntry} exactly (one {@code NAME=value}). */
    @Override
    public List<Long> carriers(String envEntry) {
        byte[] entry = envEntry.getBytes(StandardCharsets.UTF_8);
        List<Long> out = new ArrayList<>();
        for (long pid : pids()) {
            Optional<Stat> s = stat(pid);
            if (s.isPresent() && !s.get().zombie() && environContains(pid, entry)) {
                out.add(pid);
            }
        }
        return out;
    }

    /** The session id of this JVM. */
    @Override
    public OptionalLong ownSession() {
        return sessionOf(ProcessHandle.current().pid());
    }

    @Override
    public Optional<java.util.concurrent.CompletableFuture<?>> onExit(long pid) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).map(ProcessHandle::onExit);
    }

    @Override
    public boolean signal(long pid, boolean forcibly) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        return h.isPresent() && (forcibly ? h.get().destroyForcibly() : h.get().destroy());
    }

    /**
     * Parses {@code pid (comm) S ppid pgrp session ... starttime ...}. The command name is in
     * parentheses and may itself hold spaces and parentheses, so fields count from the last ')'.
     */
    Optional<Stat> stat(long pid) {
        byte[] buf = new byte[1024];
        int n = readUpTo(proc.resolve(Long.toString(pid)).resolve("stat"), buf);
        int close = -1;
        for (int i = n - 1; i >= 0; i--) {
            if (buf[i] == ')') {
                close = i;
                break;
            }
        }
        if (close < 0 || close + 2 >= n) {
            return Optional.empty();
        }
        // Field k after the name starts after k+1 spaces: 0 state, 3 session, 19 starttime.
        int pos = close + 2;
        boolean zombie = buf[pos] == 'Z';
        long session = -1;
        long start = -1;
        int field = 0;
        while (pos < n && field <= 19) {
            int end = pos;
            long v = 0;
            boolean numeric = true;
            while (end < n && buf[end] != ' ' && buf[end] != '\n') {
                byte b = buf[end];
                if (b >= '0' && b <= '9' && v < Long.MAX_VALUE / 10) {
                    v = v * 10 + (b - '0');
                } else {
                    numeric = false;
                }
                end++;
            }
            if (field == 3 && numeric) {
                session = v;
            } else if (field == 19 && numeric) {
                start = v;
            }
            field++;
            pos = end + 1;
        }
        if (session < 0 || start < 0) {
            return Optional.empty();
        }
        return Optional.of(new Stat(zombie, session, start));
    }

    private boolean environContains(long pid, byte[] entry) {
        return containsEntry(environ(pid), entry);
    }

    private byte[] environ(long pid) {
        try {
            return Files.readAllBytes(proc.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | SecurityException e) {
            return new byte[0];
        }
    }

    /** Entries are NUL-separated; match whole entries only, so RUN=1 does not match RUN=12. */
    private static boolean containsEntry(byte[] env, byte[] entry) {
        int i = 0;
        while (i < env.length) {
            int end = i;
            while (end < env.length && env[end] != 0) {
                end++;
            }
            if (end - i == entry.length && Arrays.equals(env, i, end, entry, 0, entry.length)) {
                return true;
            }
            i = end + 1;
        }
        return false;
    }

    /** Reads at most {@code buf.length} bytes; 0 when the file cannot be read (the process is gone). */
    private static int readUpTo(Path file, byte[] buf) {
        try (InputStream in = new FileInputStream(file.toFile())) {
            // procfs hands a whole stat over in one read; no second read to see the end.
            return Math.max(0, in.read(buf));
        } catch (IOException | SecurityException e) {
            return 0;
        }
    }

    private List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc)) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                    continue;
                }
                try {
                    pids.add(Long.parseLong(name));
                } catch (NumberFormatException e) {
                    // not a process directory
                }
            }
        } catch (IOException e) {
            return pids;
        }
        return pids;
    }
}

package io.gpusched.proc;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Process sessions and start times, read from {@code /proc/<pid>/stat}. Each job runs in its own session
 * (its leader's pid is the session id), so a session's members are the job's processes, workers that
 * moved to their own process group (torchrun, multiprocessing) included.
 *
 * <p>Scans read every process's stat, so parsing is by hand over the bytes (no regular expressions, no
 * strings per field): on a 2-core machine that is the difference between a fraction of a millisecond and
 * two milliseconds per scan. Holds no state but the {@code /proc} directory it reads; safe from any thread.
 */
public final class ProcSessions {
    private final Path proc;

    /**
     * @param proc the {@code /proc} directory to read (a test may give a directory laid out like it)
     */
    public ProcSessions(Path proc) {
        this.proc = proc;
    }

    /** @return a scanner of this machine's {@code /proc} */
    public static ProcSessions system() {
        return new ProcSessions(Path.of("/proc"));
    }

    /**
     * @param pid a process id
     * @return its session id, empty if it does not exist here (exited, or in another PID namespace)
     */
    public OptionalLong sessionOf(long pid) {
        Optional<ProcStat> s = stat(pid);
        return s.isPresent() ? OptionalLong.of(s.get().session()) : OptionalLong.empty();
    }

    /**
     * @param sid a session id
     * @return every live process whose session is {@code sid}, the leader included, in {@code /proc}'s
     *     order; zombies are left out, and sessions 0 (the kernel's threads) and 1 (init's) are never a
     *     job's, so they have no members here
     */
    public List<Long> members(long sid) {
        List<Long> members = new ArrayList<>();
        if (sid <= 1) {
            return members;
        }
        for (long pid : pids()) {
            Optional<ProcStat> s = stat(pid);
            if (s.isPresent() && !s.get().zombie() && s.get().session() == sid) {
                members.add(pid);
            }
        }
        return members;
    }

    /**
     * Parses {@code pid (comm) S ppid pgrp session ... starttime ...}. The command name is in
     * parentheses and may itself hold spaces and parentheses, so fields count from the last ')'.
     *
     * @param pid a process id
     * @return its stat fields, empty when it is gone or its stat cannot be read or parsed
     */
    public Optional<ProcStat> stat(long pid) {
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
        return Optional.of(new ProcStat(zombie, session, start));
    }

    /** @return the ids of every process listed now, in {@code /proc}'s order; empty without a {@code /proc} */
    public List<Long> pids() {
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

    /** Reads at most {@code buf.length} bytes; 0 when the file cannot be read (the process is gone). */
    private static int readUpTo(Path file, byte[] buf) {
        try (InputStream in = new FileInputStream(file.toFile())) {
            // procfs hands a whole stat over in one read; no second read to see the end.
            return Math.max(0, in.read(buf));
        } catch (IOException | SecurityException e) {
            return 0;
        }
    }
}

package io.gpusched.engine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads process sessions and groups from {@code /proc/<pid>/stat}. Each scheduled job runs in its own
 * session (its pid is the session id), so matching a GPU process by session catches workers that
 * moved to their own process group (torchrun, multiprocessing) but not ones that left the session.
 */
final class ProcFs {
    private final Path proc;

    ProcFs(Path proc) {
        this.proc = proc;
    }

    static ProcFs system() {
        return new ProcFs(Path.of("/proc"));
    }

    /** Session id of a live process, empty if it does not exist here (exited, or another PID namespace). */
    OptionalLong sessionOf(long pid) {
        return field(pid, 3);
    }

    /** Every live process whose session is {@code sid}, the leader included. */
    List<Long> sessionMembers(long sid) {
        List<Long> members = new ArrayList<>();
        if (sid <= 1) {
            return members; // session 0 holds the kernel's threads, 1 is init's: never a job's
        }
        for (long pid : pids()) {
            String[] f = fieldsAfterName(pid);
            if (f != null && f.length > 3 && !f[0].equals("Z") && f[3].equals(Long.toString(sid))) {
                members.add(pid);
            }
        }
        return members;
    }

    /**
     * Every live process a job left behind: the members of its session, and processes that left the
     * session (a daemon's {@code setsid}) but still carry the run's environment entry. Only processes
     * born at or after {@code minStartTicks} (the job leader's start, in clock ticks since boot) can be
     * the run's, so only their environments are read.
     *
     * @param sid the job's session id
     * @param envEntry {@code NAME=value} the run's processes inherited
     * @param minStartTicks start time of the job's leader; 0 reads every environment
     */
    List<Long> leftovers(long sid, String envEntry, long minStartTicks) {
        byte[] entry = envEntry.getBytes(StandardCharsets.UTF_8);
        String sidText = Long.toString(sid);
        List<Long> out = new ArrayList<>();
        for (long pid : pids()) {
            String[] f = fieldsAfterName(pid);
            if (f == null || f.length <= 19 || f[0].equals("Z")) {
                continue;
            }
            if (sid > 1 && f[3].equals(sidText)) {
                out.add(pid);
                continue;
            }
            long start;
            try {
                start = Long.parseLong(f[19]);
            } catch (NumberFormatException e) {
                continue;
            }
            if (start >= minStartTicks && environContains(pid, entry)) {
                out.add(pid);
            }
        }
        return out;
    }

    /** Every live process whose environment holds {@code envEntry} exactly (one {@code NAME=value}). */
    List<Long> carriers(String envEntry) {
        byte[] entry = envEntry.getBytes(StandardCharsets.UTF_8);
        List<Long> out = new ArrayList<>();
        for (long pid : pids()) {
            if (!isZombie(pid) && environContains(pid, entry)) {
                out.add(pid);
            }
        }
        return out;
    }

    /** Start time of a process in clock ticks since boot (field 22 of its stat), if it is alive here. */
    OptionalLong startTicks(long pid) {
        return field(pid, 19);
    }

    private boolean environContains(long pid, byte[] entry) {
        byte[] env;
        try {
            env = Files.readAllBytes(proc.resolve(Long.toString(pid)).resolve("environ"));
        } catch (IOException | SecurityException e) {
            return false;
        }
        // Entries are NUL-separated; match whole entries only, so RUN=1 does not match RUN=12.
        int i = 0;
        while (i < env.length) {
            int end = i;
            while (end < env.length && env[end] != 0) {
                end++;
            }
            if (end - i == entry.length && java.util.Arrays.equals(env, i, end, entry, 0, entry.length)) {
                return true;
            }
            i = end + 1;
        }
        return false;
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

    boolean sessionAlive(long sid) {
        return !sessionMembers(sid).isEmpty();
    }

    private boolean isZombie(long pid) {
        String[] f = fieldsAfterName(pid);
        return f != null && f.length > 0 && f[0].equals("Z");
    }

    /**
     * Fields after the command name: the name is in parentheses and may itself hold spaces and
     * parentheses, so split after the last ')'. Index 0 is the state, 1 ppid, 2 pgrp, 3 session, 19
     * start time.
     */
    private OptionalLong field(long pid, int index) {
        String[] f = fieldsAfterName(pid);
        if (f == null || f.length <= index) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(f[index]));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private String[] fieldsAfterName(long pid) {
        String stat;
        try {
            stat = new String(Files.readAllBytes(proc.resolve(Long.toString(pid)).resolve("stat")), StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            return null;
        }
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return null;
        }
        return stat.substring(close + 1).trim().split("\\s+");
    }
}

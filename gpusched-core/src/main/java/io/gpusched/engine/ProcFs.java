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
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(proc)) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(name);
                } catch (NumberFormatException e) {
                    continue;
                }
                OptionalLong s = sessionOf(pid);
                if (s.isPresent() && s.getAsLong() == sid && !isZombie(pid)) {
                    members.add(pid);
                }
            }
        } catch (IOException e) {
            return members;
        }
        return members;
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
     * parentheses, so split after the last ')'. Index 0 is the state, 1 ppid, 2 pgrp, 3 session.
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

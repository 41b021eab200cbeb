package io.gpusched.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Live processes by session, from {@code /proc/<pid>/stat}. Each job leads its own session, so a
 * session id names everything the job started, however deep. Zombies are dead: an orphan whose new
 * parent never reaps it (PID 1 in some containers) stays a zombie in its session forever.
 */
final class ProcSessions {
    private ProcSessions() {
    }

    /**
     * A live process as its {@code stat} file says it.
     *
     * @param pid its pid
     * @param name its command name, as the kernel shows it in parentheses
     * @param state its state letter (never a zombie's)
     * @param ppid its parent's pid
     * @param session its session id
     */
    record Stat(long pid, String name, String state, long ppid, long session) {
    }

    /**
     * @param proc a {@code /proc/<pid>} directory
     * @return what its {@code stat} says; empty when it is gone, a zombie (dead), or unreadable
     */
    static Optional<Stat> stat(Path proc) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            // The command name is in parentheses and may hold spaces and ')': the fields follow the last ')'.
            int close = stat.lastIndexOf(')');
            String[] f = stat.substring(close + 1).trim().split("\\s+");
            if (f[0].equals("Z") || f[0].equals("X")) {
                return Optional.empty();
            }
            return Optional.of(new Stat(Long.parseLong(proc.getFileName().toString()), stat.substring(stat.indexOf('(') + 1, close),
                    f[0], Long.parseLong(f[1]), Long.parseLong(f[3])));
        } catch (IOException | RuntimeException gone) {
            return Optional.empty(); // exited while we looked
        }
    }

    /** @return one description per live (non-zombie) process whose session is in {@code sids} */
    static List<String> liveMembers(Collection<Long> sids) {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path d : dirs) {
                stat(d).filter(st -> sids.contains(st.session())).ifPresent(st -> out.add("pid " + st.pid() + " ("
                        + st.name() + ") state " + st.state() + " in session " + st.session()));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }

    /** SIGKILLs every live process of these sessions: clean-up after a test that failed half-way. */
    static void killAll(Collection<Long> sids) {
        for (String member : liveMembers(sids)) {
            ProcessHandle.of(Long.parseLong(member.split(" ")[1])).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    static boolean anyAlive(Collection<Long> sids) {
        return !liveMembers(sids).isEmpty();
    }
}

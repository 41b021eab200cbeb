package io.gpusched.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Live processes by session, from {@code /proc/<pid>/stat}. Each job leads its own session, so a
 * session id names everything the job started, however deep. Zombies are dead: an orphan whose new
 * parent never reaps it (PID 1 in some containers) stays a zombie in its session forever.
 */
final class ProcSessions {
    private ProcSessions() {
    }

    /** @return one description per live (non-zombie) process whose session is in {@code sids} */
    static List<String> liveMembers(Collection<Long> sids) {
        List<String> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path d : dirs) {
                String stat;
                try {
                    stat = Files.readString(d.resolve("stat"));
                } catch (IOException e) {
                    continue; // exited while we looked
                }
                // the command name is in parentheses and may hold spaces and ')': split after the last ')'
                int close = stat.lastIndexOf(')');
                String[] f = stat.substring(close + 1).trim().split("\\s+");
                long sid = Long.parseLong(f[3]);
                if (sids.contains(sid) && !f[0].equals("Z") && !f[0].equals("X")) {
                    out.add("pid " + d.getFileName() + " " + stat.substring(stat.indexOf('('), close + 1) + " state "
                            + f[0] + " in session " + sid);
                }
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

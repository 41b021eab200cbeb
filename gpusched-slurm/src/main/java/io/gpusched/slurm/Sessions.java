package io.gpusched.slurm;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/** The processes of one session, read from {@code /proc}: how the wrapper finds its command's processes. */
final class Sessions {
    private Sessions() {
    }

    /**
     * @return the live pids whose session id is {@code session} (the field after the process group in {@code stat});
     *     zombies, which hold no memory and cannot be signalled, are left out
     */
    static Set<Long> members(long session) {
        Set<Long> out = new HashSet<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : procs) {
                sessionOf(p).ifPresent(s -> {
                    if (s == session) {
                        out.add(Long.parseLong(p.getFileName().toString()));
                    }
                });
            }
        } catch (IOException e) {
            // no /proc: nothing is attributed, and the verdict says n/a
        }
        return out;
    }

    private static java.util.OptionalLong sessionOf(Path proc) {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            // the command name may hold spaces and parentheses: the fields start after the last ')'
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            if (f[0].equals("Z")) {
                return java.util.OptionalLong.empty();
            }
            return java.util.OptionalLong.of(Long.parseLong(f[3]));
        } catch (IOException | RuntimeException e) {
            return java.util.OptionalLong.empty(); // it exited while we looked
        }
    }
}

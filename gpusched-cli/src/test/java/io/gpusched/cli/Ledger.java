package io.gpusched.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * What each run of a job did, written by the job itself, so a test knows what really ran whatever the
 * scheduler's journal says. Every job line is wrapped in a few {@code /bin/sh} statements that append
 * to its own file {@code <dir>/<name>}:
 *
 * <pre>
 * overlap NAME PID T    the per-job lock was held by an earlier run still alive (two runs at once)
 * start NAME PID T      before the job's body; PID is the job's shell, i.e. its session id
 * term NAME PID T       (some bodies) the shell received SIGTERM
 * end NAME PID T RC     after the body, with its exit status, just before the shell exits with it
 * </pre>
 *
 * <p>T is {@code /proc/uptime} (a monotonic clock, centiseconds) read with the shell's own {@code read}:
 * no process is forked for it. Each line is one {@code echo} to a file opened with {@code O_APPEND}
 * ({@code >>}), one short {@code write}, so lines never tear or interleave; the order of lines in the
 * file is the order in which they happened. The lock is {@code flock(1)} on {@code <dir>/<name>.lock}
 * held through an inherited descriptor: it is released only when the shell and everything it started
 * have exited, however they die, so it sees overlap that timestamps could miss.
 */
final class Ledger {
    /** One ledger line. */
    record Entry(String kind, long pid, String uptime, OptionalInt rc, String text) {
    }

    private Ledger() {
    }

    /**
     * Wraps {@code body} (shell statements; its last status is the job's) so the job writes its ledger.
     *
     * @param dir ledger directory
     * @param name the job's name, a file name without spaces
     * @param body the job's own statements
     * @return the command text for a jobs-file line (without a {@code [...]} block)
     */
    static String wrap(Path dir, String name, String body) {
        String stamp = "read t _ </proc/uptime; echo \"";
        return "L=" + dir.resolve(name) + "; exec 9>>\"$L.lock\"; flock -n 9 || { " + stamp + "overlap " + name
                + " $$ $t\" >>\"$L\"; }; " + stamp + "start " + name + " $$ $t\" >>\"$L\"; " + body + "; r=$?; "
                + stamp + "end " + name + " $$ $t $r\" >>\"$L\"; exit $r";
    }

    /**
     * A statement for a body: records SIGTERM to the job's shell as a {@code term} line and carries on.
     * The trap runs once the shell's foreground command returns.
     */
    static String recordTerm(String name) {
        return "trap 'read t _ </proc/uptime; echo \"term " + name + " $$ $t\" >>\"$L\"' TERM";
    }

    /**
     * @return the job's entries in the order they happened; an unreadable line becomes kind {@code garbled}
     */
    static List<Entry> read(Path dir, String name) {
        Path file = dir.resolve(name);
        List<Entry> out = new ArrayList<>();
        if (!Files.exists(file)) {
            return out;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (String line : lines) {
            String[] f = line.split(" ");
            boolean ok = f.length >= 4 && f[1].equals(name) && f[2].matches("[0-9]+")
                    && (f[0].equals("end") ? f.length == 5 && f[4].matches("[0-9]+")
                    : f.length == 4 && List.of("start", "overlap", "term").contains(f[0]));
            if (!ok) {
                out.add(new Entry("garbled", 0, "", OptionalInt.empty(), line));
                continue;
            }
            out.add(new Entry(f[0], Long.parseLong(f[2]), f[3],
                    f[0].equals("end") ? OptionalInt.of(Integer.parseInt(f[4])) : OptionalInt.empty(), line));
        }
        return out;
    }

    static long count(List<Entry> entries, String kind) {
        return entries.stream().filter(e -> e.kind().equals(kind)).count();
    }
}

package io.gpusched.testkit.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulation's temporary directories ({@code gpusched-sim-*}, {@code gpusched-simjob-*}) that a
 * process which died without its shutdown hooks left behind, and their removal at the next start.
 *
 * <p>Why: the launchers pass {@code -XX:+ExitOnOutOfMemoryError}, and a JVM that exits so (or is
 * SIGKILLed) runs no hook, so {@code close()} never removes its usage directory. Nothing can make a
 * directory that a job reaches by its path vanish with its process, so each one is named after the
 * process that made it, {@code PREFIX<pid>-<start ticks>-<pid namespace>-<random>} ({@link #prefix}), and
 * the next simulation removes those whose process is gone ({@link #sweep}). The pid namespace (the inode of
 * {@code /proc/self/ns/pid}) is in the name because a pid means nothing outside its namespace: a container
 * that shares the temporary directory would otherwise take a live process of another for gone.
 *
 * <p>What is removed, and only that: a directory of the temporary directory (never through a symbolic
 * link: the name itself is not followed) whose name has exactly that form, with this process's pid
 * namespace, owned by the user this process runs as, whose process (the pid, with the same start time in clock ticks since boot, so a
 * pid given out again is not taken for it) is no longer alive. Inside it, what this user owns is
 * deleted through directory handles ({@link SecureDirectoryStream}: {@code openat}/{@code unlinkat}
 * with no link followed), so an entry swapped for a link to elsewhere while the sweep runs only loses
 * the link; what another user owns (a root scheduler's users' subdirectories) is left, and so is the
 * directory then. A name of the older form ({@code gpusched-sim-<random>}) says no process: left.
 */
final class LeftTempDirectories {
    /** {@code PREFIX<pid>-<start ticks>-<pid namespace>-<random>}: what {@link java.nio.file.Files#createTempDirectory} makes of {@link #prefix}. */
    private static final Pattern NAME = Pattern.compile(
            "(gpusched-sim-|gpusched-simjob-)([0-9]{1,10})-([0-9]{1,20})-([0-9]{1,20})-[0-9]{1,20}");

    private LeftTempDirectories() {
    }

    /**
     * @param kind {@code gpusched-sim-} or {@code gpusched-simjob-}
     * @return the prefix a new temporary directory of this process is made with: {@code kind<pid>-<start ticks>-};
     *     just {@code kind} where this process's start time cannot be read (no {@code /proc}: nothing to sweep by either)
     */
    static String prefix(String kind) {
        long pid = ProcessHandle.current().pid();
        OptionalLong ticks = startTicks(Path.of("/proc"), pid);
        OptionalLong ns = pidNamespace(Path.of("/proc"));
        return ticks.isPresent() && ns.isPresent() ? kind + pid + "-" + ticks.getAsLong() + "-" + ns.getAsLong() + "-" : kind;
    }

    /** The inode of this process's pid namespace, from {@code /proc/self/ns/pid} ({@code pid:[4026531836]}). */
    static OptionalLong pidNamespace(Path proc) {
        try {
            String link = Files.readSymbolicLink(proc.resolve("self").resolve("ns").resolve("pid")).toString();
            Matcher m = Pattern.compile("pid:\\[([0-9]{1,20})\\]").matcher(link);
            return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Removes what dead processes left in {@code tmp}, as the class says; quietly: a directory that cannot
     * be removed is left as it was, and a sweep never fails its caller.
     *
     * @param tmp the temporary directory ({@code java.io.tmpdir})
     * @param proc the procfs mount, {@code /proc} outside tests
     * @return the directories removed whole
     */
    static List<Path> sweep(Path tmp, Path proc) {
        List<Path> removed = new ArrayList<>();
        Optional<UserPrincipal> me = me(proc.resolve("self"));
        OptionalLong ns = pidNamespace(proc);
        if (me.isEmpty() || ns.isEmpty()) {
            return removed;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(tmp)) {
            if (!(entries instanceof SecureDirectoryStream<Path> dir)) {
                return removed; // no openat here: a path walk could be led elsewhere, so nothing is removed
            }
            for (Path entry : dir) {
                Path name = entry.getFileName();
                Matcher m = NAME.matcher(name.toString());
                if (!m.matches() || !m.group(4).equals(Long.toString(ns.getAsLong())) || !ownedDirectory(dir, name, me.get())) {
                    continue;
                }
                long pid = Long.parseLong(m.group(2));
                OptionalLong started = startTicks(proc, pid);
                if (started.isPresent() && Long.toString(started.getAsLong()).equals(m.group(3))) {
                    continue; // its process lives: its directory is in use
                }
                if (removeOwned(dir, name, me.get())) {
                    removed.add(tmp.resolve(name));
                }
            }
        } catch (IOException | RuntimeException e) {
            // An unreadable temporary directory: nothing swept this time.
        }
        return removed;
    }

    /** Whether {@code name} in {@code dir} is a directory itself (not a link to one) that {@code user} owns. */
    private static boolean ownedDirectory(SecureDirectoryStream<Path> dir, Path name, UserPrincipal user) {
        try {
            PosixFileAttributeView view = dir.getFileAttributeView(name, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS);
            PosixFileAttributes a = view.readAttributes();
            return a.isDirectory() && !a.isSymbolicLink() && a.owner().equals(user);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Deletes {@code name} in {@code parent} and, for a directory, what {@code user} owns in it, through
     * directory handles that follow no link.
     *
     * @return whether {@code name} is gone
     */
    private static boolean removeOwned(SecureDirectoryStream<Path> parent, Path name, UserPrincipal user) {
        return Trees.removeWithin(parent, name, java.util.Optional.of(user));
    }

    /**
     * The user {@code /proc/self} belongs to: the one this process runs as. Users are compared as the file
     * system's principals, which are equal when their numeric ids are (a name could be two uids, or none).
     */
    private static Optional<UserPrincipal> me(Path procSelf) {
        try {
            return Optional.of(Files.readAttributes(procSelf, PosixFileAttributes.class).owner());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Field 22 of {@code /proc/<pid>/stat}, its start in clock ticks since boot; empty when it is not alive. */
    static OptionalLong startTicks(Path proc, long pid) {
        try {
            String stat = Files.readString(proc.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.US_ASCII);
            // After the last ')': the command name may hold spaces and parentheses. Field 3 is first there.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return OptionalLong.of(Long.parseLong(f[19]));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }
}

package io.gpusched.journal;

import io.gpusched.model.GpuschedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * What a scheduler running as root demands of its log (state) directory before it reads a line of it:
 * the journal there decides what runs as whom, so a directory or journal another user could write would
 * let that user forge a {@code submitted} line with any owner, root included.
 *
 * <p>As root: the directory (created 0700 if missing) and every directory above it must belong to root
 * and be writable by nobody else (a sticky directory such as {@code /tmp} excepted above it, since there
 * others cannot rename or remove root's entries); the journal and {@code runs/} must belong to root and
 * be writable by nobody else. Anything readable by others is made private (directory and {@code runs/}
 * 0700, journal 0600), with a warning saying so: they hold every submitter's environment. Any other
 * scheduler only has its journal created 0600: its user's own directory is theirs to share.
 */
public final class StateDirectory {
    private static final String JOURNAL = "journal.jsonl";

    private StateDirectory() {
    }

    /**
     * @param logDir the scheduler's log directory
     * @return warnings to print (what was made private)
     * @throws GpuschedException one line naming the path, whose it is, and the fix, for a directory a
     *     root scheduler must not trust; nothing was read or started
     */
    public static List<String> secure(Path logDir) {
        List<String> notes = new ArrayList<>();
        int uid = currentUid();
        if (uid != 0) {
            // An older version made its journal 0644: it is this user's, so it is made theirs alone.
            Path journal = logDir.resolve(JOURNAL);
            try {
                if (Files.isRegularFile(journal, LinkOption.NOFOLLOW_LINKS)
                        && ((Integer) Files.getAttribute(journal, "unix:uid", LinkOption.NOFOLLOW_LINKS)) == uid) {
                    makePrivate(journal, "rw-------", notes, true);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // not ours to change, or not a POSIX file system: left as it is
            }
            return notes;
        }
        try {
            walk(logDir, true, notes);
        } catch (IOException e) {
            throw new GpuschedException("cannot check log directory " + logDir + ": " + e.getMessage()
                    + "; pick one root may create, e.g. /var/lib/gpusched", e);
        }
        return notes;
    }

    /**
     * What {@link #secure} would say of a root scheduler's log directory, found without creating or
     * changing anything (for {@code gpusched doctor}): the same rules, read only.
     *
     * @param problem the one line {@link #secure} would refuse with (naming the path, whose it is and the
     *     fix); empty when a root scheduler would use it
     * @param changes what a root scheduler would change there and say so (made private, created)
     */
    public record Inspection(java.util.Optional<String> problem, List<String> changes) {
        /**
         * Copies the list.
         *
         * @param problem see {@link #problem()}
         * @param changes see {@link #changes()}
         */
        public Inspection {
            java.util.Objects.requireNonNull(problem, "problem");
            changes = List.copyOf(changes);
        }
    }

    /**
     * Checks {@code logDir} as a root scheduler would at its start, without touching it.
     *
     * @param logDir the log (state) directory, which need not exist yet
     * @return the problem a root scheduler would refuse it for, or what it would change
     */
    public static Inspection inspect(Path logDir) {
        List<String> notes = new ArrayList<>();
        try {
            walk(logDir, false, notes);
            return new Inspection(java.util.Optional.empty(), notes);
        } catch (GpuschedException e) {
            return new Inspection(java.util.Optional.of(e.getMessage()), notes);
        } catch (IOException e) {
            return new Inspection(java.util.Optional.of("cannot check log directory " + logDir + ": " + e.getMessage()
                    + "; pick one root may create, e.g. /var/lib/gpusched"), notes);
        }
    }

    /** The root scheduler's rules; {@code fix}: create and make private, else only say what would be done. */
    private static void walk(Path logDir, boolean fix, List<String> notes) throws IOException {
        if (!Files.exists(logDir, LinkOption.NOFOLLOW_LINKS)) {
            if (!fix) {
                // The directories above it that exist are what a root scheduler would create it in.
                Path up = logDir.toAbsolutePath().getParent();
                while (up != null && !Files.exists(up, LinkOption.NOFOLLOW_LINKS)) {
                    up = up.getParent();
                }
                for (Path p = up == null ? null : up.toRealPath(); p != null; p = p.getParent()) {
                    requireRootOwned(p, false);
                }
                notes.add(logDir + " does not exist yet: a root scheduler creates it 0700");
                return;
            }
            Files.createDirectories(logDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path real = logDir.toRealPath();
        requireRootOwned(real, true);
        for (Path up = real.getParent(); up != null; up = up.getParent()) {
            requireRootOwned(up, false);
        }
        makePrivate(real, "rwx------", notes, fix);
        Path journal = real.resolve(JOURNAL);
        if (Files.exists(journal, LinkOption.NOFOLLOW_LINKS)) {
            if (Files.isSymbolicLink(journal) || !Files.isRegularFile(journal, LinkOption.NOFOLLOW_LINKS)) {
                throw new GpuschedException("journal " + journal + " is not a regular file; a root scheduler reads only"
                        + " its own journal: move it away");
            }
            requireRootOwned(journal, true);
            makePrivate(journal, "rw-------", notes, fix);
        }
        Path runs = real.resolve("runs");
        if (Files.exists(runs, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isDirectory(runs, LinkOption.NOFOLLOW_LINKS)) {
                throw new GpuschedException(runs + " is not a directory; a root scheduler keeps its run files there:"
                        + " move it away");
            }
            requireRootOwned(runs, true);
        }
    }

    /** @return this process's uid: the owner the kernel gives its own {@code /proc/self} */
    static int currentUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name")) ? 0 : -1;
        }
    }

    private static void requireRootOwned(Path p, boolean own) throws IOException {
        int uid = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        String what = own ? p.toString() : p + " (above the log directory)";
        if (uid != 0) {
            throw new GpuschedException(what + " belongs to uid " + uid + owner(p) + ", not root: a root scheduler trusts"
                    + " only state that no other user can change; use a root-owned directory such as /var/lib/gpusched"
                    + " (--log-dir), or chown root " + p);
        }
        boolean sticky = (mode & 01000) != 0;
        if ((mode & 0022) != 0 && (own || !sticky)) {
            throw new GpuschedException(what + " is writable by " + ((mode & 0002) != 0 ? "every user" : "its group")
                    + ": another user could change what a root scheduler runs; chmod go-w " + p);
        }
    }

    private static String owner(Path p) {
        try {
            return " (" + Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName() + ")";
        } catch (IOException e) {
            return "";
        }
    }

    private static void makePrivate(Path p, String perms, List<String> notes, boolean fix) throws IOException {
        var want = PosixFilePermissions.fromString(perms);
        if (!Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).equals(want)) {
            String mode = perms.startsWith("rwx") ? "0700" : "0600";
            if (fix) {
                Files.setPosixFilePermissions(p, want);
            }
            notes.add((fix ? "made " + p + " " + mode : p + " is " + PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)) + "; a root scheduler makes it " + mode)
                    + ": it holds every submitter's environment and commands, which only root may read");
        }
    }
}

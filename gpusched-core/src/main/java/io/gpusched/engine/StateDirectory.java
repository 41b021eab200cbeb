package io.gpusched.engine;

import io.gpusched.GpuschedException;
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
final class StateDirectory {
    private static final String JOURNAL = "journal.jsonl";

    private StateDirectory() {
    }

    /**
     * @param logDir the scheduler's log directory
     * @return warnings to print (what was made private)
     * @throws GpuschedException one line naming the path, whose it is, and the fix, for a directory a
     *     root scheduler must not trust; nothing was read or started
     */
    static List<String> secure(Path logDir) {
        List<String> notes = new ArrayList<>();
        int uid = currentUid();
        if (uid != 0) {
            // An older version made its journal 0644: it is this user's, so it is made theirs alone.
            Path journal = logDir.resolve(JOURNAL);
            try {
                if (Files.isRegularFile(journal, LinkOption.NOFOLLOW_LINKS)
                        && ((Integer) Files.getAttribute(journal, "unix:uid", LinkOption.NOFOLLOW_LINKS)) == uid) {
                    makePrivate(journal, "rw-------", notes);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // not ours to change, or not a POSIX file system: left as it is
            }
            return notes;
        }
        try {
            if (!Files.exists(logDir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(logDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            Path real = logDir.toRealPath();
            requireRootOwned(real, true);
            for (Path up = real.getParent(); up != null; up = up.getParent()) {
                requireRootOwned(up, false);
            }
            makePrivate(real, "rwx------", notes);
            Path journal = real.resolve(JOURNAL);
            if (Files.exists(journal, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.isSymbolicLink(journal) || !Files.isRegularFile(journal, LinkOption.NOFOLLOW_LINKS)) {
                    throw new GpuschedException("journal " + journal + " is not a regular file; a root scheduler reads only"
                            + " its own journal: move it away");
                }
                requireRootOwned(journal, true);
                makePrivate(journal, "rw-------", notes);
            }
            Path runs = real.resolve("runs");
            if (Files.exists(runs, LinkOption.NOFOLLOW_LINKS)) {
                if (!Files.isDirectory(runs, LinkOption.NOFOLLOW_LINKS)) {
                    throw new GpuschedException(runs + " is not a directory; a root scheduler keeps its run files there:"
                            + " move it away");
                }
                requireRootOwned(runs, true);
            }
        } catch (IOException e) {
            throw new GpuschedException("cannot check log directory " + logDir + ": " + e.getMessage()
                    + "; pick one root may create, e.g. /var/lib/gpusched", e);
        }
        return notes;
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

    private static void makePrivate(Path p, String perms, List<String> notes) throws IOException {
        var want = PosixFilePermissions.fromString(perms);
        if (!Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS).equals(want)) {
            Files.setPosixFilePermissions(p, want);
            notes.add("made " + p + " " + (perms.startsWith("rwx") ? "0700" : "0600") + ": it holds every submitter's"
                    + " environment and commands, which only root may read");
        }
    }
}

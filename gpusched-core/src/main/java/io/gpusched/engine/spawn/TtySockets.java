package io.gpusched.engine.spawn;

import io.gpusched.model.TtySession;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.Optional;

/**
 * A {@code [tty]} job's tmux directory and socket: a root scheduler makes sure the directory is the
 * job's owner's before the job starts ({@link #claimDirectory}), and the socket a tmux server leaves
 * behind is removed ({@link #removeLeftOver}). tmux does not remove its socket when its server exits,
 * so a dead one would stay in {@code /tmp/tmux-UID/} after every such job. The
 * job's own shell removes it when the command ends, is cancelled or times out ({@link TtyScript}); this
 * is for a job whose shell was killed first (SIGKILL after the grace, an orphan found dead), after the
 * sweep has killed its server.
 *
 * <p>A root daemon runs here too, on a directory its job's owner owns and could swap under it: the
 * directory is opened relative to {@code /tmp} without following a link, must belong to the job's
 * owner, and only a socket of the job's own name is unlinked in it (never a link's target). No path the
 * user named (their output file, say) is looked at. The removal is called only for a run whose shell did
 * not end on its own, and the claim only as a {@code [tty]} job starts, so the lookup of another user's
 * uid ({@code id -u}) is rare.
 */
public final class TtySockets {
    /** Where tmux puts a user's sockets: the job's shell unsets {@code TMUX_TMPDIR}, so under {@code /tmp}. */
    private static final Path TMP = Path.of("/tmp");

    private TtySockets() {
    }

    /**
     * Unlinks the job's socket if it is still there.
     *
     * @param tty the job's terminal
     * @param owner the user the job ran as, as the kernel named them: the scheduler's own user, or under a
     *     root daemon the submitter
     * @return whether a socket was removed; false when there was none, or when anything is not as it
     *     should be (then nothing is touched)
     */
    public static boolean removeLeftOver(TtySession tty, String owner) {
        try {
            java.util.OptionalLong uid = uid(owner);
            if (uid.isEmpty()) {
                return false;
            }
            try (DirectoryStream<Path> tmp = Files.newDirectoryStream(TMP)) {
                if (!(tmp instanceof SecureDirectoryStream<Path> secureTmp)) {
                    return false; // no way to open the user's directory without following a link: leave it
                }
                try (SecureDirectoryStream<Path> dir = secureTmp.newDirectoryStream(Path.of("tmux-" + uid.getAsLong()),
                        LinkOption.NOFOLLOW_LINKS)) {
                    PosixFileAttributes d = dir.getFileAttributeView(PosixFileAttributeView.class).readAttributes();
                    if (!d.isDirectory() || !d.owner().getName().equals(owner)) {
                        return false;
                    }
                    Path name = Path.of(tty.name());
                    PosixFileAttributes s = dir.getFileAttributeView(name, PosixFileAttributeView.class,
                            LinkOption.NOFOLLOW_LINKS).readAttributes();
                    // A socket is neither file, directory nor link; anything else of that name is not tmux's.
                    if (!s.isOther()) {
                        return false;
                    }
                    dir.deleteFile(name);
                    return true;
                }
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return false; // none left (the usual case: the job's shell removed it), or not ours to touch
        }
    }

    /**
     * Makes sure a user's tmux directory ({@code /tmp/tmux-UID}) is theirs before a root scheduler starts a
     * {@code [tty]} job as them. tmux refuses a directory another user owns (or a link), and {@code /tmp}
     * lets anyone make {@code tmux-UID} for a uid that has none yet: without this, any local user could
     * make every {@code [tty]} job of another fail at once. What another user put there is moved aside
     * (renamed, never followed, never deleted: it is theirs), and the directory is made by root, 0700, and
     * given to the user, so nobody else can replace it ({@code /tmp} is sticky). Nothing is done when it
     * is already the user's, whatever its mode (theirs to set).
     *
     * @param owner the user the job runs as
     * @return what was moved aside, to be said in the log; empty when nothing was
     */
    public static Optional<String> claimDirectory(String owner) {
        try {
            java.util.OptionalLong uid = uid(owner);
            if (uid.isEmpty()) {
                return Optional.empty();
            }
            Path name = Path.of("tmux-" + uid.getAsLong());
            Optional<String> moved = Optional.empty();
            for (int attempt = 0; attempt < 5; attempt++) {
                try (DirectoryStream<Path> tmp = Files.newDirectoryStream(TMP)) {
                    if (!(tmp instanceof SecureDirectoryStream<Path> secureTmp)) {
                        return moved; // no way to look without following a link: leave it to tmux
                    }
                    PosixFileAttributes a;
                    try {
                        a = secureTmp.getFileAttributeView(name, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                                .readAttributes();
                    } catch (java.nio.file.NoSuchFileException e) {
                        a = null;
                    }
                    if (a != null && a.owner().getName().equals(owner)) {
                        return moved; // theirs (whether made by tmux, by them, or just now by us)
                    }
                    if (a != null) {
                        Path aside = Path.of(".tmux-" + uid.getAsLong() + ".moved-" + Long.toHexString(
                                new java.security.SecureRandom().nextLong() & Long.MAX_VALUE));
                        secureTmp.move(name, secureTmp, aside); // renames the entry itself, a link included
                        moved = Optional.of(TMP.resolve(name) + " belonged to " + a.owner().getName() + ", not " + owner
                                + ": moved to " + TMP.resolve(aside));
                    }
                }
                Path dir = TMP.resolve(name);
                try {
                    Files.createDirectory(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
                } catch (java.nio.file.FileAlreadyExistsException e) {
                    continue; // made meanwhile, by them (theirs) or by someone else (moved aside next time)
                }
                // Root's own directory in a sticky /tmp: nobody else can swap it before it is given away.
                Files.getFileAttributeView(dir, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).setOwner(
                        dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(owner));
                return moved;
            }
            return moved;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return Optional.empty(); // left to tmux, which says what is wrong in the job's log
        }
    }

    /**
     * The user's uid: this process's own for its own user; another's (a root daemon's submitter) from
     * {@code id -u}, which asks the system's user database as the kernel's name for them is known there.
     * Never from a path the user controls.
     */
    private static java.util.OptionalLong uid(String user) throws IOException {
        if (user.equals(System.getProperty("user.name"))) {
            return java.util.OptionalLong.of(((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue());
        }
        if (user.isEmpty() || user.startsWith("-")) {
            return java.util.OptionalLong.empty();
        }
        Process p = new ProcessBuilder("id", "-u", "--", user).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String out = new String(p.getInputStream().readNBytes(64), java.nio.charset.StandardCharsets.US_ASCII).strip();
            if (!p.waitFor(5, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0 || !out.matches("[0-9]{1,10}")) {
                p.destroyForcibly();
                return java.util.OptionalLong.empty();
            }
            return java.util.OptionalLong.of(Long.parseLong(out));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return java.util.OptionalLong.empty();
        }
    }
}

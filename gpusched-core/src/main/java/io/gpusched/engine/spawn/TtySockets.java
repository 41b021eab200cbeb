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

/**
 * Removes the socket a {@code [tty]} job's tmux server leaves behind. tmux does not remove its socket
 * when its server exits, so a dead one would stay in {@code /tmp/tmux-UID/} after every such job. The
 * job's own shell removes it when the command ends, is cancelled or times out ({@link TtyScript}); this
 * is for a job whose shell was killed first (SIGKILL after the grace, an orphan found dead), after the
 * sweep has killed its server.
 *
 * <p>A root daemon runs here too, on a directory its job's owner owns and could swap under it: the
 * directory is opened relative to {@code /tmp} without following a link, must belong to the job's
 * owner, and only a socket of the job's own name is unlinked in it (never a link's target). No path the
 * user named (their output file, say) is looked at. It is called only for a run whose shell did not end
 * on its own, so the lookup of another user's uid ({@code id -u}) is rare.
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

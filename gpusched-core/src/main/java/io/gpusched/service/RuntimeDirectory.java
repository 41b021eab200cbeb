package io.gpusched.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The directory a service's socket lives in, which must be the service's own before it listens there:
 * a directory another user owns, or can write, lets that user swap the socket for their own and
 * receive every submission (environment included). A missing one is created (0700 for a user's daemon,
 * 0755 for root's, whose socket every user reaches).
 */
final class RuntimeDirectory {
    private RuntimeDirectory() {
    }

    /**
     * @param dir the socket's directory
     * @param shared whether the service serves every user (root's daemon)
     * @throws ServiceException {@code untrusted}, one line naming the directory, its owner and the fix,
     *     when it is not this user's alone to write; {@code unreachable} when it cannot be created or read
     */
    static void prepare(Path dir, boolean shared) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString(shared ? "rwxr-xr-x" : "rwx------")));
            }
            verify(dir);
        } catch (IOException | UnsupportedOperationException e) {
            throw new ServiceException("unreachable", "cannot use socket directory " + dir + ": " + e.getMessage());
        }
    }

    /**
     * What {@link #prepare} would refuse, found without creating or changing anything.
     *
     * @param dir the socket's directory
     * @return the refusal's one line; empty when it is fine or missing (prepare creates it)
     */
    static java.util.Optional<String> check(Path dir) {
        try {
            if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                verify(dir);
            }
            return java.util.Optional.empty();
        } catch (ServiceException e) {
            return java.util.Optional.of(e.getMessage());
        } catch (IOException | UnsupportedOperationException e) {
            return java.util.Optional.of("cannot use socket directory " + dir + ": " + e.getMessage());
        }
    }

    /** The rules: not a link, this user's, and writable by nobody else (their own primary group excepted). */
    private static void verify(Path dir) throws IOException {
        if (Files.isSymbolicLink(dir)) {
            throw new ServiceException("untrusted", "socket directory " + dir + " is a symbolic link; gpusched listens"
                    + " only in a directory of its own: remove it, or use another --socket");
        }
        int uid = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (uid != me) {
            throw new ServiceException("untrusted", "socket directory " + dir + " belongs to uid " + uid + owner(dir)
                    + ", not to you: its owner could swap the socket and read what clients send; remove it (or"
                    + " set XDG_RUNTIME_DIR, or use another --socket)");
        }
        int gid = (Integer) Files.getAttribute(dir, "unix:gid", LinkOption.NOFOLLOW_LINKS);
        int myGroup = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:gid");
        // Group write is allowed only for the user's own primary group (a user-private group, umask 002).
        if ((mode & 0002) != 0 || ((mode & 0020) != 0 && gid != myGroup)) {
            throw new ServiceException("untrusted", "socket directory " + dir + " is writable by "
                    + ((mode & 0002) != 0 ? "every user" : "its group") + ": another user could swap the socket;"
                    + " chmod go-w " + dir + " (or remove it)");
        }
    }

    private static String owner(Path p) {
        try {
            return " (" + Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName() + ")";
        } catch (IOException e) {
            return "";
        }
    }
}

package io.gpusched.testkit.sim;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Deleting a tree that other users write in, as root, without ever following a link: every step is
 * taken through a handle on the directory it is in ({@link SecureDirectoryStream}: {@code openat} with
 * {@code O_NOFOLLOW}, {@code unlinkat}), never by a path. A walk by path ({@code Files.walkFileTree})
 * lists {@code alice/sub} and then deletes {@code alice/sub/f} by name: had she meanwhile put a link to
 * {@code /etc} where {@code sub} was, root would delete {@code /etc/f}. Through a handle, a directory
 * renamed or swapped for a link mid-way is either the one that was opened or refused.
 */
final class Trees {
    private Trees() {
    }

    /**
     * Deletes {@code dir} and what is in it, quietly (a leftover must not fail the caller).
     *
     * @param dir the tree's top, itself deleted by path: its parent is the caller's, not a user's
     * @return whether it is gone; false where this file system gives no directory handles (nothing is then
     *     deleted below it: a walk by path is what this replaces), or something could not be deleted
     */
    static boolean remove(Path dir) {
        try (DirectoryStream<Path> top = Files.newDirectoryStream(dir)) {
            if (!(top instanceof SecureDirectoryStream<Path> secure)) {
                return false;
            }
            boolean all = true;
            for (Path n : names(secure)) {
                all &= removeWithin(secure, n, Optional.empty());
            }
            if (all) {
                Files.deleteIfExists(dir);
            }
            return all;
        } catch (java.nio.file.NoSuchFileException e) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Deletes {@code name} in {@code parent} and, for a directory, what is in it: all of it, or with
     * {@code onlyOf} only what that user owns (what another user owns stays, and the directories above it).
     *
     * @return whether {@code name} is gone
     */
    static boolean removeWithin(SecureDirectoryStream<Path> parent, Path name, Optional<UserPrincipal> onlyOf) {
        try {
            PosixFileAttributes a = parent.getFileAttributeView(name, PosixFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS).readAttributes();
            if (onlyOf.isPresent() && !a.owner().equals(onlyOf.get())) {
                return false;
            }
            if (!a.isDirectory() || a.isSymbolicLink()) {
                parent.deleteFile(name); // a link is unlinked, never followed
                return true;
            }
            boolean all = true;
            try (SecureDirectoryStream<Path> sub = parent.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                for (Path n : names(sub)) {
                    all &= removeWithin(sub, n, onlyOf);
                }
            }
            if (all) {
                parent.deleteDirectory(name);
            }
            return all;
        } catch (java.nio.file.NoSuchFileException e) {
            return true; // gone meanwhile
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The names in a directory, read whole before any is deleted. */
    private static List<Path> names(SecureDirectoryStream<Path> dir) {
        List<Path> names = new ArrayList<>();
        dir.forEach(p -> names.add(p.getFileName()));
        return names;
    }
}

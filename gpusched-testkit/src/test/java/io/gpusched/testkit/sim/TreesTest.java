package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Root deletes a simulation's usage directory, in which its users' jobs write, without ever following
 * a link they put there, even one swapped in while it deletes.
 */
class TreesTest {
    @TempDir
    Path tmp;

    private Path victim() throws Exception {
        Path victim = Files.createDirectories(tmp.resolve("victim"));
        for (int i = 0; i < 20; i++) {
            Files.writeString(victim.resolve("f" + i), "keep");
        }
        return victim;
    }

    @Test
    void aLinkInTheTree_isUnlinked_andWhatItPointsAtStays() throws Exception {
        Path victim = victim();
        Path top = Files.createDirectories(tmp.resolve("usage/alice/sub"));
        Files.writeString(top.resolve("1.json"), "{}");
        Files.createSymbolicLink(tmp.resolve("usage/alice/link"), victim);
        Files.createSymbolicLink(top.resolve("file-link"), victim.resolve("f0"));
        new UsageDirectory(tmp.resolve("usage"), Path.of("/proc")).remove();
        assertFalse(Files.exists(tmp.resolve("usage")));
        assertEquals(20, victim.toFile().list().length);
    }

    @Test
    void aDirectorySwappedForALinkAfterItWasListed_isNotFollowed() throws Exception {
        Path victim = victim();
        Path alice = Files.createDirectories(tmp.resolve("usage/alice"));
        Files.createDirectories(alice.resolve("sub"));
        try (DirectoryStream<Path> d = Files.newDirectoryStream(alice)) {
            SecureDirectoryStream<Path> handle = (SecureDirectoryStream<Path>) d;
            // Listed as a directory; now the job puts a link to the victim where it was.
            Files.move(alice.resolve("sub"), tmp.resolve("moved"), StandardCopyOption.ATOMIC_MOVE);
            Files.createSymbolicLink(alice.resolve("sub"), victim);
            assertTrue(Trees.removeWithin(handle, Path.of("sub"), Optional.empty()));
        }
        assertFalse(Files.exists(alice.resolve("sub"), java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertEquals(20, victim.toFile().list().length);
    }

    /**
     * The attack on a walk by path, for real: a job swaps its directory for a link to another directory
     * and back, as fast as it can, while root deletes the tree. A walk by path (Files.walkFileTree, which
     * this replaced) deleted the victim's files through the link.
     */
    @Test
    void aJobSwappingItsDirectoryForALinkWhileRootDeletes_neverGetsAVictimFileDeleted() throws Exception {
        Path victim = victim();
        for (int round = 0; round < 40; round++) {
            Path usage = tmp.resolve("usage" + round);
            Path alice = Files.createDirectories(usage.resolve("alice"));
            Path sub = alice.resolve("sub");
            Path aside = alice.resolve("aside");
            Files.createDirectories(sub);
            for (int i = 0; i < 20; i++) {
                Files.writeString(sub.resolve("f" + i), "mine");
            }
            Path link = alice.resolve(".link");
            AtomicBoolean stop = new AtomicBoolean();
            Thread attacker = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        Files.move(sub, aside, StandardCopyOption.ATOMIC_MOVE);
                        Files.createSymbolicLink(link, victim);
                        Files.move(link, sub, StandardCopyOption.ATOMIC_MOVE);
                        Files.move(sub, link, StandardCopyOption.ATOMIC_MOVE);
                        Files.move(aside, sub, StandardCopyOption.ATOMIC_MOVE);
                        Files.deleteIfExists(link);
                    } catch (Exception e) {
                        // the tree is being deleted under it: go on until told to stop
                    }
                }
            });
            attacker.start();
            try {
                new UsageDirectory(usage, Path.of("/proc")).remove();
            } finally {
                stop.set(true);
                attacker.join();
            }
            assertEquals(20, victim.toFile().list().length, "round " + round);
        }
    }
}

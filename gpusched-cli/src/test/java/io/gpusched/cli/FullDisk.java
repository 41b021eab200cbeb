package io.gpusched.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A tiny tmpfs mounted for one test and filled on demand, so "the journal cannot be written" is the
 * kernel's own ENOSPC, which stops root as it stops anyone (unlike a file mode). Mounting needs
 * CAP_SYS_ADMIN: {@link #mount} is empty where it cannot, for the test to skip.
 */
final class FullDisk implements AutoCloseable {
    private final Path root;
    private final Path filler;

    private FullDisk(Path root) {
        this.root = root;
        this.filler = root.resolve("filler");
    }

    /** Mounts {@code kib} KiB of tmpfs at {@code at} (created); empty when mounting is not allowed here. */
    static Optional<FullDisk> mount(Path at, int kib) throws Exception {
        Files.createDirectories(at);
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + kib + "k,mode=0700", "tmpfs", at.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? Optional.of(new FullDisk(at)) : Optional.empty();
    }

    /**
     * Fills the disk: a filler file until the kernel says it is full, then the unused tail of
     * {@code journal}'s last page with blank lines (which a journal reader skips), as appends into an
     * already allocated page would still succeed.
     */
    void fill(Path journal) throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (IOException full) {
            requireFull(full);
        }
        try (OutputStream out = Files.newOutputStream(journal, StandardOpenOption.APPEND)) {
            for (int i = 0; i < 8192; i++) {
                out.write('\n');
                out.flush();
            }
            throw new IOException("the disk is not full: 8 KiB more went into " + journal);
        } catch (IOException full) {
            requireFull(full);
        }
    }

    private static void requireFull(IOException e) throws IOException {
        if (!String.valueOf(e.getMessage()).contains("No space left")) {
            throw e;
        }
    }

    /** Frees what {@link #fill} took. */
    void free() throws IOException {
        Files.deleteIfExists(filler);
    }

    @Override
    public void close() throws IOException {
        Process umount = new ProcessBuilder("umount", "-l", root.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            umount.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            // close() should not throw InterruptedException: the lazy unmount goes on anyway
            Thread.currentThread().interrupt();
        }
    }
}

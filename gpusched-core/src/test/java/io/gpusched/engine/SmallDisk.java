package io.gpusched.engine;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real, tiny file system (tmpfs) mounted for one test, so "disk full" is the kernel's own ENOSPC.
 * Mounting needs CAP_SYS_ADMIN; {@link #mount} says whether it worked so tests can be skipped where
 * it cannot.
 */
final class SmallDisk implements AutoCloseable {
    final Path root;
    private final Path filler;

    private SmallDisk(Path root) {
        this.root = root;
        this.filler = root.resolve("filler");
    }

    static java.util.Optional<SmallDisk> mount(Path at, int kib) throws Exception {
        Files.createDirectories(at);
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + kib + "k", "tmpfs", at.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new SmallDisk(at));
    }

    /** {@link #mount}, skipping the calling test where no tmpfs can be mounted. */
    static SmallDisk mountOrSkip(Path at, int kib) throws Exception {
        java.util.Optional<SmallDisk> d = mount(at, kib);
        org.junit.jupiter.api.Assumptions.assumeTrue(d.isPresent(), "cannot mount a tmpfs here (needs CAP_SYS_ADMIN)");
        return d.get();
    }

    /** Writes a filler file until the kernel says the disk is full. */
    void fill() throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
    }

    /**
     * Fills the unused tail of {@code file}'s last page with blank lines (which a journal reader
     * skips): appends into an already allocated page succeed even on a full disk.
     */
    void fillSlack(Path file) throws IOException {
        try (OutputStream out = Files.newOutputStream(file, java.nio.file.StandardOpenOption.APPEND)) {
            for (int i = 0; i < 8192; i++) {
                out.write('\n');
                out.flush();
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
            return;
        }
        throw new IOException("the disk is not full: 8 KiB more went into " + file);
    }

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
            // AutoCloseable.close should not throw InterruptedException: the lazy unmount goes on anyway
            Thread.currentThread().interrupt();
        }
    }
}

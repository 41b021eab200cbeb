package io.gpusched.service;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * A client's file-mode creation mask, read anew for each submission from a status file held open: a
 * positional read from offset 0 of an open {@code /proc} file makes the kernel write the file afresh, so
 * every read sees the mask as it is then, without the path lookup, open and close of a whole-file read
 * each time (5.2 against 20.7 µs per read here under bin/gpusched's JVM flags, {@code
 * bench/service/UmaskRead.java}). Not thread-safe (one per {@link GpuschedClient}, which is not either).
 */
final class UmaskReader implements AutoCloseable {
    /**
     * What one read takes. A status file is about 1.5 KiB; one that fills this (a user in very many
     * groups) is read whole instead, so the mask is never parsed from a cut file.
     */
    static final int READ_BYTES = 4096;

    private final Path file;
    /** Reused: a submission allocates and zeroes no 4 KiB of its own for the mask. */
    private final ByteBuffer buffer = ByteBuffer.allocate(READ_BYTES);
    /** Opened at the first read; empty before it, and after a failed open (then each read reads the file whole). */
    private java.util.Optional<FileChannel> open = java.util.Optional.empty();
    private boolean openFailed;

    /** @param file the status file, {@code /proc/self/status} for this process's mask */
    UmaskReader(Path file) {
        this.file = file;
    }

    /** @return the mask the file says now (0 to 0777); empty where it says none or cannot be read */
    OptionalInt read() {
        try {
            if (open.isEmpty() && !openFailed) {
                try {
                    open = java.util.Optional.of(FileChannel.open(file));
                } catch (IOException | RuntimeException e) {
                    openFailed = true;
                }
            }
            if (open.isPresent()) {
                buffer.clear();
                int n = open.get().read(buffer, 0);
                if (n >= 0 && n < READ_BYTES) {
                    return GpuschedClient.umaskIn(buffer.array(), n);
                }
            }
            return GpuschedClient.umaskOfFile(file);
        } catch (IOException | RuntimeException e) {
            // not Linux, or an older kernel: the daemon's default applies
            return OptionalInt.empty();
        }
    }

    @Override
    public void close() {
        open.ifPresent(ch -> {
            try {
                ch.close();
            } catch (IOException e) {
                // closing a read-only file: nothing to do
            }
        });
        open = java.util.Optional.empty();
    }
}

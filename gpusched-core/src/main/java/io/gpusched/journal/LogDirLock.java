package io.gpusched.journal;

import io.gpusched.model.LogDirInUseException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/**
 * One scheduler per log directory: an exclusive OS lock ({@code fcntl}) on {@code <log-dir>/gpusched.lock},
 * held for the whole run, with the holder's pid written in the file for the message a second one
 * gets. The kernel drops the lock when its process dies however it dies, so a stale file never blocks;
 * the file itself is left in place (removing it could let a third scheduler lock a fresh file while a
 * second still holds the old one).
 *
 * <p>Beside the journal it guards, and public for the other executors of a log directory (the Slurm
 * executor takes the same lock, so a local run and a Slurm run, or two of either, never share one journal
 * at once).
 */
public final class LogDirLock implements AutoCloseable {
    /** The lock file's name in the log directory. */
    public static final String FILE = "gpusched.lock";
    private final FileChannel channel;
    private final FileLock lock;

    private LogDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * @param logDir the log directory, created if missing
     * @return the held lock
     * @throws LogDirInUseException if another scheduler (in any process, this one included) holds it
     * @throws JournalException if the directory or lock file cannot be created
     */
    public static LogDirLock acquire(Path logDir) {
        Path file = logDir.resolve(FILE);
        FileChannel ch;
        try {
            Files.createDirectories(logDir);
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new JournalException("cannot use log directory " + logDir + ": " + why(e), e);
        }
        try {
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null; // held by another scheduler in this JVM
            }
            if (lock == null) {
                OptionalLong holder = holder(ch);
                ch.close();
                throw new LogDirInUseException(logDir, holder);
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            return new LogDirLock(ch, lock);
        } catch (IOException e) {
            closeQuietly(ch);
            throw new JournalException("cannot lock log directory " + logDir + ": " + e.getMessage(), e);
        }
    }

    /** NIO names only the path for these two; say what it means. */
    private static String why(IOException e) {
        if (e instanceof java.nio.file.FileAlreadyExistsException) {
            return "something that is not a directory is in the way";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage();
    }

    private static OptionalLong holder(FileChannel ch) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(32);
        int n = ch.read(b, 0);
        if (n <= 0) {
            return OptionalLong.empty(); // the holder has locked but not yet written its pid
        }
        try {
            return OptionalLong.of(Long.parseLong(new String(b.array(), 0, n, StandardCharsets.US_ASCII).strip()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Releases the lock; the file stays. */
    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel below releases it anyway
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // nothing left to do: the process's exit releases the lock
        }
    }
}

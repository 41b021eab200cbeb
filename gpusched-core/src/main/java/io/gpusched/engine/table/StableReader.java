package io.gpusched.engine.table;

import io.gpusched.jobs.JobsFileParser;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Decides, each time it is asked, which bytes of a file that people edit while it is read may be
 * taken: the stability rule documented on {@link JobsSource}. It only reads; what the bytes mean is
 * the caller's business, and the caller reports back whether it could use them ({@link #taken},
 * {@link #refused}), because only content that parsed may serve as the base for later appends.
 *
 * <p>Confined to one thread. Time comes from the injected ticker (nanoseconds, as
 * {@link System#nanoTime}), so tests can step it by hand.
 */
final class StableReader {
    /** What one look at the file gave. */
    sealed interface Look permits Unchanged, StillRefused, Take, Wait, Trouble {
    }

    /** The file is the one last taken whole (or a copy of its bytes): nothing to do. */
    record Unchanged() implements Look {
    }

    /** The file is the one last refused: already reported, nothing to do until it changes. */
    record StillRefused() implements Look {
    }

    /**
     * Bytes that may be taken.
     *
     * @param bytes the whole file, or its complete lines (up to and including the last newline)
     * @param stat the file's attributes when read
     * @param whole whether {@code bytes} is the whole file (so an unchanged stat later means unchanged content)
     */
    record Take(byte[] bytes, Stat stat, boolean whole) implements Look {
    }

    /** A change is seen but not settled; look again at {@link #settleNanos()}. */
    record Wait() implements Look {
    }

    /**
     * The file could not be stat'ed or read.
     *
     * @param message one line naming the file and the fix
     * @param report whether to report it now: it has lasted the quiet period, or nothing was ever
     *     taken (there is no queue to fall back on)
     */
    record Trouble(String message, boolean report) implements Look {
    }

    /**
     * What identifies one version of the file without reading it. Equality is written out, as the record
     * would make it: the made one is linked at its first call through {@code ObjectMethods}, several
     * milliseconds of interpreted method-handle work on every start (each start compares two stats).
     */
    record Stat(long size, FileTime modified, Object fileKey) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Stat s && size == s.size && Objects.equals(modified, s.modified)
                    && Objects.equals(fileKey, s.fileKey);
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(size) * 31 + Objects.hashCode(modified)) * 31 + Objects.hashCode(fileKey);
        }
    }

    /** A version seen but not yet taken, and since when (by the ticker). */
    private record Candidate(Stat stat, byte[] bytes, long since) {
    }

    /** A stat or read failure, and since when it lasts. */
    private record Problem(String message, long since) {
    }

    private static final long MIN_RECHECK_NANOS = 1_000_000;
    // The steady round allocates nothing it need not.
    private static final Look UNCHANGED = new Unchanged();
    private static final Look STILL_REFUSED = new StillRefused();
    private static final Look WAIT = new Wait();

    private final Path file;
    private final long quietNanos;
    private final LongSupplier ticker;
    private Stat takenWhole;
    private Stat refusedStat;
    /** The bytes last taken (always ending in a newline unless taken whole); null before the first. */
    private byte[] takenBytes;
    private Candidate candidate;
    private Problem problem;
    /** Ticker time at which a waiting change or problem can next be decided; empty when none waits. */
    private OptionalLong decideAt = OptionalLong.empty();

    /**
     * @param file the file to read
     * @param quiet how long a changed file must stay the same before it is taken; zero takes every
     *     change at once
     * @param ticker nanoseconds from an arbitrary origin, monotonic
     */
    StableReader(Path file, Duration quiet, LongSupplier ticker) {
        this.file = Objects.requireNonNull(file, "file");
        this.quietNanos = quiet.toNanos();
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        if (quietNanos < 0) {
            throw new IllegalArgumentException("quiet period must be >= 0, got " + io.gpusched.jobs.Units.formatDuration(quiet));
        }
    }

    /** @return what may be done with the file now */
    Look look() {
        long now = ticker.getAsLong();
        decideAt = OptionalLong.empty();
        Stat before;
        byte[] bytes;
        Stat after;
        try {
            before = stat();
            if (before.equals(takenWhole)) {
                return settled(UNCHANGED);
            }
            if (before.equals(refusedStat)) {
                return settled(STILL_REFUSED);
            }
            bytes = readBounded(file);
            after = stat();
        } catch (IOException e) {
            return trouble(describe(e), now);
        }
        problem = null;
        boolean overLimit = bytes.length > JobsFileParser.MAX_FILE_BYTES;
        if (!before.equals(after) || (bytes.length != after.size() && !overLimit)) {
            // Written while we read: these bytes may be a mix of two versions.
            candidate = null;
            return waitUntil(now + quietNanos);
        }
        if (takenBytes != null && Arrays.equals(bytes, takenBytes)) {
            // Rewritten with the same content (or touched): the new stat now means "unchanged".
            takenWhole = after;
            return settled(UNCHANGED);
        }
        boolean seenBefore = candidate != null && candidate.stat().equals(after) && Arrays.equals(candidate.bytes(), bytes);
        if (!seenBefore) {
            candidate = new Candidate(after, bytes, now);
        }
        if (quietNanos == 0 || seenBefore && now - candidate.since() >= quietNanos) {
            candidate = null;
            return new Take(bytes, after, true);
        }
        if (extendsTaken(bytes)) {
            int end = lastNewline(bytes) + 1;
            int takenLength = takenBytes == null ? 0 : takenBytes.length;
            if (end == bytes.length) {
                // Appended whole lines: nothing half-written can be among them.
                candidate = null;
                return new Take(bytes, after, true);
            }
            if (end > takenLength) {
                // Appended lines plus a last line still being typed: take the complete ones now.
                decideAt = OptionalLong.of(candidate.since() + quietNanos);
                return new Take(Arrays.copyOf(bytes, end), after, false);
            }
        }
        return waitUntil(candidate.since() + quietNanos);
    }

    /**
     * The caller used a {@link Take}: it becomes the base that later appends extend.
     *
     * @param t what was taken
     */
    void taken(Take t) {
        takenBytes = t.bytes();
        takenWhole = t.whole() ? t.stat() : null;
        refusedStat = null;
    }

    /**
     * The caller could not use a {@link Take} (it did not parse): the file is not read again until
     * its stat changes, and the last taken bytes stay the base.
     *
     * @param t what was refused
     */
    void refused(Take t) {
        refusedStat = t.stat();
        candidate = null;
        decideAt = OptionalLong.empty();
    }

    /** @return whether anything was ever taken */
    boolean everTaken() {
        return takenBytes != null;
    }

    /**
     * @return nanoseconds until a change or a problem seen by the last {@link #look()} can be
     *     decided (at least a millisecond); empty when nothing waits
     */
    OptionalLong settleNanos() {
        if (decideAt.isEmpty()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(MIN_RECHECK_NANOS, decideAt.getAsLong() - ticker.getAsLong()));
    }

    private Look settled(Look look) {
        candidate = null;
        problem = null;
        return look;
    }

    private Look waitUntil(long at) {
        decideAt = OptionalLong.of(at);
        return WAIT;
    }

    private Look trouble(String message, long now) {
        candidate = null;
        if (problem == null || !problem.message().equals(message)) {
            problem = new Problem(message, now);
        }
        // A save by rename leaves the file missing for a moment: only a problem that lasts is news.
        boolean report = takenBytes == null || now - problem.since() >= quietNanos;
        if (!report) {
            decideAt = OptionalLong.of(problem.since() + quietNanos);
        }
        return new Trouble(message, report);
    }

    /**
     * Whether {@code bytes} continues what was last taken: the old bytes are its prefix and ended
     * with a newline, so its complete lines are the old ones plus whole new ones. Before anything
     * was taken there is no queue to protect, so any content counts.
     */
    private boolean extendsTaken(byte[] bytes) {
        if (takenBytes == null) {
            return true;
        }
        int n = takenBytes.length;
        if (n > 0 && takenBytes[n - 1] != '\n' || bytes.length < n) {
            return false;
        }
        return Arrays.equals(bytes, 0, n, takenBytes, 0, n);
    }

    private static int lastNewline(byte[] bytes) {
        for (int i = bytes.length - 1; i >= 0; i--) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private Stat stat() throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        if (!a.isRegularFile()) {
            // Never opened: a FIFO's open blocks the loop until a writer comes (for good, once it is
            // unlinked), and a device like /dev/zero never ends.
            throw new NotRegular(a.isDirectory());
        }
        return new Stat(a.size(), a.lastModifiedTime(), a.fileKey());
    }

    /** The path names a directory, a FIFO, a device or a socket: nothing to read as a jobs file. */
    private static final class NotRegular extends IOException {
        private static final long serialVersionUID = 1L;
        private final boolean directory;

        NotRegular(boolean directory) {
            super(directory ? "a directory" : "not a regular file");
            this.directory = directory;
        }
    }

    private String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "jobs file " + file + " is missing (deleted, or moved away and not back yet); keeping the previous queue";
        }
        if (e instanceof AccessDeniedException) {
            return "jobs file " + file + " cannot be read: permission denied (fix with chmod u+r " + file
                    + "); keeping the previous queue";
        }
        if (e instanceof NotRegular n) {
            return "jobs file " + file + (n.directory ? " is a directory" : " is a FIFO, a device or a socket,"
                    + " not a regular file") + "; keeping the previous queue; put the jobs file back as a regular file";
        }
        return "jobs file " + file + " cannot be read (" + (e.getMessage() == null ? "I/O error" : e.getMessage())
                + "); keeping the previous queue";
    }

    /**
     * Reads at most one byte more than the jobs-file limit: a runaway file costs bounded memory, and
     * the parser still sees that it is too big and says so.
     */
    private static byte[] readBounded(Path file) throws IOException {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(JobsFileParser.MAX_FILE_BYTES + 1);
        }
    }
}

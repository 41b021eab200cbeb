package io.gpusched.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The append-only {@code journal.jsonl}: the scheduler's only persistent state. Loading tolerates a
 * torn or garbage line (skipped, with one warning) and unknown event types from newer versions.
 * Appends are written and forced to disk before {@link #append} returns, so anything the scheduler
 * reported having done survives a crash. When the disk refuses a write, the events are still folded
 * and kept queued in memory, and written first when the disk accepts writes again. Owned by one thread.
 *
 * <p>Why this file is longer than most: opening (recovering a torn tail), appending, retrying after a
 * refused write and compacting all move the same file and its in-memory state; split, each part would
 * need the others' invariants.
 */
public final class Journal implements JournalStore {
    private final Path path;
    private final JournalCodec codec = new JournalCodec();
    private JournalState state = new JournalState();
    private final List<String> loadWarnings = new ArrayList<>();
    private FileChannel channel;

    /** Stamps appended lines with their time; empty: lines say no time (tests, tools). */
    private final Optional<InstantSource> clock;

    private Journal(Path path, Optional<InstantSource> clock) {
        this.path = path;
        this.clock = clock;
    }

    /**
     * Opens (creating directories as needed) and folds the journal.
     *
     * @param path the journal file, usually {@code <log-dir>/journal.jsonl}
     * @param fresh delete the existing journal first ({@code --fresh})
     * @return the open journal
     * @throws JournalException if the file cannot be read, created or deleted
     */
    public static Journal open(Path path, boolean fresh) {
        return open(path, fresh, Optional.empty());
    }

    /**
     * Opens as {@link #open(Path, boolean)}, and from now on every line appended says when it was written
     * ({@code at_ms}, read from {@code clock}), which {@code gpusched stats} reads; a compaction's lines say
     * no time, since what they fold happened at many.
     *
     * @param path the journal file, usually {@code <log-dir>/journal.jsonl}
     * @param fresh delete the existing journal first ({@code --fresh})
     * @param clock the scheduler's clock
     * @return the open journal
     * @throws JournalException if the file cannot be read, created or deleted
     */
    public static Journal open(Path path, boolean fresh, InstantSource clock) {
        return open(path, fresh, Optional.of(clock));
    }

    private static Journal open(Path path, boolean fresh, Optional<InstantSource> clock) {
        Journal j = new Journal(path, clock);
        try {
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            if (fresh) {
                Files.deleteIfExists(path);
            }
            // A compaction cut short before its rename: the journal itself is still whole and authoritative.
            Files.deleteIfExists(compactFile(path));
            if (Files.exists(path)) {
                j.load();
            }
            j.channel = openForAppend(path);
        } catch (IOException e) {
            throw new JournalException("cannot open journal " + path + ": " + e.getMessage(), e);
        }
        return j;
    }

    /**
     * A journal is created readable and writable by its owner only: it holds every submitter's
     * environment (API tokens included), which no other user may read.
     */
    private static final java.nio.file.attribute.FileAttribute<?> PRIVATE = java.nio.file.attribute.PosixFilePermissions
            .asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

    private static FileChannel openForAppend(Path path) throws IOException {
        return FileChannel.open(path, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND), PRIVATE);
    }

    /** Folds the file's good events; bad lines only cost a warning. */
    private void load() throws IOException {
        JournalReader.Result r = JournalReader.read(path, codec, e -> state.apply(e.event()));
        loadWarnings.addAll(r.warnings());
        // A torn last line: start the next append on a fresh line so it is not glued to the fragment.
        pendingNewline = r.endsMidLine();
    }

    private boolean pendingNewline;

    /** @return the folded state (live: it follows every append) */
    @Override
    public JournalState state() {
        return state;
    }

    /** @return one-line warnings from loading (skipped or unknown lines); empty when clean */
    @Override
    public List<String> loadWarnings() {
        return List.copyOf(loadWarnings);
    }

    /** @return the journal file's size in bytes, as written so far */
    @Override
    public long sizeBytes() {
        try {
            return channel.size();
        } catch (IOException e) {
            return 0;
        }
    }

    private static Path compactFile(Path path) {
        return path.resolveSibling(path.getFileName() + ".compact");
    }

    /**
     * Replaces the journal with {@code events} (a {@link Compaction} of its state), crash-safe at every
     * step: they are written to {@code journal.jsonl.compact} and forced, then renamed over the journal
     * in one atomic step, and the directory is forced. A crash before the rename leaves the old journal
     * (the leftover file is removed at the next open); after it, the new one. The state is then the
     * fold of {@code events}.
     *
     * @param events the events of the new journal
     * @throws JournalException if it cannot be done; the journal is then as it was
     */
    @Override
    public void rewrite(List<? extends JournalEvent> events) {
        if (behind()) {
            throw new JournalException("cannot compact " + path + " while the disk refuses its writes", null);
        }
        force();
        Path tmp = compactFile(path);
        StringBuilder sb = new StringBuilder();
        JournalState folded = new JournalState();
        for (JournalEvent e : events) {
            sb.append(codec.encode(e)).append('\n');
            folded.apply(e);
        }
        try {
            try (FileChannel out = FileChannel.open(tmp, java.util.Set.of(StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), PRIVATE)) {
                ByteBuffer buf = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
                while (buf.hasRemaining()) {
                    out.write(buf);
                }
                out.force(true);
            }
            Files.move(tmp, path, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the next open removes it
            }
            throw new JournalException("cannot compact " + path + ": " + e.getMessage() + "; it is kept as it was", e);
        }
        // The old channel still points at the replaced file: from here on, the new one.
        try {
            channel.close();
            if (path.getParent() != null) {
                try (FileChannel dir = FileChannel.open(path.getParent(), StandardOpenOption.READ)) {
                    dir.force(true);
                }
            }
            channel = openForAppend(path);
        } catch (IOException e) {
            throw new JournalException("cannot reopen " + path + " after compacting it: " + e.getMessage(), e);
        }
        state = folded;
        pendingNewline = false;
    }

    /** @return the journal file */
    @Override
    public Path path() {
        return path;
    }

    /**
     * Appends events as lines, folds them in, and forces them to disk, together with any earlier
     * {@link #appendUnforced} writes, in one {@code fsync}.
     *
     * @param events events to record, in order
     * @throws JournalException if writing or forcing fails (disk full, read-only); the events are folded
     *     all the same and kept in memory, and every later {@link #append}/{@link #force} writes them
     *     first, in order — see {@link #behind()}
     */
    @Override
    public void append(List<? extends JournalEvent> events) {
        appendUnforced(events);
        force();
    }

    /**
     * Folds events in and writes them as lines (one {@code write}) without forcing them to disk: a
     * group of appends then shares one {@code fsync} at {@link #force()}. The caller must call
     * {@link #force()} before it reports or acts on anything these events record.
     *
     * <p>The fold happens first and always: the state must follow what the scheduler did (a job that
     * ended must not be dispatched again because the disk was full when its end was recorded). Bytes
     * the disk refused stay queued, in order, and are written before anything newer.
     *
     * @param events events to record, in order
     * @throws JournalException if writing fails; the events are folded and queued all the same
     */
    @Override
    public void appendUnforced(List<? extends JournalEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        ByteBuffer bytes = lines(events);
        pendingNewline = false;
        for (JournalEvent e : events) {
            state.apply(e);
        }
        backlog.add(bytes);
        writeBacklog();
    }

    /**
     * Appends one event only if the file takes its whole line now, without forcing it (as
     * {@link #appendUnforced}): what a caller promises nothing about until it is written, such as a
     * submission that can still be refused. When the disk refuses, the file is cut back to where it was
     * and the event is neither folded nor queued: the journal and its state are as if it had never been
     * appended (its display number, say, stays free).
     *
     * @param event the event
     * @throws JournalException if the disk refuses the line, or earlier events still wait for the disk
     *     ({@link #behind()}: this one may not overtake them); then nothing changed
     */
    @Override
    public void appendOrNothing(JournalEvent event) {
        if (behind()) {
            throw new JournalException("cannot write journal " + path + ": earlier events still wait for the disk", null);
        }
        ByteBuffer bytes = lines(List.of(event));
        long size;
        try {
            size = channel.size();
        } catch (IOException e) {
            throw new JournalException("cannot write journal " + path + ": " + e.getMessage(), e);
        }
        try {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        } catch (IOException e) {
            try {
                channel.truncate(size);
            } catch (IOException cut) {
                // The line's head stays: the next line starts on a fresh one, and loading skips the fragment.
                pendingNewline = true;
            }
            throw new JournalException("cannot write journal " + path + ": " + e.getMessage(), e);
        }
        pendingNewline = false;
        unforced = true;
        state.apply(event);
    }

    /** Encodes events as lines, after the newline a torn last line needs; stamped with the clock's time. */
    private ByteBuffer lines(List<? extends JournalEvent> events) {
        StringBuilder sb = new StringBuilder();
        if (pendingNewline) {
            sb.append('\n');
        }
        OptionalLong at = clock.map(c -> OptionalLong.of(c.millis())).orElse(OptionalLong.empty());
        for (JournalEvent e : events) {
            sb.append(codec.encode(new JournalEntry(e, at))).append('\n');
        }
        return ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes whatever the disk refused before, then forces every write since the last force to disk
     * (one {@code fsync}); does nothing when there is none.
     *
     * @throws JournalException if the disk refuses; nothing is lost from memory, and the next force
     *     tries again
     */
    @Override
    public void force() {
        writeBacklog();
        if (!unforced) {
            return;
        }
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new JournalException("cannot write journal " + path + ": " + e.getMessage(), e);
        }
        unforced = false;
        forces++;
    }

    @Override
    public Optional<PendingForce> beginForce() {
        writeBacklog();
        if (!unforced) {
            return Optional.empty();
        }
        unforced = false;
        forcesInFlight++;
        return Optional.of(new ChannelForce());
    }

    @Override
    public void endForce(PendingForce done) {
        if (!(done instanceof ChannelForce f) || f.ended) {
            throw new IllegalStateException("not a force this journal handed over, or ended twice");
        }
        f.ended = true;
        forcesInFlight--;
        if (f.failure != null) {
            // The writes it was to force may not be on disk: the next force does them again.
            unforced = true;
            throw new JournalException("cannot write journal " + path + ": " + f.failure.getMessage(), f.failure);
        }
        forces++;
    }

    /** The fsync of {@link #beginForce}: the channel's force, run on another thread; its failure kept for the owner. */
    private final class ChannelForce implements PendingForce {
        private volatile IOException failure;
        private boolean ended;

        @Override
        public void sync() {
            try {
                channel.force(false);
            } catch (IOException e) {
                failure = e;
            }
        }
    }

    /** Forces handed over and not yet ended: while there are any, the writes they cover count as unforced. */
    private int forcesInFlight;

    /** @return how many times {@link #force()} forced appends to disk (one {@code fsync} each) since this was opened */
    @Override
    public long forces() {
        return forces;
    }

    private long forces;

    /**
     * A write that fails part-way leaves its head in the file; the tail is written next time, so the
     * line ends up whole and nothing is written twice.
     */
    private void writeBacklog() {
        try {
            while (!backlog.isEmpty()) {
                ByteBuffer buf = backlog.peekFirst();
                while (buf.hasRemaining()) {
                    channel.write(buf);
                    unforced = true;
                }
                backlog.removeFirst();
            }
        } catch (IOException e) {
            throw new JournalException("cannot write journal " + path + ": " + e.getMessage(), e);
        }
    }

    /** @return whether some appended events are not yet forced to disk */
    @Override
    public boolean hasUnforced() {
        return unforced || forcesInFlight > 0 || !backlog.isEmpty();
    }

    /**
     * @return whether some folded events are not yet written to the file because the disk refused
     *     them; they are written by the next successful {@link #append} or {@link #force()}
     */
    @Override
    public boolean behind() {
        return !backlog.isEmpty();
    }

    private final ArrayDeque<ByteBuffer> backlog = new ArrayDeque<>();
    private boolean unforced;

    /**
     * Appends one event; see {@link #append(List)}.
     *
     * @param event the event
     */
    public void append(JournalEvent event) {
        append(List.of(event));
    }

    @Override
    public void close() {
        try {
            try {
                force();
            } catch (JournalException e) {
                // Already reported by the failing append; what is still queued is lost with this process,
                // and a restart recovers those jobs' outcomes from their exit-status files.
            }
            channel.close();
        } catch (IOException ignored) {
            // best effort: every reported event was forced when it was reported
        }
    }
}

package io.gpusched.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The append-only {@code journal.jsonl}: the scheduler's only persistent state. Loading tolerates a
 * torn or garbage line (skipped, with one warning) and unknown event types from newer versions.
 * Appends are written and forced to disk before {@link #append} returns, so anything the scheduler
 * reported having done survives a crash. Owned by one thread.
 */
public final class Journal implements AutoCloseable {
    private final Path path;
    private final JournalCodec codec = new JournalCodec();
    private final JournalState state = new JournalState();
    private final List<String> loadWarnings = new ArrayList<>();
    private FileChannel channel;

    private Journal(Path path) {
        this.path = path;
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
        Journal j = new Journal(path);
        try {
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            if (fresh) {
                Files.deleteIfExists(path);
            }
            if (Files.exists(path)) {
                j.load();
            }
            j.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new JournalException("cannot open journal " + path + ": " + e.getMessage(), e);
        }
        return j;
    }

    /** Folds the file's good events; bad lines only cost a warning. */
    private void load() throws IOException {
        JournalReader.Result r = JournalReader.read(path, codec, state::apply);
        loadWarnings.addAll(r.warnings());
        // A torn last line: start the next append on a fresh line so it is not glued to the fragment.
        pendingNewline = r.endsMidLine();
    }

    private boolean pendingNewline;

    /** @return the folded state (live: it follows every append) */
    public JournalState state() {
        return state;
    }

    /** @return one-line warnings from loading (skipped or unknown lines); empty when clean */
    public List<String> loadWarnings() {
        return List.copyOf(loadWarnings);
    }

    /** @return the journal file */
    public Path path() {
        return path;
    }

    /**
     * Appends events as lines, forces them to disk, then folds them in. Also forces any earlier
     * {@link #appendUnforced} writes, in the same {@code fsync}.
     *
     * @param events events to record, in order
     * @throws JournalException if writing fails (disk full, read-only); nothing is folded then
     */
    public void append(List<? extends JournalEvent> events) {
        appendUnforced(events);
        force();
    }

    /**
     * Writes events (one {@code write}) and folds them in, without forcing them to disk: a group of
     * appends then shares one {@code fsync} at {@link #force()}. The caller must call {@link #force()}
     * before it reports or acts on anything these events record.
     *
     * @param events events to record, in order
     * @throws JournalException if writing fails; nothing is folded then
     */
    public void appendUnforced(List<? extends JournalEvent> events) {
        if (events.isEmpty()) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        if (pendingNewline) {
            sb.append('\n');
        }
        for (JournalEvent e : events) {
            sb.append(codec.encode(e)).append('\n');
        }
        ByteBuffer buf = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
        try {
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        } catch (IOException e) {
            throw new JournalException("cannot write journal " + path + ": " + e.getMessage(), e);
        }
        unforced = true;
        pendingNewline = false;
        for (JournalEvent e : events) {
            state.apply(e);
        }
    }

    /**
     * Forces every write since the last force to disk (one {@code fsync}); does nothing when there is
     * none.
     *
     * @throws JournalException if the disk refuses; the events stay folded, and the next force tries again
     */
    public void force() {
        if (!unforced) {
            return;
        }
        try {
            channel.force(false);
        } catch (IOException e) {
            throw new JournalException("cannot write journal " + path + ": " + e.getMessage(), e);
        }
        unforced = false;
    }

    /** @return whether some appended events are not yet forced to disk */
    public boolean hasUnforced() {
        return unforced;
    }

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
            if (unforced) {
                channel.force(false);
            }
            channel.close();
        } catch (IOException ignored) {
            // best effort: every reported event was forced when it was reported
        }
    }
}

package io.gpusched.journal;

import java.nio.file.Path;
import java.util.List;

/**
 * A journal that only folds: for a run that keeps nothing (a simulation, whose journal would be thrown
 * away), every event goes into the same {@link JournalState} a {@link Journal} file's would, with no
 * encoding, write or fsync. Nothing is ever refused, unforced or behind; its size is 0, so it is never
 * compacted. Owned by one thread.
 */
public final class MemoryJournal implements JournalStore {
    private final Path path;
    private JournalState state = new JournalState();

    /** @param path the file it stands in for (named in messages and run tokens; never created) */
    public MemoryJournal(Path path) {
        this.path = path;
    }

    @Override
    public JournalState state() {
        return state;
    }

    @Override
    public List<String> loadWarnings() {
        return List.of();
    }

    @Override
    public long sizeBytes() {
        return 0;
    }

    @Override
    public Path path() {
        return path;
    }

    /** @return false: nothing reads its events back, only its state (no run reopens it, none compacts it) */
    @Override
    public boolean readBack() {
        return false;
    }

    @Override
    public void append(List<? extends JournalEvent> events) {
        appendUnforced(events);
    }

    @Override
    public void appendUnforced(List<? extends JournalEvent> events) {
        for (JournalEvent e : events) {
            state.apply(e);
        }
    }

    @Override
    public void appendOrNothing(JournalEvent event) {
        state.apply(event);
    }

    @Override
    public void force() {
        // nothing is written, so nothing is left to force
    }

    @Override
    public long forces() {
        return 0; // nothing is ever written, so nothing is forced
    }

    @Override
    public boolean hasUnforced() {
        return false;
    }

    @Override
    public boolean behind() {
        return false;
    }

    @Override
    public void rewrite(List<? extends JournalEvent> events) {
        JournalState folded = new JournalState();
        events.forEach(folded::apply);
        state = folded;
    }

    @Override
    public void close() {
        // nothing to let go of
    }
}

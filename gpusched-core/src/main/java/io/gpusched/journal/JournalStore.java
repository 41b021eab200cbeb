package io.gpusched.journal;

import java.nio.file.Path;
import java.util.List;

/**
 * Where the scheduler's journal goes: the {@link Journal} file, or {@link MemoryJournal} for a run that
 * keeps nothing (a simulation). Both fold every event into the same {@link JournalState}; only the file
 * writes, forces and can be refused by the disk. Owned by one thread; only the fsync of a
 * {@link #beginForce} may run on another.
 */
public interface JournalStore extends AutoCloseable {
    /** @return the folded state (live: it follows every append) */
    JournalState state();

    /** @return one-line warnings from loading (skipped or unknown lines); empty when clean */
    List<String> loadWarnings();

    /** @return the journal's size in bytes as written so far; 0 for one kept in memory */
    long sizeBytes();

    /** @return the journal file (for a journal in memory, the file it stands in for; never written) */
    Path path();

    /**
     * @return whether the events appended are read back as written: a file is, by the next run that
     *     opens it and by a compaction. A journal kept in memory never is: only its {@link #state()} is
     *     read, so what the state does not keep (a submission's {@link JournalEvent.Submitted#line()},
     *     which only a restart parses) need not be made for it.
     */
    default boolean readBack() {
        return true;
    }

    /**
     * Appends events, folds them in and forces them: see {@link Journal#append(List)}.
     *
     * @param events events to record, in order
     * @throws JournalException if the disk refuses; the events are folded all the same
     */
    void append(List<? extends JournalEvent> events);

    /**
     * Folds events in and writes them without forcing: see {@link Journal#appendUnforced}.
     *
     * @param events events to record, in order
     * @throws JournalException if the disk refuses; the events are folded and queued all the same
     */
    void appendUnforced(List<? extends JournalEvent> events);

    /**
     * Appends one event only if it can be written whole now: see {@link Journal#appendOrNothing}.
     *
     * @param event the event
     * @throws JournalException if it cannot; then nothing changed
     */
    void appendOrNothing(JournalEvent event);

    /**
     * Forces every write since the last force: see {@link Journal#force()}.
     *
     * @throws JournalException if the disk refuses
     */
    void force();

    /**
     * Starts forcing every write so far with its fsync left to another thread (issue #27: the loop goes on
     * with the next exit and start while the disk works): writes what the disk refused before, then
     * returns the fsync to run, or empty when nothing is unforced. Until {@link #endForce} is given the
     * result, {@link #hasUnforced()} stays true. A journal that cannot hand its fsync over forces here
     * and returns empty (the default; a journal kept in memory has nothing to force).
     *
     * @return the fsync to run on another thread, then to give to {@link #endForce}; empty when done here
     * @throws JournalException if the disk refuses the writes; nothing is lost from memory
     */
    default java.util.Optional<PendingForce> beginForce() {
        force();
        return java.util.Optional.empty();
    }

    /**
     * Ends a force begun by {@link #beginForce}, on the owning thread, after its fsync ran.
     *
     * @param done the pending force, its fsync run
     * @throws JournalException if its fsync failed: its writes count as unforced again, and the next force
     *     tries again
     */
    default void endForce(PendingForce done) {
        throw new IllegalStateException("no force was handed over");
    }

    /** An fsync handed to another thread by {@link #beginForce}: run it once, there, then end it with {@link #endForce}. */
    interface PendingForce {
        /** Runs the fsync (on any thread); a failure is kept for {@link #endForce}. */
        void sync();
    }

    /** @return how many fsyncs forced appended lines to disk since this was opened; 0 for a journal kept in memory */
    long forces();

    /** @return whether some appended events are not yet forced */
    boolean hasUnforced();

    /** @return whether some folded events are not yet written because the disk refused them */
    boolean behind();

    /**
     * Replaces the journal with {@code events} (a {@link Compaction} of its state): see
     * {@link Journal#rewrite}. The state is then the fold of {@code events}.
     *
     * @param events the events of the new journal
     * @throws JournalException if it cannot be done; the journal is then as it was
     */
    void rewrite(List<? extends JournalEvent> events);

    /** Forces what is left, best effort, and lets go of the file. */
    @Override
    void close();
}

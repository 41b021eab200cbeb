package io.gpusched.engine;

import io.gpusched.SchedulerEvent;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalException;
import io.gpusched.journal.JournalState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The loop's journal writes. Inside a group (one drain of the inbox) appends are not forced one by
 * one: what must follow the fsync — reports, futures, run-file removals — waits until
 * {@link #endGroup()} forces them all at once. When the disk refuses a write, that is said once, every
 * event stays folded and queued in order, and {@link #failing()} tells the planner to start nothing
 * until a write succeeds. Also counts changes to the journal, which the planner compares to skip work.
 */
final class Durability {
    private final Journal journal;
    private final RunFiles runFiles;
    private final Reporter reporter;
    private final Runnable onFailure;
    private boolean grouping;
    private final List<Runnable> afterForce = new ArrayList<>();
    /** Why the journal cannot be written, while it cannot. */
    private Optional<String> failing = Optional.empty();
    private long changes;
    /** The journal's size right after the last compaction, in bytes. */
    private long compactedBytes;
    /** The loop's thread: the only one that may touch scheduler state (checked under -ea, as in tests). */
    private final Thread owner = Thread.currentThread();

    /**
     * Built on the loop's thread, which it then holds to.
     *
     * @param onFailure called when writes start failing (the loop re-plans at once, to say why nothing starts)
     */
    Durability(Journal journal, RunFiles runFiles, Reporter reporter, Runnable onFailure) {
        this.journal = journal;
        this.runFiles = runFiles;
        this.reporter = reporter;
        this.onFailure = onFailure;
    }

    JournalState state() {
        return journal.state();
    }

    /** @return a count that moves with every event recorded and every {@link #changed()} */
    long changes() {
        return changes;
    }

    /** Notes a change the planner must see that is not a journal event (a job left the running set). */
    void changed() {
        changes++;
    }

    Optional<String> failing() {
        return failing;
    }

    boolean grouping() {
        return grouping;
    }

    /** Appends events: forced at once, or inside a group with the group's fsync. */
    void record(List<JournalEvent> events) {
        assert Thread.currentThread() == owner : "journal written from " + Thread.currentThread().getName();
        try {
            if (grouping) {
                journal.appendUnforced(events);
            } else {
                journal.append(events);
            }
        } catch (JournalException e) {
            failed(e);
        }
        changes++;
    }

    /**
     * Writes one event to the file without forcing it.
     *
     * @return false when the disk refused it (said once; the event stays folded and queued)
     */
    boolean appendUnforced(JournalEvent e) {
        try {
            journal.appendUnforced(List.of(e));
            return true;
        } catch (JournalException ex) {
            failed(ex);
            return false;
        } finally {
            changes++;
        }
    }

    /** Forces what was appended; a refusal is said once and the events stay queued. */
    void force() {
        try {
            journal.force();
        } catch (JournalException e) {
            failed(e);
        }
    }

    /**
     * Runs what must wait for the journal's fsync: at once, or, inside a group, after the group's one
     * fsync. Reports, futures and run-file removals go through here.
     */
    void afterDurable(Runnable action) {
        assert Thread.currentThread() == owner : "loop state touched from " + Thread.currentThread().getName();
        if (grouping) {
            afterForce.add(action);
        } else {
            action.run();
        }
    }

    /**
     * A run's pid and exit files prove its outcome to a restarted scheduler until the journal does:
     * they go only once the line that records the outcome is on disk, and stay while the disk refuses
     * writes.
     */
    void removeRunFilesOnceDurable(int no, long run) {
        afterDurable(() -> {
            if (!journal.behind()) {
                runFiles.remove(no, run);
            }
        });
    }

    void beginGroup() {
        grouping = true;
    }

    void endGroup() {
        grouping = false;
        if (journal.hasUnforced()) {
            force();
        }
        List<Runnable> held = List.copyOf(afterForce);
        afterForce.clear();
        held.forEach(Runnable::run);
    }

    /**
     * Compacts the journal when it has grown past {@code thresholdBytes} and to twice its size after the
     * last compaction: its folded state written back,
     * crash-safely, keeping the most recent {@code keepEndedSubmissions} ended submissions. Never while
     * writes fail or inside a group. A compaction that fails is said once; the journal stays as it was.
     */
    void compactIfLarger(long thresholdBytes, int keepEndedSubmissions) {
        if (grouping || failing.isPresent()) {
            return;
        }
        long before = journal.sizeBytes();
        // Past the threshold, and doubled since the last compaction: when the state itself is larger than
        // the threshold, compacting every round would rewrite it for nothing.
        if (before <= thresholdBytes || before <= 2 * compactedBytes) {
            return;
        }
        try {
            journal.rewrite(io.gpusched.journal.Compaction.of(journal.state(), keepEndedSubmissions));
        } catch (JournalException e) {
            reporter.warnOnce(e.getMessage());
            return;
        }
        changes++;
        compactedBytes = journal.sizeBytes();
        reporter.emit(new SchedulerEvent.JournalCompacted(reporter.now(), before, compactedBytes));
    }

    /** While writes fail, tries to write what is queued; says so when the disk takes it again. */
    void retry() {
        if (failing.isEmpty()) {
            return;
        }
        try {
            journal.force();
        } catch (JournalException e) {
            return;
        }
        failing = Optional.empty();
        changes++;
        reporter.emit(new SchedulerEvent.Warning(reporter.now(), "journal " + journal.path() + " is writable again;"
                + " every queued event was written and dispatch resumes"));
    }

    /**
     * The disk refused a journal write: say so once, keep every event in memory (the state already
     * follows them), keep tracking running jobs, and start nothing new until a write succeeds.
     */
    private void failed(JournalException e) {
        if (failing.isEmpty()) {
            failing = Optional.of(e.getMessage());
            onFailure.run();
            reporter.emit(new SchedulerEvent.Warning(reporter.now(), e.getMessage() + " — running jobs keep running and"
                    + " are tracked; no new job starts until the journal can be written; nothing recorded is lost meanwhile"));
        }
    }
}

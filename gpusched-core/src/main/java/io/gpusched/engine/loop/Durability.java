package io.gpusched.engine.loop;

import io.gpusched.engine.queue.Submissions;
import io.gpusched.engine.spawn.RunFiles;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.journal.JournalStore;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalException;
import io.gpusched.journal.JournalState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The loop's journal writes. Inside a group (one drain of the inbox) appends are not forced one by
 * one: what must follow the fsync — reports, futures, run-file removals — waits until
 * {@link #endGroup()} forces them all at once. When the disk refuses a write, that is said once, every
 * event stays folded and queued in order, and {@link #failing()} tells the planner to start nothing
 * until a write succeeds. Also counts changes to the journal, which the planner compares to skip work.
 *
 * <p>A submission is different: it is written only if the disk takes its line ({@link #recordSubmission}),
 * else refused with nothing recorded and its number still free; and its number is given only once its
 * line is forced ({@link #acknowledge}).
 */
public final class Durability {
    private final JournalStore journal;
    private final RunFiles runFiles;
    private final Reporter reporter;
    private final LoopClock clock;
    private final Runnable onFailure;
    private boolean grouping;
    private final List<Runnable> afterForce = new ArrayList<>();
    /** Submissions' numbers to give once the journal is forced: this group's, or held while forcing fails. */
    private final List<Acknowledgement> unacknowledged = new ArrayList<>();
    /** Whether the last submission was refused (said once, until one is taken again). */
    private boolean refusingSubmissions;
    /** Why the journal cannot be written, while it cannot. */
    private Optional<String> failing = Optional.empty();
    /** ... and the operating system's words for it, e.g. {@code No space left on device}. */
    private String failingCause = "";
    private long changes;
    /** The journal's size right after the last compaction, in bytes. */
    private long compactedBytes;
    /** The force handed to {@link #syncer} and not yet ended on this thread, with what waits for it; at most one. */
    private Optional<InFlight> inFlight = Optional.empty();
    private long flights;
    /** Runs handed-over fsyncs, one at a time; made at the first, shut down by {@link #close()}. */
    private final java.util.function.Supplier<java.util.concurrent.ExecutorService> syncers;
    private java.util.concurrent.ExecutorService syncer;

    /** A force run elsewhere: its number, the fsync, its end, and what waits for it, in order. */
    private record InFlight(long no, JournalStore.PendingForce force, java.util.concurrent.Future<?> done,
                            List<Runnable> actions) {
    }

    /** The loop's thread: the only one that may touch scheduler state (checked under -ea, as in tests). */
    private final Thread owner = Thread.currentThread();

    /**
     * Built on the loop's thread, which it then holds to.
     *
     * @param onFailure called when writes start failing (the loop re-plans at once, to say why nothing starts)
     */
    public Durability(JournalStore journal, RunFiles runFiles, Reporter reporter, LoopClock clock, Runnable onFailure) {
        this(journal, runFiles, reporter, clock, onFailure, () -> java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "gpusched-journal-sync");
            t.setDaemon(true);
            return t;
        }));
    }

    /**
     * As the public constructor, with the executor that runs handed-over fsyncs given (tests hold them).
     *
     * @param syncers makes the single-thread executor for {@link #endGroupLater}, once, at its first use
     */
    Durability(JournalStore journal, RunFiles runFiles, Reporter reporter, LoopClock clock, Runnable onFailure,
               java.util.function.Supplier<java.util.concurrent.ExecutorService> syncers) {
        this.syncers = syncers;
        this.journal = journal;
        this.runFiles = runFiles;
        this.reporter = reporter;
        this.clock = clock;
        this.onFailure = onFailure;
    }

    public JournalState state() {
        return journal.state();
    }

    /** @return how many fsyncs forced appended lines to the journal since it was opened */
    public long forces() {
        return journal.forces();
    }

    /** @return a count that moves with every event recorded and every {@link #changed()} */
    public long changes() {
        return changes;
    }

    /** Notes a change the planner must see that is not a journal event (a job left the running set). */
    public void changed() {
        changes++;
    }

    /** @return whether the journal's events are read back as written ({@link JournalStore#readBack}) */
    public boolean readBack() {
        return journal.readBack();
    }

    public Optional<String> failing() {
        return failing;
    }

    /**
     * @return whether what is reported now must wait: a group is open, or a force handed over by
     *     {@link #endGroupLater} is not yet done (a report then may not overtake those it holds)
     */
    public boolean holding() {
        return grouping || inFlight.isPresent();
    }

    /** @return whether a group is open: appends wait for its one fsync, and reports with them */
    public boolean grouping() {
        return grouping;
    }

    /**
     * @return whether a submission's number waits for this group's fsync: its client is owed an answer
     *     as soon as its line is durable, so such a group is not kept open across a round
     */
    public boolean owesAcknowledgements() {
        return !unacknowledged.isEmpty();
    }

    /** Appends events: forced at once, or inside a group with the group's fsync. */
    public void record(List<JournalEvent> events) {
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
    public boolean appendUnforced(JournalEvent e) {
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
    public void force() {
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
    public void afterDurable(Runnable action) {
        assert Thread.currentThread() == owner : "loop state touched from " + Thread.currentThread().getName();
        if (grouping) {
            afterForce.add(action);
        } else if (inFlight.isPresent()) {
            // Its own lines are forced already; it waits only so as not to overtake what the force in flight holds.
            inFlight.get().actions().add(action);
        } else {
            action.run();
        }
    }

    /**
     * Journals a submission's line only if the disk takes it whole now (forced with the group, or at
     * once outside one). While earlier writes wait for the disk it first tries them again; if the disk
     * still refuses, the submission is refused without being tried (it may not overtake them).
     *
     * @return empty when written; else the refusal to fail the submission with: then nothing of it is in
     *     the journal or its state, so its display number stays free for the next
     */
    public Optional<io.gpusched.model.JournalUnwritableException> recordSubmission(JournalEvent.Submitted event) {
        assert Thread.currentThread() == owner : "journal written from " + Thread.currentThread().getName();
        retry();
        if (failing.isPresent()) {
            return Optional.of(refused(failingCause));
        }
        try {
            journal.appendOrNothing(event);
        } catch (JournalException e) {
            return Optional.of(refused(e.getCause() == null ? e.getMessage() : String.valueOf(e.getCause().getMessage())));
        }
        changes++;
        if (refusingSubmissions) {
            refusingSubmissions = false;
            reporter.emit(new SchedulerEvent.Warning(clock.now(), "journal " + journal.path()
                    + " takes submissions again"));
        }
        if (!grouping) {
            force();
        }
        return Optional.empty();
    }

    private io.gpusched.model.JournalUnwritableException refused(String cause) {
        io.gpusched.model.JournalUnwritableException e = new io.gpusched.model.JournalUnwritableException(journal.path(), cause);
        if (!refusingSubmissions) {
            refusingSubmissions = true;
            reporter.emit(new SchedulerEvent.Warning(clock.now(), "journal " + journal.path() + " cannot be written ("
                    + cause + "): submissions are refused until it can be; running jobs are not affected"));
        }
        return e;
    }

    /**
     * Gives a submission its number once its line is forced to disk: after the group's fsync, or at once
     * outside a group when nothing is left unforced. While the disk refuses to force it (the line was
     * written but the fsync failed), the number is held until a {@link #retry()} forces it; the
     * submission stays queued, as its line may well be in the file.
     */
    public void acknowledge(CompletableFuture<Integer> accepted, int no) {
        assert Thread.currentThread() == owner : "loop state touched from " + Thread.currentThread().getName();
        unacknowledged.add(new Acknowledgement(accepted, no));
        if (!grouping) {
            acknowledgeIfForced();
        }
    }

    private void acknowledgeIfForced() {
        if (journal.hasUnforced() || unacknowledged.isEmpty()) {
            return;
        }
        List<Acknowledgement> forced = List.copyOf(unacknowledged);
        unacknowledged.clear();
        forced.forEach(a -> a.accepted().complete(a.no()));
    }

    /**
     * The scheduler stops with numbers still held (their lines never forced): their submitters learn
     * that they were not told a number, rather than wait on a scheduler that is gone.
     */
    public void abandonUnacknowledged() {
        joinInFlight();
        if (!unacknowledged.isEmpty()) {
            force();
            acknowledgeIfForced();
        }
        for (Acknowledgement a : unacknowledged) {
            a.accepted().completeExceptionally(new io.gpusched.model.GpuschedException("the scheduler stopped before job "
                    + a.no() + "'s line could be forced to " + journal.path() + "; after a restart, gpusched queue shows"
                    + " whether it is queued"));
        }
        unacknowledged.clear();
    }

    /** A submission's number, to give once its line is forced. */
    private record Acknowledgement(CompletableFuture<Integer> accepted, int no) {
    }

    /**
     * A run's pid and exit files prove its outcome to a restarted scheduler until the journal does:
     * they go only once the line that records the outcome is on disk, and stay while the disk refuses
     * writes.
     */
    public void removeRunFilesOnceDurable(int no, long run) {
        if (!runFiles.onDisk()) {
            return; // a run on no disk (a simulation's) left no file: nothing to wait for, nothing to remove
        }
        afterDurable(() -> {
            if (!journal.behind()) {
                runFiles.remove(no, run);
            }
        });
    }

    public void beginGroup() {
        grouping = true;
    }

    public void endGroup() {
        // What an earlier group handed over goes first: its reports come before this group's.
        joinInFlight();
        grouping = false;
        if (journal.hasUnforced()) {
            force();
        }
        runHeld();
    }

    /**
     * Ends a group as {@link #endGroup} does, but hands its fsync to the journal's own thread and returns
     * at once (issue #27): the loop can take the next exit and start the next run while the disk works.
     * Every line of the group is in the file already (a SIGKILL of the scheduler loses none); what
     * waits for the fsync (reports, run-file removals, numbers owed) waits on, until the loop hears
     * {@code done} (an {@link Inbox.Forced} to post) or another group ends, which first waits for this one.
     * At most one force is handed over at a time. A journal that cannot hand its fsync over (one kept in
     * memory) ends the group here, as {@link #endGroup} does.
     *
     * @param done called on the journal's thread once the fsync has run, with the number to give {@link #forced}
     */
    public void endGroupLater(java.util.function.LongConsumer done) {
        joinInFlight();
        grouping = false;
        Optional<JournalStore.PendingForce> force;
        try {
            force = journal.beginForce();
        } catch (JournalException e) {
            failed(e);
            force = Optional.empty();
        }
        if (force.isEmpty()) {
            runHeld();
            return;
        }
        if (syncer == null) {
            syncer = syncers.get();
        }
        long no = ++flights;
        JournalStore.PendingForce f = force.get();
        List<Runnable> held = new ArrayList<>(afterForce);
        afterForce.clear();
        java.util.concurrent.Future<?> ran = syncer.submit(() -> {
            f.sync();
            done.accept(no);
        });
        inFlight = Optional.of(new InFlight(no, f, ran, held));
    }

    /**
     * The force handed over as {@code no} has run (the loop heard {@link Inbox.Forced}): ends it and lets
     * what waited for it go. Nothing when it was ended already (another group waited for it).
     *
     * @param no the number {@link #endGroupLater} gave its {@code done}
     */
    public void forced(long no) {
        if (inFlight.isPresent() && inFlight.get().no() == no) {
            joinInFlight();
        }
    }

    /**
     * Waits for the force handed over, if one is, ends it, and runs what waited for it, in order, before
     * anything the loop does next. Those reports are older than anything now grouped, so they go at once.
     */
    private void joinInFlight() {
        if (inFlight.isEmpty()) {
            return;
        }
        InFlight f = inFlight.get();
        boolean interrupted = false;
        while (true) {
            try {
                f.done().get();
                break;
            } catch (InterruptedException e) {
                // An fsync is not abandoned half-way: wait it out, and keep the interrupt for the loop.
                interrupted = true;
            } catch (java.util.concurrent.ExecutionException e) {
                break; // sync() keeps its own failure; a task cannot fail otherwise
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        inFlight = Optional.empty();
        try {
            journal.endForce(f.force());
        } catch (JournalException e) {
            failed(e);
        }
        boolean wasGrouping = grouping;
        grouping = false;
        try {
            f.actions().forEach(Runnable::run);
            acknowledgeIfForced();
        } finally {
            grouping = wasGrouping;
        }
    }

    /** What a group held, now that its lines are forced (or the force failed and said so). */
    private void runHeld() {
        if (!afterForce.isEmpty()) {
            List<Runnable> held = List.copyOf(afterForce);
            afterForce.clear();
            held.forEach(Runnable::run);
        }
        acknowledgeIfForced();
    }

    /** Ends the force in flight, if any, and stops the thread that ran handed-over fsyncs (the run is over). */
    public void close() {
        joinInFlight();
        stopSyncer();
    }

    /** Lets the thread that ran handed-over fsyncs end (as the run ends, on any path; a force in flight still runs). */
    public void stopSyncer() {
        if (syncer != null) {
            syncer.shutdown();
            syncer = null;
        }
    }

    /**
     * Compacts the journal when it has grown past {@code thresholdBytes} and to twice its size after the
     * last compaction: its folded state written back,
     * crash-safely, keeping the most recent {@code keepEndedSubmissions} ended submissions. Never while
     * writes fail or inside a group. A compaction that fails is said once; the journal stays as it was.
     */
    public void compactIfLarger(long thresholdBytes, int keepEndedSubmissions) {
        if (grouping || inFlight.isPresent() || failing.isPresent()) {
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
        reporter.emit(new SchedulerEvent.JournalCompacted(clock.now(), before, compactedBytes));
    }

    /** While writes fail, tries to write what is queued; says so when the disk takes it again. */
    public void retry() {
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
        acknowledgeIfForced();
        reporter.emit(new SchedulerEvent.Warning(clock.now(), "journal " + journal.path() + " is writable again;"
                + " every queued event was written and dispatch resumes"));
    }

    /**
     * The disk refused a journal write: say so once, keep every event in memory (the state already
     * follows them), keep tracking running jobs, and start nothing new until a write succeeds.
     */
    private void failed(JournalException e) {
        if (failing.isEmpty()) {
            failing = Optional.of(e.getMessage());
            failingCause = e.getCause() == null ? e.getMessage() : String.valueOf(e.getCause().getMessage());
            onFailure.run();
            reporter.emit(new SchedulerEvent.Warning(clock.now(), e.getMessage() + " — running jobs keep running and"
                    + " are tracked; no new job starts until the journal can be written; nothing recorded is lost meanwhile"));
        }
    }
}

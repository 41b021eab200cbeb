package io.gpusched.engine.loop;

import io.gpusched.event.SchedulerEvent;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Puts the status files ({@link StatusBoardWriter}) off the loop's thread and paces them: the loop hands
 * each round's board over and goes on at once; a thread of this writer's renders and writes the newest
 * board, no sooner than {@link #MIN_INTERVAL_NANOS} after its last write. While jobs churn (a short job
 * ends and the next starts every few milliseconds) the files are so rewritten at most ten times a second
 * instead of twice per job, and the boards in between, which nobody could have read, are skipped. A board
 * after a pause is written at once; the newest board is never more than the interval (plus one write) old
 * on disk. The files are for people ({@code watch cat status.txt}) and {@code gpusched status}; the
 * journal, not the board, is the record, and every listener other than this one still sees every board.
 *
 * <p>The end of a run ({@link SchedulerEvent.RunFinished}) is written on the caller's thread, after the
 * newest board, before this returns: whoever waits for the run to end reads its last board.
 *
 * <p>A board of more than {@link #LOOP_THREAD_ROWS} jobs is written on the caller's thread at once, after
 * any write in progress, as before this writer existed: handing it over would keep two such boards alive
 * at a time (the one being written and the loop's newest), which at 100,000 queued was about 100 MiB more
 * resident memory in a daemon measured at 249 MiB (bench/queue/queue_rss.sh 100000), and is still about
 * 25 MiB more (223 against 196 to 199) now that {@link StatusBoardWriter} keeps the rows' bytes in its
 * files rather than in memory; and such a queue churns by submissions, whose boards the loop already
 * publishes only when a burst pauses.
 */
public final class PacedBoardWriter implements Consumer<SchedulerEvent> {
    /** The shortest time between two writes of the status files while boards keep coming: 100 ms. */
    public static final long MIN_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** The most jobs (running, pending and done) a board handed to the writer's thread lists: 2,000. */
    public static final int LOOP_THREAD_ROWS = 2_000;

    private final Consumer<SchedulerEvent> files;
    private final long minIntervalNanos;
    private final LongSupplier nanos;
    /** Guards {@link #owed} and {@link #flushing}; held only for a handover, never while writing. */
    private final Object handover = new Object();
    /** Held while the files are written: one writer at a time, and the newest board taken under it. */
    private final Object writing = new Object();
    private SchedulerEvent.StatusUpdated owed;
    private boolean flushing;
    /** When the files were last written (under {@link #writing}). */
    private long lastWrite;
    private boolean written;

    /** @param files what writes the files, called on one thread at a time: usually a {@link StatusBoardWriter} */
    public PacedBoardWriter(Consumer<SchedulerEvent> files) {
        this(files, MIN_INTERVAL_NANOS, System::nanoTime);
    }

    /** As the public constructor, with the interval and the clock given (tests). */
    PacedBoardWriter(Consumer<SchedulerEvent> files, long minIntervalNanos, LongSupplier nanos) {
        this.files = files;
        this.minIntervalNanos = minIntervalNanos;
        this.nanos = nanos;
    }

    @Override
    public void accept(SchedulerEvent event) {
        if (event instanceof SchedulerEvent.StatusUpdated s) {
            if (rows(s) > LOOP_THREAD_ROWS) {
                synchronized (writing) {
                    synchronized (handover) {
                        owed = s; // an older board handed over is superseded, not written after this one
                    }
                    writeOwed();
                }
                return;
            }
            synchronized (handover) {
                owed = s;
                if (flushing) {
                    return;
                }
                flushing = true;
            }
            Thread t = new Thread(this::flush, "gpusched-status-board");
            t.setDaemon(true);
            t.start();
        } else if (event instanceof SchedulerEvent.RunFinished) {
            synchronized (writing) {
                writeOwed();
                files.accept(event);
            }
        }
    }

    /** The writer thread: writes the newest board when the pace allows, until none is owed. */
    private static int rows(SchedulerEvent.StatusUpdated s) {
        return s.board().running().size() + s.board().pending().size() + s.board().done().size();
    }

    private void flush() {
        while (true) {
            synchronized (handover) {
                if (owed == null) {
                    flushing = false;
                    return;
                }
            }
            long wait;
            synchronized (writing) {
                wait = written ? lastWrite + minIntervalNanos - nanos.getAsLong() : 0;
            }
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            synchronized (writing) {
                writeOwed();
            }
        }
    }

    /** Writes the board owed, if one is; the caller holds {@link #writing}. */
    private void writeOwed() {
        SchedulerEvent.StatusUpdated s;
        synchronized (handover) {
            s = owed;
            owed = null;
        }
        if (s != null) {
            try {
                files.accept(s);
            } catch (RuntimeException e) {
                // The board is a convenience (StatusBoardWriter already keeps its own failures); the next one tries again.
            }
            lastWrite = nanos.getAsLong();
            written = true;
        }
    }
}

package io.gpusched.cli;

import io.gpusched.jobs.Notes;
import io.gpusched.protocol.GpuRow;
import io.gpusched.protocol.ListText;
import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What {@code gpusched top} shows of one {@code queue} answer: taken from the client's typed snapshot
 * so the renderer is a function of plain values (and tests build these directly). Text from jobs is
 * {@link DisplayWidth#clean}ed here.
 *
 * @param gpus the GPUs by index; empty before the daemon's first GPU reading
 * @param running running jobs by number
 * @param pending pending jobs in queue order
 * @param finished finished jobs, oldest first (an earlier run's, then this run's)
 */
record TopSnapshot(List<Gpu> gpus, List<Running> running, List<Pending> pending, List<Finished> finished) {
    TopSnapshot {
        gpus = List.copyOf(gpus);
        running = List.copyOf(running);
        pending = List.copyOf(pending);
        finished = List.copyOf(finished);
    }

    /**
     * @param index its index
     * @param totalMib its memory
     * @param usedMib memory in use by every process on it, ours and others'
     * @param utilPercent how busy it is, when known
     * @param healthy false when the backend lost it
     * @param paused whether it takes no new jobs
     */
    record Gpu(int index, long totalMib, long usedMib, OptionalInt utilPercent, boolean healthy, boolean paused) {
    }

    /**
     * @param no its number
     * @param owner whose it is ("" when the daemon does not say)
     * @param priority its priority
     * @param gpus its GPUs
     * @param currentMib what it holds now, by GPU
     * @param declaredMib its per-GPU declaration; empty when undeclared (or an older daemon)
     * @param elapsedSeconds how long it has run
     * @param stopping whether it is being stopped (cancelled, timed out, preempted)
     * @param command its command
     */
    record Running(int no, String owner, int priority, List<Integer> gpus, Map<Integer, Long> currentMib,
                   OptionalLong declaredMib, long elapsedSeconds, boolean stopping, String command) {
        Running {
            gpus = List.copyOf(gpus);
            currentMib = Map.copyOf(currentMib);
        }

        /** @return the most it holds on any one of its GPUs now: what compares with a per-GPU declaration */
        long usedMib() {
            return currentMib.values().stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    /**
     * @param no its number
     * @param owner whose it is ("" when not known)
     * @param priority its priority
     * @param declaredMib its per-GPU declaration, when it has one
     * @param reason why it waits ("" when not yet known)
     * @param command its command
     */
    record Pending(int no, String owner, int priority, OptionalLong declaredMib, String reason, String command) {
    }

    /**
     * @param no its number
     * @param owner whose it was ("" when not known)
     * @param status how it ended, e.g. {@code ok}, {@code failed_oom}
     * @param declaration the verdict on its declaration in the log's words ({@code within},
     *     {@code over-declared}, {@code under-declared}), or "" when none was judged
     * @param declaredMib its per-GPU declaration, when it had one
     * @param peakMib its largest per-GPU peak, 0 when never measured
     * @param command its command
     */
    record Finished(int no, String owner, String status, String declaration, OptionalLong declaredMib, long peakMib,
                    String command) {
    }

    /**
     * @param snapshot the {@code queue} answer's snapshot, as {@code GpuschedClient.queue()} reads it
     * @return what top shows of it, job texts cleaned for the terminal
     */
    static TopSnapshot of(io.gpusched.protocol.QueueView snapshot) {
        List<Gpu> gpus = new ArrayList<>();
        for (GpuRow g : snapshot.gpus()) {
            gpus.add(new Gpu(g.index(), g.totalMib(), g.usedMib(), g.utilPercent(), g.healthy(),
                    snapshot.pausedGpus().contains(g.index())));
        }
        QueueView.Board board = snapshot.board();
        List<Running> running = new ArrayList<>();
        for (Row.Running r : board.running()) {
            running.add(new Running(r.no(), owner(r), r.priority(), r.gpus(), r.currentMib(), r.declaredMib(),
                    Math.round(r.elapsedSeconds()), r.stopping().isPresent(),
                    where(r.cluster()) + text(r.command()) + notes(r.notes())));
        }
        List<Pending> pending = new ArrayList<>();
        for (Row.Pending p : board.pending()) {
            pending.add(new Pending(p.no(), owner(p), p.priority(), p.declaredMib(), text(p.reason()),
                    text(p.command()) + notes(p.notes())));
        }
        List<Finished> finished = new ArrayList<>();
        for (Row.Ended d : board.finished()) {
            finished.add(new Finished(d.no(), owner(d), d.status().journalName(),
                    d.declaration().orElse("").replace('_', '-'), d.declaredMib(), d.overallPeakMib(), text(d.command())));
        }
        return new TopSnapshot(gpus, running, pending, finished);
    }

    private static String owner(Row r) {
        return r.owner().map(TopSnapshot::text).orElse("");
    }

    /** Where a job handed to a cluster is there, before its command, as {@code queue} writes it. */
    private static String where(java.util.Optional<ListText> cluster) {
        return cluster.map(c -> "(" + text(c) + ") ").orElse("");
    }

    /**
     * A job's notes (its shown attributes, such as {@code comment=}) after its command in the command column,
     * each as a shell comment reads: {@code   # nightly sweep}.
     */
    private static String notes(Notes<ListText> notes) {
        StringBuilder b = new StringBuilder();
        for (Notes.Note<ListText> n : notes.all()) {
            b.append("  # ").append(text(n.text()));
        }
        return b.toString();
    }

    private static String text(ListText t) {
        return DisplayWidth.clean(t.text());
    }
}

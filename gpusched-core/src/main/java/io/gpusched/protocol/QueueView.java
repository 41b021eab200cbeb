package io.gpusched.protocol;

import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The queue as a {@code queue} answer carries it ({@code snapshot}): the scheduler's
 * {@link QueueSnapshot} as a list view, every row's texts cut ({@link Row}).
 *
 * @param at when the scheduler took it
 * @param board its jobs, list by list
 * @param pausedGpus the GPUs paused now, by index
 * @param orphans numbers of jobs a previous scheduler started that still run
 * @param gpus each GPU as the backend last reported it; empty before the first reading
 * @param memory each GPU's memory as placement counts it, in MiB; empty before the first reading
 */
public record QueueView(Instant at, Board board, List<Integer> pausedGpus, List<Integer> orphans, List<GpuRow> gpus,
                        List<QueueSnapshot.GpuMemory> memory) {
    /**
     * Copies the lists.
     *
     * @param at see {@link #at()}
     * @param board see {@link #board()}
     * @param pausedGpus see {@link #pausedGpus()}
     * @param orphans see {@link #orphans()}
     * @param gpus see {@link #gpus()}
     * @param memory see {@link #memory()}
     */
    public QueueView {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(board, "board");
        pausedGpus = List.copyOf(pausedGpus);
        orphans = List.copyOf(orphans);
        gpus = List.copyOf(gpus);
        memory = List.copyOf(memory);
    }

    /**
     * @param s a snapshot of the scheduler
     * @return it as a list view: every row of its board, texts cut; the paused GPUs in the snapshot's
     *     order
     */
    public static QueueView listed(QueueSnapshot s) {
        return listed(s, Board.listed(s.board()));
    }

    /**
     * @param s a snapshot of the scheduler
     * @param board the rows to carry instead of its board's (a part of them, or none)
     * @return its other fields as a list view, with that board
     */
    public static QueueView listed(QueueSnapshot s, Board board) {
        return new QueueView(s.at(), board, List.copyOf(s.pausedGpus()), s.orphans(),
                s.gpus().stream().map(GpuRow::listed).toList(), s.memory());
    }

    /**
     * @param b the board to carry instead
     * @return this view with that board
     */
    public QueueView withBoard(Board b) {
        return new QueueView(at, b, pausedGpus, orphans, gpus, memory);
    }

    /**
     * A queue's jobs, list by list ({@link BoardList}).
     *
     * @param running running jobs, by number
     * @param pending pending jobs in queue order
     * @param done jobs that ended in this run, by number
     * @param earlier jobs that had ended in an earlier run, by number
     * @param interrupted jobs the scheduler's stop interrupted, by number
     */
    public record Board(List<Row.Running> running, List<Row.Pending> pending, List<Row.Ended> done,
                        List<Row.Ended> earlier, List<Row.Interrupted> interrupted) {
        /** A board with no rows. */
        public static final Board EMPTY = new Board(List.of(), List.of(), List.of(), List.of(), List.of());

        /**
         * Copies the lists.
         *
         * @param running see {@link #running()}
         * @param pending see {@link #pending()}
         * @param done see {@link #done()}
         * @param earlier see {@link #earlier()}
         * @param interrupted see {@link #interrupted()}
         */
        public Board {
            running = List.copyOf(running);
            pending = List.copyOf(pending);
            done = List.copyOf(done);
            earlier = List.copyOf(earlier);
            interrupted = List.copyOf(interrupted);
        }

        /**
         * @param b a board as the scheduler holds it
         * @return its rows as a list view shows them
         */
        public static Board listed(StatusBoard b) {
            return new Board(b.running().stream().map(Row.Running::listed).toList(),
                    b.pending().stream().map(Row.Pending::listed).toList(),
                    b.done().stream().map(Row.Ended::listed).toList(),
                    b.earlier().stream().map(Row.Ended::listed).toList(),
                    b.interrupted().stream().map(Row.Interrupted::listed).toList());
        }

        /**
         * @param list one of the lists
         * @return its rows
         */
        public List<? extends Row> rows(BoardList list) {
            return switch (list) {
                case RUNNING -> running;
                case PENDING -> pending;
                case DONE -> done;
                case EARLIER -> earlier;
                case INTERRUPTED -> interrupted;
            };
        }

        /** @return the finished jobs, oldest first: an earlier run's, then this run's */
        public List<Row.Ended> finished() {
            List<Row.Ended> out = new java.util.ArrayList<>(earlier);
            out.addAll(done);
            return List.copyOf(out);
        }
    }
}

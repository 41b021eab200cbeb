package io.gpusched.cli;

import io.gpusched.protocol.ListText;
import io.gpusched.protocol.Row;
import io.gpusched.service.QueuePrinter;
import java.util.List;
import java.util.Optional;

/**
 * What {@code gpusched queue} shows of the service's snapshot: everyone's jobs or one user's
 * ({@code --user}), and the last {@link #RECENT} finished jobs or every one the snapshot holds
 * ({@code --all}). Filtered on the rows' {@code owner}: here, in the client, for {@code --json} and for a
 * daemon that prints no text; in the daemon, by {@link ServedQueueText}, for the text it prints. Either
 * way the same rows.
 *
 * @param user only this user's rows; empty for everyone's. A row without an owner matches no user
 * @param all every finished job rather than the last {@link #RECENT}
 */
record QueueView(Optional<String> user, boolean all) {
    /** How many finished jobs the queue shows without {@code --all}. */
    static final int RECENT = 10;

    /**
     * The rows shown, and how many finished jobs matched but were left out. Its lists are views where the
     * rows it was made from are (the daemon's: each row made as it is read), so a 100,000-job queue's
     * text is printed a slice at a time, none of its rows kept ({@link QueueText}, {@link QueueTable}).
     *
     * @param head the snapshot's fields other than its board (time, paused GPUs); its board is not read
     * @param running the running jobs shown
     * @param pending the pending jobs shown, in queue order
     * @param done the jobs that ended in this run shown, by number
     * @param earlier the jobs that ended in an earlier run shown, by number
     * @param interrupted the interrupted jobs shown
     * @param finished how many finished jobs matched the user (before the last-{@value #RECENT} cut)
     * @param leftOut how many of them are not shown ({@code --all} shows them)
     */
    record Shown(io.gpusched.protocol.QueueView head, List<Row.Running> running, List<Row.Pending> pending,
                 List<Row.Ended> done, List<Row.Ended> earlier, List<Row.Interrupted> interrupted, int finished,
                 int leftOut) {
        /** Every row of {@code view}'s board shown. */
        Shown(io.gpusched.protocol.QueueView view, int finished, int leftOut) {
            this(view, view.board().running(), view.board().pending(), view.board().done(), view.board().earlier(),
                    view.board().interrupted(), finished, leftOut);
        }

        /** @return the finished jobs shown: those that ended in an earlier run, then this run's */
        List<Row.Ended> finishedShown() {
            return joined(List.of(earlier, done));
        }

        /** @return the rows shown as a snapshot (made whole: for {@code --json}, in the client) */
        io.gpusched.protocol.QueueView snapshot() {
            return head.withBoard(new io.gpusched.protocol.QueueView.Board(running, pending, done, earlier, interrupted));
        }
    }

    /**
     * @param snapshot the {@code queue} answer's snapshot
     * @return what is shown of it
     */
    Shown apply(io.gpusched.protocol.QueueView snapshot) {
        return apply(QueuePrinter.Rows.of(snapshot));
    }

    /**
     * @param rows a queue's rows, as a printer reads them (in the daemon, views that make each row as read)
     * @return what is shown of them: views again, never a copy of every row
     */
    Shown apply(QueuePrinter.Rows rows) {
        List<Row.Ended> earlier = mine(rows.earlier());
        List<Row.Ended> done = mine(rows.done());
        // Finished: those that ended in an earlier run, then this run's; the oldest are left out.
        int finished = earlier.size() + done.size();
        int leftOut = all ? 0 : Math.max(0, finished - RECENT);
        return new Shown(rows.head(), mine(rows.running()), mine(rows.pending()),
                done.subList(Math.max(0, leftOut - earlier.size()), done.size()),
                earlier.subList(Math.min(leftOut, earlier.size()), earlier.size()), mine(rows.interrupted()), finished,
                leftOut);
    }

    /** The user's rows of a list: the list itself for everyone's, else a view of the matching ones. */
    private <R extends Row> List<R> mine(List<R> rows) {
        if (user.isEmpty()) {
            return rows;
        }
        int[] kept = new int[Math.min(rows.size(), 16)];
        int n = 0;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.get(i).owner().map(ListText::text).filter(user.get()::equals).isPresent()) {
                if (n == kept.length) {
                    kept = java.util.Arrays.copyOf(kept, n * 2);
                }
                kept[n++] = i;
            }
        }
        int[] at = kept;
        int size = n;
        return new java.util.AbstractList<>() {
            @Override
            public R get(int i) {
                java.util.Objects.checkIndex(i, size);
                return rows.get(at[i]);
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** @return the lists one after another, a view */
    static <R> List<R> joined(List<? extends List<? extends R>> lists) {
        int[] ends = new int[lists.size()];
        int total = 0;
        for (int i = 0; i < lists.size(); i++) {
            total += lists.get(i).size();
            ends[i] = total;
        }
        int size = total;
        return new java.util.AbstractList<>() {
            @Override
            public R get(int i) {
                java.util.Objects.checkIndex(i, size);
                int l = 0;
                while (i >= ends[l]) {
                    l++;
                }
                return lists.get(l).get(i - (l == 0 ? 0 : ends[l - 1]));
            }

            @Override
            public int size() {
                return size;
            }
        };
    }
}

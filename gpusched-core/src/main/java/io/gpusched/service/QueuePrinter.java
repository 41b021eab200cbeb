package io.gpusched.service;

import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Request;
import io.gpusched.protocol.Row;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Objects;

/**
 * The port through which a daemon prints the queue as {@code gpusched queue} does, for a client that asks
 * for text ({@link Request.Text}): the CLI hands its own printer to {@link ServiceServer#start(io.gpusched.Scheduler,
 * java.nio.file.Path, ServiceServer.Access, java.util.Optional, java.util.Optional, ServiceServer.Limits,
 * java.util.Optional)}, so what the text says stays the CLI's while the daemon's warm JIT renders it, and
 * the client, whose JIT is cold, only copies it out (issue #27). A service without one answers rows.
 *
 * <p>The text is never rendered whole: {@link #print} measures what the layout needs (a table's column
 * widths) and returns a {@link Text} whose slices (a line or a few each) are written one at a time, as
 * the client's socket takes them, from the snapshot's immutable rows. So a 100,000-job queue's text
 * costs the daemon one slice at a time, not its megabytes.
 */
@FunctionalInterface
public interface QueuePrinter {
    /**
     * Prepares the queue's text. Called on one of the service's threads, for one request; the text it
     * returns is then written from whichever thread writes the answer, a slice at a time.
     *
     * @param queue every row of the queue, texts cut as a list view cuts them, each row made when read
     * @param text the asking client's options, each within its bound; the {@code format} not yet parsed
     * @return the text, in slices
     * @throws IllegalArgumentException when the options cannot be printed (a {@code format} the printer's
     *     parser refuses): its message, one line naming what is wrong, is the client's {@code bad_request}
     */
    Text print(Rows queue, Request.Text text);

    /**
     * A queue's text in slices: the slices written in order are the whole text, and a slice gives the
     * same bytes every time it is written. The service writes every slice, in order, once to count the
     * text's bytes (sent before it), then again, in order, to send them, holding neither whole; no slice
     * is written before all those above it were written once, so a slice may say what the slices above
     * it had (a closing note on every row above).
     */
    interface Text {
        /** @return how many slices the text has (0 for none) */
        int slices();

        /**
         * Writes one slice.
         *
         * @param slice 0 to {@link #slices()} - 1
         * @param out where it goes, in UTF-8, every line ended by {@code \n}; a slice may write nothing
         * @throws IOException when {@code out} fails
         */
        void write(int slice, OutputStream out) throws IOException;
    }

    /**
     * The queue as a printer reads it: the snapshot's fields other than its board ({@code head}, whose
     * board is empty) and each list of the board. In the daemon each list is a view of the snapshot's
     * rows, each row made as it is read and not kept, so reading a list twice makes its rows twice and
     * holding none of them costs nothing.
     *
     * @param head the snapshot's time, paused GPUs, GPUs and memory; its board is not read
     * @param running running jobs, by number
     * @param pending pending jobs in queue order
     * @param done jobs that ended in this run, by number
     * @param earlier jobs that had ended in an earlier run, by number
     * @param interrupted jobs the scheduler's stop interrupted, by number
     */
    record Rows(QueueView head, List<Row.Running> running, List<Row.Pending> pending, List<Row.Ended> done,
                List<Row.Ended> earlier, List<Row.Interrupted> interrupted) {
        /**
         * Checks for nulls; the lists are kept as they are (a view stays a view).
         *
         * @param head see {@link #head()}
         * @param running see {@link #running()}
         * @param pending see {@link #pending()}
         * @param done see {@link #done()}
         * @param earlier see {@link #earlier()}
         * @param interrupted see {@link #interrupted()}
         */
        public Rows {
            Objects.requireNonNull(head, "head");
            Objects.requireNonNull(running, "running");
            Objects.requireNonNull(pending, "pending");
            Objects.requireNonNull(done, "done");
            Objects.requireNonNull(earlier, "earlier");
            Objects.requireNonNull(interrupted, "interrupted");
        }

        /**
         * @param whole a queue read whole (the rows a client got from a daemon that prints no text)
         * @return its rows, as a printer reads them
         */
        public static Rows of(QueueView whole) {
            QueueView.Board b = whole.board();
            return new Rows(whole, b.running(), b.pending(), b.done(), b.earlier(), b.interrupted());
        }
    }
}

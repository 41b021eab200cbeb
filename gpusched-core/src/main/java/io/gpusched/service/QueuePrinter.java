package io.gpusched.service;

import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Request;
import java.io.OutputStream;

/**
 * The port through which a daemon prints the queue as {@code gpusched queue} does, for a client that asks
 * for text ({@link Request.Text}): the CLI hands its own printer to {@link ServiceServer#start(io.gpusched.Scheduler,
 * java.nio.file.Path, ServiceServer.Access, java.util.Optional, java.util.Optional, ServiceServer.Limits,
 * java.util.Optional)}, so what the text says stays the CLI's while the daemon's warm JIT renders it, and
 * the client, whose JIT is cold, only copies it out (issue #27). A service without one answers rows.
 */
@FunctionalInterface
public interface QueuePrinter {
    /**
     * Prints the queue. Called on one of the service's answering threads, for one request at a time per
     * call; must not keep {@code out} after it returns.
     *
     * @param queue every row of the queue, texts cut as a list view cuts them
     * @param text the asking client's options, each within its bound; the {@code format} not yet parsed
     * @param out where the text goes, in UTF-8, every line ended by {@code \n}
     * @throws IllegalArgumentException when the options cannot be printed (a {@code format} the printer's
     *     parser refuses): its message, one line naming what is wrong, is the client's {@code bad_request}
     */
    void print(QueueView queue, Request.Text text, OutputStream out);
}

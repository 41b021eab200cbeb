package io.gpusched.service;

import io.gpusched.protocol.Request;
import io.gpusched.stats.Stats;
import java.nio.file.Path;
import java.util.List;

/**
 * The port through which a daemon prints {@code gpusched stats}' figures for a client that cannot read
 * the journal itself ({@code stats} over the socket, {@link Request.Stats}): the CLI hands its own
 * printer to {@link ServiceServer#start(io.gpusched.Scheduler, Path, ServiceServer.Access,
 * java.util.Optional, java.util.Optional, ServiceServer.Limits, java.util.Optional, java.util.Optional)},
 * as it hands its {@link QueuePrinter}, so what the text says stays the CLI's, core depends on no
 * printer, and the figures need no wire form of their own: the answer is the printed text.
 *
 * <p>The figures' model ({@code io.gpusched.stats}) is exported to the CLI alone: the CLI's printer is
 * the one this port is for, and the model stays out of the public API.
 *
 * <p>The service has already narrowed the figures to what the caller may see (their own jobs unless
 * root or an admin): a printer prints what it is given and nothing else.
 */
@FunctionalInterface
public interface StatsPrinter {
    /**
     * Prints the figures as {@code gpusched stats} prints them to its output. Called on the service's
     * stats thread, one request at a time.
     *
     * @param stats the figures, already narrowed to what the caller may see
     * @param journal the journal they were read from
     * @param warnings the journal's lines skipped, as {@code gpusched stats} warns of them
     * @param request the caller's options: {@code json}, {@code zone}
     * @return the whole output, every line ended by {@code \n}
     * @throws IllegalArgumentException when the options cannot be printed (a {@code zone} no zone has):
     *     its message, one line naming what is wrong, is the client's {@code bad_request}
     */
    @SuppressWarnings("exports") // io.gpusched.stats is exported to the CLI only, whose printer this is
    String print(Stats stats, Path journal, List<String> warnings, Request.Stats request);
}

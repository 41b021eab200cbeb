package io.gpusched.cli;

import io.gpusched.protocol.Request;
import io.gpusched.service.GpuschedClient;
import io.gpusched.service.ServiceException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code gpusched queue}'s common command lines, run before anything else of the CLI is loaded (issue
 * #27: the verb is typed often, and most of its time was the JVM loading what it never needed): no
 * picocli, no JSON library, no shutdown hook, no {@code hello} unless {@code --user me} asks who the
 * caller is. {@link Main} tries it first; whatever it does not take (help, {@code --json}, an unusual
 * option, any answer but the daemon's text) it declines having written nothing, and the full CLI runs
 * as before, with its words for every error. Its code avoids lambdas and string concatenation by
 * {@code +} on the way that succeeds: each links method handles at its first use in a cold JVM.
 */
final class QuickQueue {
    /** What {@link #run} returns when it did not take the command line: nothing was written. */
    static final int DECLINED = -1;

    /**
     * What a {@code queue} command line says, when it holds only the options read here: each value as
     * typed, {@code null} when absent.
     */
    record Line(boolean json, boolean all, String format, String user, String socket, String logDir) {
    }

    private QuickQueue() {
    }

    /**
     * Reads {@code gpusched queue}'s common options ({@code --json}, {@code --all}, {@code --user U},
     * {@code --format SPEC}, {@code --socket PATH}, {@code --log-dir DIR}, the valued ones also as
     * {@code --name=value}) as picocli's parser reads them ({@code ClientOptionsQuickTest}).
     *
     * @param args the words after {@code queue}
     * @return the line; empty for anything else (help, an unknown or shortened option, a word, a value
     *     that starts with {@code -} or is empty, a valued option given twice), which picocli must read
     */
    static Optional<Line> line(List<String> args) {
        boolean json = false;
        boolean all = false;
        String format = null;
        String user = null;
        String socket = null;
        String logDir = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            int eq = a.indexOf('=');
            String name = a.startsWith("--") && eq > 2 ? a.substring(0, eq) : a;
            String value = name.equals(a) ? null : a.substring(eq + 1);
            if (name.equals("--json") || name.equals("--all")) {
                if (value != null) {
                    return Optional.empty();
                }
                json |= name.equals("--json");
                all |= name.equals("--all");
                continue;
            }
            if (!name.equals("--format") && !name.equals("--user") && !name.equals("--socket")
                    && !name.equals("--log-dir")) {
                return Optional.empty();
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    return Optional.empty();
                }
                value = args.get(++i);
            }
            if (value.isEmpty() || value.startsWith("-")) {
                return Optional.empty();
            }
            // An option given twice is picocli's to refuse, naming both values.
            if (name.equals("--format") ? format != null : name.equals("--user") ? user != null
                    : name.equals("--socket") ? socket != null : logDir != null) {
                return Optional.empty();
            }
            switch (name) {
                case "--format" -> format = value;
                case "--user" -> user = value;
                case "--socket" -> socket = value;
                default -> logDir = value;
            }
        }
        return Optional.of(new Line(json, all, format, user, socket, logDir));
    }

    /** A terminal's width as the request bounds it: a width past the bound cuts nothing a narrower one would. */
    static OptionalInt clamp(OptionalInt width) {
        return width.isEmpty() ? width : OptionalInt.of(Math.max(1, Math.min(width.getAsInt(),
                io.gpusched.protocol.Request.Text.MAX_WIDTH)));
    }

    /**
     * Prints the queue's text as {@code gpusched queue} does, when the command line is a common one and
     * the daemon prints text.
     *
     * @param argv the whole command line, {@code queue} first
     * @param out standard output
     * @param err where the one-line error goes
     * @return the exit code (0; 1 when the daemon went away, as {@link ClientCommand} says it), or
     *     {@link #DECLINED} with nothing written
     */
    static int run(String[] argv, PrintStream out, PrintStream err) {
        Optional<Line> read = line(List.of(argv).subList(1, argv.length));
        if (read.isEmpty() || read.get().json()) {
            return DECLINED;
        }
        Line line = read.get();
        Optional<QueueFormat> format = Optional.empty();
        if (line.format() != null) {
            try {
                format = Optional.of(QueueFormat.parse(line.format()));
            } catch (UsageException e) {
                return DECLINED; // the full CLI says it, as ever
            }
        }
        boolean mine = "me".equals(line.user());
        Optional<String> user = line.user() == null || mine ? Optional.empty() : Optional.of(line.user());
        if (user.isPresent() && user.get().length() > Request.Text.MAX_USER_CHARS) {
            return DECLINED;
        }
        // As ClientCommand asks: a table on a terminal or with --format, cut to the terminal's width.
        boolean table = QueueTable.table(format);
        OptionalInt width = table ? clamp(Terminal.columns()) : OptionalInt.empty();
        Request.Text text = new Request.Text(table, format.isPresent() ? Optional.of(format.get().spec()) : Optional.empty(),
                width, !QueueTable.utf8Locale(), user, line.all());
        Path socket = line.socket() != null ? Path.of(line.socket())
                : line.logDir() != null ? Path.of(line.logDir()).resolve(ClientCommand.RUN_SOCKET)
                : GpuschedClient.defaultSocket();
        // Buffered as ClientCommand buffers it, and like it not flushed when the daemon goes away midway.
        BufferedOutputStream page = new BufferedOutputStream(out, 1 << 16);
        try {
            if (!GpuschedClient.quickQueueText(socket, text, mine, page)) {
                return DECLINED;
            }
            page.flush();
        } catch (ServiceException e) {
            err.println("gpusched: " + e.getMessage());
            return ExitCodes.REFUSED;
        } catch (IOException e) {
            return ExitCodes.OK; // standard output is a PrintStream, which keeps its errors to itself, as ever
        }
        return ExitCodes.OK;
    }
}

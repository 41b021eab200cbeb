package io.gpusched.service;

import io.gpusched.model.CancelOutcome;
import io.gpusched.protocol.Answer;
import io.gpusched.protocol.BoardList;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.ProtocolCodec.Expect;
import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Request;
import io.gpusched.protocol.Row;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A connection to a gpusched service ({@code gpusched serve}), for the CLI's verbs and for other JVM
 * tools. One request at a time per client; not thread-safe. Every method throws {@link ServiceException}
 * with the service's error code when it refuses, or {@code unreachable} when the connection fails.
 *
 * <p>Why one long file: it is the protocol's whole client API, a method per op with its Javadoc, for
 * embedders to find in one place; the work in each is a line or two over one shared {@code call}.
 */
public final class GpuschedClient implements AutoCloseable {
    /** The codec, made at its first use: a client that never needs it ({@link #quickQueueText}) loads no JSON library. */
    private static final class Codec {
        static final ProtocolCodec INSTANCE = new ProtocolCodec();
    }

    private final Path socket;
    /** Replaced when the service closed the connection for idleness ({@link #call}). */
    private LineChannel lines;
    private final String user;
    /** This process's status file, held open from the first submission: each one sends the mask as it is then. */
    private final UmaskReader umask = new UmaskReader(Path.of("/proc/self/status"));

    private GpuschedClient(Path socket, LineChannel lines) {
        this.socket = socket;
        this.lines = lines;
        this.user = call(new Request.Hello(), Expect.HELLO, Answer.Hello.class).user();
    }

    private static LineChannel open(Path socket) {
        SocketChannel ch;
        try {
            ch = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            throw new ServiceException("unreachable", "no gpusched service at " + socket + " (" + e.getMessage()
                    + "); start one with gpusched serve, or point --socket / GPUSCHED_SOCKET at it");
        }
        try {
            requireTrustedServer(socket, ch);
        } catch (ServiceException e) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // refused either way
            }
            throw e;
        }
        return new LineChannel(ch);
    }

    /**
     * Connects and says hello. A service at its connection limit ({@code too_many_connections}) is tried
     * again for up to 10 s, so a burst of clients (a script submitting in
     * parallel) waits its turn rather than failing.
     *
     * @param socket the service's socket
     * @return a connected client
     * @throws ServiceException {@code unreachable} when no service listens there, or the service's refusal
     *     (e.g. {@code forbidden} for another user's daemon, {@code too_many_connections} when it stays full)
     */
    public static GpuschedClient connect(Path socket) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(FULL_RETRY_SECONDS);
        long pauseMillis = 20;
        while (true) {
            LineChannel lines = open(socket);
            try {
                return new GpuschedClient(socket, lines);
            } catch (ServiceException e) {
                closeQuietly(lines);
                if (!"too_many_connections".equals(e.code())
                        || System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(pauseMillis) > deadline) {
                    throw e;
                }
            }
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ServiceException("unreachable", "interrupted while " + socket + " was at its connection limit");
            }
            pauseMillis = Math.min(pauseMillis * 2, 500);
        }
    }

    /** How long {@link #connect} tries again a service at its connection limit. */
    private static final int FULL_RETRY_SECONDS = 10;
    /** The status file's field, after the newline that ends the line before it. */
    private static final byte[] UMASK_FIELD = "\nUmask:".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private static void closeQuietly(LineChannel lines) {
        try {
            lines.close();
        } catch (IOException e) {
            // already closed
        }
    }

    /**
     * Before a byte is sent (a submission carries the whole environment): the process that listens must
     * run as this user or as root, as the kernel says ({@code SO_PEERCRED} on this end names the
     * listener). Anyone else's, say one that swapped a socket into a directory it could write, is refused.
     */
    private static void requireTrustedServer(Path socket, SocketChannel ch) {
        String server;
        try {
            server = ch.getOption(jdk.net.ExtendedSocketOptions.SO_PEERCRED).user().getName();
        } catch (IOException | UnsupportedOperationException e) {
            throw new ServiceException("untrusted", "cannot tell who serves " + socket + " (" + e.getMessage()
                    + "); nothing was sent");
        }
        String me = System.getProperty("user.name", "");
        if (!server.equals(me) && !server.equals("root")) {
            throw new ServiceException("untrusted", socket + " is served by user " + server + ", not by you (" + me
                    + ") or root; nothing was sent. Someone else's process listens there: remove it or use your own"
                    + " --socket");
        }
    }

    /**
     * @return this process's file-mode creation mask, as Linux reports it in {@code /proc/self/status};
     *     empty where it does not (the daemon then uses its default)
     */
    public static java.util.OptionalInt processUmask() {
        // A client reads the mask at every submission (a process may change it between two) through a
        // UmaskReader, which holds the file open.
        return umaskOfFile(Path.of("/proc/self/status"));
    }

    /**
     * @param status a status file, read whole
     * @return the mask it reports; empty where it reports none or cannot be read (not Linux, or an older
     *     kernel: the daemon's default then applies)
     */
    static java.util.OptionalInt umaskOfFile(Path status) {
        // The file's bytes are scanned for the one field rather than decoded into its 50-odd lines.
        try {
            return umaskIn(java.nio.file.Files.readAllBytes(status));
        } catch (IOException | RuntimeException e) {
            return java.util.OptionalInt.empty();
        }
    }

    /**
     * The mask a {@code /proc/<pid>/status} file reports: its {@code Umask:} line's octal value.
     *
     * @param status the file's bytes
     * @return the mask (0 to 0777); empty when the file has no such line or its value is not octal
     */
    static java.util.OptionalInt umaskIn(byte[] status) {
        return umaskIn(status, status.length);
    }

    /**
     * @param status a buffer whose first {@code length} bytes are the file
     * @param length how many bytes of {@code status} are the file
     * @return as {@link #umaskIn(byte[])} for those bytes
     */
    static java.util.OptionalInt umaskIn(byte[] status, int length) {
        byte[] field = UMASK_FIELD;
        outer:
        for (int i = 0; i + field.length <= length; i++) {
            for (int k = 0; k < field.length; k++) {
                // The first line is Name:, so the field always follows a newline.
                if (status[i + k] != field[k]) {
                    continue outer;
                }
            }
            int at = i + field.length;
            while (at < length && (status[at] == ' ' || status[at] == '\t')) {
                at++;
            }
            int mask = 0;
            int digits = 0;
            while (at < length && status[at] >= '0' && status[at] <= '7' && digits < 4) {
                mask = mask * 8 + (status[at++] - '0');
                digits++;
            }
            boolean ends = at == length || status[at] == '\n';
            return digits > 0 && ends && mask <= 0777 ? java.util.OptionalInt.of(mask) : java.util.OptionalInt.empty();
        }
        return java.util.OptionalInt.empty();
    }

    /**
     * The socket a client uses when none is given: {@code GPUSCHED_SOCKET} if set, else the system
     * daemon's {@code /run/gpusched/gpusched.sock} if it exists, else this user's
     * ({@link #userSocket()}).
     *
     * @return the socket path
     */
    public static Path defaultSocket() {
        String env = System.getenv("GPUSCHED_SOCKET");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        Path system = Path.of("/run/gpusched/gpusched.sock");
        return Files.exists(system) ? system : userSocket();
    }

    /**
     * @return where this user's daemon listens: {@code $XDG_RUNTIME_DIR/gpusched/gpusched.sock}, or
     *     {@code /tmp/gpusched-<user>/gpusched.sock} where no runtime directory is set
     */
    public static Path userSocket() {
        String runtime = System.getenv("XDG_RUNTIME_DIR");
        Path dir = runtime != null && !runtime.isBlank() ? Path.of(runtime, "gpusched")
                : Path.of(System.getProperty("java.io.tmpdir"), "gpusched-" + System.getProperty("user.name", "user"));
        return dir.resolve("gpusched.sock");
    }

    /** @return the user the service knows this client as (from the kernel, not from the client) */
    public String user() {
        return user;
    }

    /**
     * Submits a job.
     *
     * @param line the job as a jobs-file line, e.g. {@code [vram=8G priority=2] python eval.py}
     * @param workDir where it runs (absolute)
     * @param environment the environment it runs with; empty for the daemon's
     * @return its display number, once the service has journaled it
     */
    public int submit(String line, Path workDir, Optional<Map<String, String>> environment) {
        return submit(new Submission(line, workDir, environment, Optional.empty(), Optional.empty()));
    }

    /**
     * A job to submit, as {@code gpusched submit} sends it.
     *
     * @param line the job as a jobs-file line, e.g. {@code [vram=8G priority=2] python eval.py}
     * @param workDir where it runs (made absolute against this process's directory)
     * @param environment the environment it runs with; empty for the daemon's
     * @param output the file its output goes to, relative to {@code workDir} unless absolute; empty for
     *     the daemon's default ({@code PROTOCOL.md})
     * @param requestId this client's name for the submission, unique per user: sent again after an
     *     {@code unreachable} (the daemon may have journaled it before going away), it is answered with
     *     the first's number instead of queueing the job twice
     */
    public record Submission(String line, Path workDir, Optional<Map<String, String>> environment,
                             Optional<Path> output, Optional<String> requestId) {
        /**
         * Checks for nulls.
         *
         * @param line see {@link #line()}
         * @param workDir see {@link #workDir()}
         * @param environment see {@link #environment()}
         * @param output see {@link #output()}
         * @param requestId see {@link #requestId()}
         */
        public Submission {
            java.util.Objects.requireNonNull(line, "line");
            java.util.Objects.requireNonNull(workDir, "workDir");
            java.util.Objects.requireNonNull(environment, "environment");
            java.util.Objects.requireNonNull(output, "output");
            java.util.Objects.requireNonNull(requestId, "requestId");
        }

        /**
         * A job run in {@code workDir} with the daemon's environment and default output.
         *
         * @param line see {@link #line()}
         * @param workDir see {@link #workDir()}
         */
        public Submission(String line, Path workDir) {
            this(line, workDir, Optional.empty(), Optional.empty(), Optional.empty());
        }

        /**
         * @param env the whole environment the job gets, e.g. {@code System.getenv()}
         * @return this submission with that environment
         */
        public Submission withEnvironment(Map<String, String> env) {
            return new Submission(line, workDir, Optional.of(env), output, requestId);
        }

        /**
         * @param file where the job's output goes, relative to {@link #workDir()} unless absolute
         * @return this submission with that output file
         */
        public Submission withOutput(Path file) {
            return new Submission(line, workDir, environment, Optional.of(file), requestId);
        }

        /**
         * @param id this client's name for the submission (see {@link #requestId()})
         * @return this submission with that request id
         */
        public Submission withRequestId(String id) {
            return new Submission(line, workDir, environment, output, Optional.of(id));
        }
    }

    /**
     * Submits a job.
     *
     * @param s the job and how it runs
     * @return its display number, once the service has journaled it; for a {@code unique} job the
     *     service did not queue again, the number of the same job already there ({@link #submitted} says which)
     */
    public int submit(Submission s) {
        return submitted(s).no();
    }

    /**
     * Submits a job, and says whether it was queued or is a {@code unique} job already there.
     *
     * @param s the job and how it runs
     * @return the answer: the new job's number, or the number of the same job already queued, running or
     *     ended ok with where it stands ({@link Answer.Submitted#already()})
     */
    public Answer.Submitted submitted(Submission s) {
        Request.Submit req = new Request.Submit(s.line(), s.workDir().toAbsolutePath().toString(), s.environment(),
                s.output().map(Path::toString), s.requestId(), umask.read());
        return call(req, Expect.SUBMITTED, Answer.Submitted.class);
    }

    /**
     * What submitting a job would do now, queuing nothing ({@code gpusched submit --dry-run}).
     *
     * @param s the job and where it would run (its output, request id and environment play no part)
     * @return the GPUs it would start on, or why it would wait
     * @throws ServiceException {@code infeasible} when it could never run here, as {@link #submit} would
     *     be refused; {@code bad_job} for a line that is not a job
     */
    public Answer.Preview preview(Submission s) {
        return call(new Request.Preview(s.line(), s.workDir().toAbsolutePath().toString()), Expect.PREVIEW,
                Answer.Preview.class);
    }

    /**
     * @return the queue as JSON, {@code {"snapshot": ...}}: the {@link #queue()} as a one-line
     *     {@code queue} answer's {@code snapshot} writes it, every row of it
     */
    public String queueJson() {
        return "{\"snapshot\":" + Codec.INSTANCE.encode(queue()) + "}";
    }

    /**
     * The whole queue, however long, read as a streamed answer ({@code PROTOCOL.md}): many lines, each
     * far under {@link Protocol#MAX_LINE_BYTES}. Each row's command is cut to
     * {@link Protocol#LIST_COMMAND_CHARS} characters ({@link io.gpusched.protocol.ListText} says its whole
     * length; {@link #job(int)} has it whole), other texts to {@link Protocol#LIST_TEXT_CHARS}.
     *
     * @return the queue, every row of its board
     * @throws ServiceException {@code bad_answer} when a line of the answer is not what the protocol says
     */
    public QueueView queue() {
        return rows(call(new Request.Queue(true), Expect.QUEUE, Answer.Queue.class));
    }

    /**
     * The queue as {@code gpusched queue} prints it with {@code options}, rendered by the daemon, copied
     * to {@code out} as it comes (the daemon's JIT is warm; this process only copies). Asked for in
     * chunks ({@link Request.Text#chunks()}, whatever {@code options} says), which the daemon renders
     * once; a daemon older than chunks answers a {@code text_bytes} head, which is read as well.
     *
     * @param options how to print it: list or table, the table's format, the terminal's width, ASCII,
     *     whose rows, whether every finished job
     * @param out where the text goes, in UTF-8; flushed by the caller
     * @return empty when the text was written to {@code out}; else, from a daemon that prints no text (one
     *     older than {@code text}, or an embedder's without a printer), the queue's rows as {@link #queue()}
     *     returns them, for the caller to print, nothing having been written
     * @throws ServiceException {@code bad_request} when the daemon's parser refuses the format,
     *     {@code unreachable} when the daemon went away, {@code bad_answer} when its chunks are not of the
     *     protocol's form (a length out of range, a length line without its end, a chunk that does not end
     *     a line), {@code output} when writing {@code out} failed; what came before was written
     */
    public Optional<QueueView> queueText(Request.Text options, java.io.OutputStream out) {
        Answer head = call(new Request.Queue(true, Optional.of(options.withChunks(true))), Expect.QUEUE_TEXT, Answer.class);
        if (head instanceof Answer.Queue rows) {
            return Optional.of(rows(rows));
        }
        if (head instanceof Answer.QueueTextChunks) {
            copyText(lines, java.util.OptionalLong.empty(), out, socket);
        } else {
            copyText(lines, java.util.OptionalLong.of(expected(head, Answer.QueueText.class).bytes()), out, socket);
        }
        return Optional.empty();
    }

    /**
     * {@link #queueText} as a cold JVM does it cheapest (issue #27): on a connection of its own, the
     * request sent first (no {@code hello}, unless {@code mine} needs the caller's name), its lines
     * written and the answer's head read by {@link io.gpusched.protocol.QueueTextLines}, so no JSON library
     * is loaded. Only the answer a daemon that prints text gives is taken; for any other (an error, an
     * older daemon's rows) nothing is written and {@code false} returned, for the caller to ask again with
     * {@link #connect} and {@link #queueText}, which say what {@code connect} and {@code queueText} say.
     *
     * @param socket the service's socket
     * @param options how to print it, as for {@link #queueText}; its {@code user} is ignored when
     *     {@code mine}
     * @param mine only the rows of the caller, as the daemon names them ({@link #user()})
     * @param out where the text goes, in UTF-8; flushed by the caller
     * @return true when the text was written to {@code out}; false when nothing was written
     * @throws ServiceException {@code unreachable} or {@code untrusted} from connecting, as
     *     {@link #connect} throws them; once the text has begun, what {@link #queueText} throws
     */
    public static boolean quickQueueText(Path socket, Request.Text options, boolean mine, java.io.OutputStream out) {
        LineChannel lines = open(socket);
        try {
            Request.Text text = options;
            if (mine) {
                lines.write(io.gpusched.protocol.QueueTextLines.HELLO);
                Optional<String> hello = lines.read();
                Optional<String> user = hello.isPresent() ? io.gpusched.protocol.QueueTextLines.helloUser(hello.get())
                        : Optional.empty();
                if (user.isEmpty() || user.get().length() > Request.Text.MAX_USER_CHARS) {
                    return false;
                }
                text = new Request.Text(options.table(), options.format(), options.width(), options.ascii(), user,
                        options.all());
            }
            Optional<String> request = io.gpusched.protocol.QueueTextLines.request(text.withChunks(true));
            if (request.isEmpty()) {
                return false;
            }
            lines.write(request.get());
            Optional<String> head = lines.read();
            if (head.isPresent() && io.gpusched.protocol.QueueTextLines.textChunks(head.get())) {
                copyText(lines, java.util.OptionalLong.empty(), out, socket);
                return true;
            }
            // A daemon older than chunks ignores the field, and counts the text's bytes first.
            java.util.OptionalLong n = head.isPresent() ? io.gpusched.protocol.QueueTextLines.textBytes(head.get())
                    : java.util.OptionalLong.empty();
            if (n.isEmpty()) {
                return false;
            }
            copyText(lines, n, out, socket);
            return true;
        } catch (IOException e) {
            return false; // nothing was written: a full client finds out what went wrong, and says it
        } finally {
            closeQuietly(lines);
        }
    }

    /**
     * The text after a {@code queue} text's head, copied to {@code out}: the {@code bytes} a
     * {@code text_bytes} head announced, or, with none, the chunks up to the last after a
     * {@code text_chunks} head.
     */
    private static void copyText(LineChannel lines, java.util.OptionalLong bytes, java.io.OutputStream out, Path socket) {
        // Which side failed decides the error: the daemon going away, or this process's output.
        IOException[] outputFailed = new IOException[1];
        java.io.OutputStream sink = new java.io.OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                try {
                    out.write(b, off, len);
                } catch (IOException e) {
                    outputFailed[0] = e;
                    throw e;
                }
            }
        };
        try {
            if (bytes.isEmpty()) {
                lines.copyChunks(sink);
            } else {
                lines.copy(bytes.getAsLong(), sink);
            }
        } catch (LineChannel.BadChunk e) {
            throw new ServiceException("bad_answer", "the gpusched service at " + socket + " sent a queue text out of"
                    + " its form (PROTOCOL.md, text_chunks): " + e.getMessage());
        } catch (IOException e) {
            throw outputFailed[0] != null ? new ServiceException("output", "cannot write the queue: " + e.getMessage())
                    : new ServiceException("unreachable", "the gpusched service at " + socket + " went away in the middle"
                    + " of an answer: " + e.getMessage());
        }
    }

    /** The whole queue from a {@code queue} answer's head and, when streamed, the lines of rows after it. */
    private QueueView rows(Answer.Queue head) {
        if (head.lines().isEmpty()) {
            return head.snapshot(); // a daemon from before streamed answers: the whole queue was that one line
        }
        Map<BoardList, List<Row>> rows = new EnumMap<>(BoardList.class);
        for (BoardList l : BoardList.values()) {
            rows.put(l, new ArrayList<>(head.snapshot().board().rows(l)));
        }
        for (int i = 0, n = head.lines().getAsInt(); i < n; i++) {
            Answer.Rows line = follow(Expect.ROWS, Answer.Rows.class);
            rows.get(line.list()).addAll(line.rows());
        }
        return head.snapshot().withBoard(new QueueView.Board(typed(rows.get(BoardList.RUNNING)),
                typed(rows.get(BoardList.PENDING)), typed(rows.get(BoardList.DONE)), typed(rows.get(BoardList.EARLIER)),
                typed(rows.get(BoardList.INTERRUPTED))));
    }

    /** A list's rows, each of the type the codec reads for that list. */
    @SuppressWarnings("unchecked")
    private static <R extends Row> List<R> typed(List<Row> rows) {
        return (List<R>) (List<?>) rows;
    }

    /**
     * The queue in one answer line, as a client that does not stream reads it: every field of
     * {@link #queue()}, but each board list holds only the rows that fit in the line (running jobs first,
     * then the head of the pending queue, then the newest finished), and {@link Answer.Queue#leftOut()}
     * says how many rows of each list were left out. For what needs the GPUs, not every row
     * ({@code gpusched info}).
     *
     * @return the answer: its snapshot and what was left out
     */
    public Answer.Queue queueSummary() {
        return call(new Request.Queue(false), Expect.QUEUE, Answer.Queue.class);
    }

    /**
     * One job as the queue shows it, with its whole command.
     *
     * @param list where it is
     * @param row its row as in {@link #queue()} (texts cut the same way)
     * @param command its whole command
     */
    public record Job(BoardList list, Row row, String command) {
        /**
         * Checks for nulls.
         *
         * @param list see {@link #list()}
         * @param row see {@link #row()}
         * @param command see {@link #command()}
         */
        public Job {
            java.util.Objects.requireNonNull(list, "list");
            java.util.Objects.requireNonNull(row, "row");
            java.util.Objects.requireNonNull(command, "command");
        }
    }

    /**
     * @param no a job's display number
     * @return the job as the queue shows it, with its whole command
     * @throws ServiceException {@code no_job} when the queue does not hold it (neither running, pending
     *     nor among the finished jobs it keeps)
     */
    public Job job(int no) {
        Answer.Job head = call(new Request.Job(no), Expect.JOB, Answer.Job.class);
        StringBuilder command = new StringBuilder();
        for (int i = 0; i < head.parts(); i++) {
            command.append(follow(Expect.PART, Answer.Part.class).part());
        }
        return new Job(head.list(), head.job(), command.toString());
    }

    /**
     * {@code gpusched stats}' output as the daemon printed it from its journal, for a caller who cannot
     * read the journal: on a root daemon, only the caller's own jobs unless they are root or an admin.
     *
     * @param request the options
     * @return what {@code gpusched stats} prints to its output, and what it warns of
     * @throws ServiceException {@code forbidden} for another user's figures without being an admin;
     *     {@code failed} while this user has another {@code stats} being answered; {@code not_served} from a
     *     daemon that prints no stats; {@code unknown_op} from a daemon older than {@code stats}
     */
    public StatsText stats(Request.Stats request) {
        Answer.Stats head = call(request, Expect.STATS, Answer.Stats.class);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < head.parts(); i++) {
            text.append(follow(Expect.PART, Answer.Part.class).part());
        }
        return new StatsText(text.toString(), head.warnings());
    }

    /**
     * A {@code stats} answer read whole.
     *
     * @param text what {@code gpusched stats} prints to its output, every line ended
     * @param warnings what it prints to its error output, one line each
     */
    public record StatsText(String text, List<String> warnings) {
        /**
         * Copies the warnings.
         *
         * @param text see {@link #text()}
         * @param warnings see {@link #warnings()}
         */
        public StatsText {
            java.util.Objects.requireNonNull(text, "text");
            warnings = List.copyOf(warnings);
        }
    }

    /** A line that follows an answer (a streamed queue's rows, a command's part): it carries no {@code ok}. */
    private <A extends Answer> A follow(Expect expect, Class<A> type) {
        Optional<String> line;
        try {
            line = lines.read();
        } catch (IOException e) {
            throw new ServiceException("unreachable", "the gpusched service at " + socket + " went away: " + e.getMessage());
        }
        if (line.isEmpty()) {
            throw new ServiceException("unreachable", "the gpusched service at " + socket + " closed the connection"
                    + " in the middle of an answer");
        }
        return expected(decode(line.get(), expect), type);
    }

    /**
     * @return this user's address of the daemon's web dashboard, with their token (a secret: it reads
     *     what {@code queue} shows them); it holds until the daemon restarts
     * @throws ServiceException {@code not_served} when the daemon runs no dashboard
     */
    public String dashboardUrl() {
        return call(new Request.Dashboard(), Expect.DASHBOARD_URL, Answer.DashboardUrl.class).url();
    }

    /**
     * @param no a job's display number
     * @return what happened
     */
    public CancelOutcome cancel(int no) {
        return call(new Request.Cancel(no), Expect.CANCELLED, Answer.Cancelled.class).outcome();
    }

    /**
     * Cancels every job of a user that has not ended (running, pending, waiting to run again).
     *
     * @param user whose jobs; a user who is not an admin may name only themselves ({@link #user()})
     * @return each job's number and what happened, in number order; empty when they had none
     * @throws ServiceException {@code forbidden} for another user's jobs without being an admin
     */
    public java.util.SortedMap<Integer, CancelOutcome> cancelAll(String user) {
        return call(new Request.CancelUser(user), Expect.CANCELLED_ALL, Answer.CancelledAll.class).jobs();
    }

    /**
     * A job's logs.
     *
     * @param files its log files, oldest first (one per attempt that ran on other GPUs); none before it
     *     first started
     * @param state where the job stands; empty for a number the queue does not know (nor its recent
     *     history)
     * @param tty the tmux socket and session name its terminal has while it runs, if it is a
     *     {@code [tty]} job ({@link io.gpusched.model.TtySession}); empty from a service that does not say
     */
    public record Logs(java.util.List<Path> files, Optional<io.gpusched.model.JobStage> state, Optional<String> tty) {
        /**
         * Copies the list.
         *
         * @param files see {@link #files()}
         * @param state see {@link #state()}
         * @param tty see {@link #tty()}
         */
        public Logs {
            files = java.util.List.copyOf(files);
            java.util.Objects.requireNonNull(state, "state");
            java.util.Objects.requireNonNull(tty, "tty");
        }

        /**
         * Logs with no terminal named.
         *
         * @param files see {@link #files()}
         * @param state see {@link #state()}
         */
        public Logs(java.util.List<Path> files, Optional<io.gpusched.model.JobStage> state) {
            this(files, state, Optional.empty());
        }
    }

    /**
     * @param no a job's display number
     * @return where its output is, and whether it may still write more
     */
    public Logs logs(int no) {
        Answer.Logs r = call(new Request.Logs(no), Expect.LOGS, Answer.Logs.class);
        return new Logs(r.paths().stream().map(Path::of).toList(), r.state(), r.tty());
    }

    /**
     * Where an {@code srun} request waits.
     *
     * @param no its job number
     * @param position its place among the pending jobs, 1 being next; 0 when not known yet
     * @param of how many jobs are pending
     * @param reason why it waits, as {@code gpusched queue} says
     */
    public record Waiting(int no, int position, int of, String reason) {
    }

    /**
     * Asks for GPUs to run a command in this process's terminal ({@code gpusched srun}), and blocks until
     * they are granted. This connection then belongs to the grant: closing it before the grant withdraws
     * the request; after, report the command's end with {@link #srunExited(int)}.
     *
     * @param line the request as a jobs-file line: {@code [vram=8G gpus=1 timeout=2h] the command}
     * @param workDir where the command runs (journaled, for the record; the environment stays here)
     * @param progress told the job number once queued ({@code position} 0), then where it waits
     *     whenever that changes; on this thread
     * @return the grant: GPUs, and the variables to run the command with
     * @throws ServiceException {@code ended} when the job ended before a grant (cancelled, infeasible),
     *     {@code bad_job} for a bad line, {@code unreachable} when the daemon went away
     */
    public io.gpusched.model.Grant srun(String line, Path workDir, java.util.function.Consumer<Waiting> progress) {
        Answer.SrunEvent r = call(new Request.Srun(line, workDir.toAbsolutePath().toString()), Expect.SRUN_EVENT,
                Answer.SrunEvent.class);
        while (true) {
            if (r instanceof Answer.Queued q) {
                progress.accept(new Waiting(q.no(), 0, 0, ""));
            } else if (r instanceof Answer.Waiting w) {
                progress.accept(new Waiting(w.no(), w.position(), w.of(), w.reason()));
            } else if (r instanceof Answer.Granted g) {
                return new io.gpusched.model.Grant(g.no(), g.gpus(), g.env());
            } else {
                throw new ServiceException("bad_answer", "unexpected srun event " + r);
            }
            r = expected(next(Expect.SRUN_EVENT), Answer.SrunEvent.class);
        }
    }

    /**
     * Takes up a grant again after the connection was lost (the daemon restarted): this connection then
     * belongs to it, as after {@link #srun}.
     *
     * @param no the job number
     * @param token the grant's token
     * @throws ServiceException {@code not_held} when the daemon no longer holds GPUs for it under that
     *     token for this user
     */
    public void srunAttach(int no, String token) {
        call(new Request.SrunAttach(no, token), Expect.SRUN_EVENT, Answer.SrunEvent.class);
    }

    /**
     * Reports how the granted command ended, and hears how the job was recorded.
     *
     * @param status its exit status, 0 to 255 (128 + N for signal N)
     * @return the daemon's answer: the job's number, whether the status was recorded, and how the job
     *     ended when the daemon knows it in time
     */
    public Answer.Ended srunExited(int status) {
        return call(new Request.Exited(status), Expect.SRUN_EVENT, Answer.Ended.class);
    }

    /** The service's next line: an answer, or a session's next event; a refusal is thrown. */
    private Answer next(Expect expect) {
        Optional<String> answer;
        try {
            answer = lines.read();
        } catch (IOException e) {
            throw new ServiceException("unreachable", "the gpusched service at " + socket + " went away: " + e.getMessage());
        }
        if (answer.isEmpty()) {
            throw new ServiceException("unreachable", "the gpusched service at " + socket + " closed the connection");
        }
        return answerOf(answer.get(), expect);
    }

    /** @param gpu a GPU index to pause: running jobs continue, nothing new starts there */
    public void pause(int gpu) {
        call(new Request.Pause(gpu), Expect.ACKNOWLEDGED, Answer.Acknowledged.class);
    }

    /**
     * Drains the service: it starts no job from now on and exits once the running ones have ended;
     * queued jobs wait in its journal for the next one. Root's and admins' (any caller of a user's own).
     *
     * @return how many jobs were running when asked, which it now waits for
     * @throws ServiceException {@code forbidden} for a user who is not an admin of a shared daemon
     */
    public int drain() {
        return call(new Request.Drain(), Expect.DRAINING, Answer.Draining.class).running();
    }

    /** @param gpu a paused GPU's index to resume */
    public void resume(int gpu) {
        call(new Request.Resume(gpu), Expect.ACKNOWLEDGED, Answer.Acknowledged.class);
    }

    /**
     * One request and its answer. A connection the service closed for idleness (it sent
     * {@code idle_timeout} instead of reading the request, so nothing of it was done) is opened again
     * once and the request sent on the new one: a client that waited long between requests (a user's
     * {@code gpusched attach} session, an embedding tool) goes on as if nothing happened.
     */
    private <A extends Answer> A call(Request request, Expect expect, Class<A> type) {
        try {
            return expected(send(request, expect), type);
        } catch (ServiceException e) {
            if (!"idle_timeout".equals(e.code())) {
                throw e;
            }
            closeQuietly(lines);
            lines = open(socket);
            return expected(send(request, expect), type);
        }
    }

    private Answer send(Request request, Expect expect) {
        Optional<String> answer;
        try {
            try {
                lines.write(Codec.INSTANCE.encode(request));
            } catch (IOException e) {
                // A daemon that refuses this user answers before reading and closes: its reason may be
                // waiting to be read even though the request could not be sent.
                answer = lines.read();
                if (answer.isEmpty()) {
                    throw e;
                }
                return answerOf(answer.get(), expect);
            }
        } catch (IOException e) {
            throw new ServiceException("unreachable", "the gpusched service at " + socket + " went away: " + e.getMessage());
        }
        return next(expect);
    }

    /** @throws ServiceException with the service's code when it refused */
    private static Answer answerOf(String line, Expect expect) {
        Answer a = decode(line, expect);
        if (a instanceof Answer.Failure f) {
            throw new ServiceException(f.code(), f.message());
        }
        return a;
    }

    private static Answer decode(String line, Expect expect) {
        try {
            return Codec.INSTANCE.decode(line, expect);
        } catch (IllegalArgumentException e) {
            throw new ServiceException("bad_answer", "the gpusched service answered what this client cannot read ("
                    + e.getMessage() + "); use a client of the daemon's release");
        }
    }

    private static <A extends Answer> A expected(Answer a, Class<A> type) {
        if (!type.isInstance(a)) {
            throw new ServiceException("bad_answer", "the gpusched service answered " + a + " where this client"
                    + " expected " + type.getSimpleName());
        }
        return type.cast(a);
    }

    @Override
    public void close() {
        umask.close();
        try {
            lines.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
    }
}

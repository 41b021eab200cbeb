package io.gpusched.service;

import io.gpusched.Scheduler;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import jdk.net.ExtendedSocketOptions;

/**
 * A scheduler's service: answers {@code PROTOCOL.md} requests on a UNIX domain socket, each request
 * through the scheduler's thread-safe API ({@code submit}, {@code cancel}, {@code pause}, {@code resume},
 * {@code snapshot}), so the scheduler's loop stays the only owner of its state. The caller's user comes
 * from the kernel ({@code SO_PEERCRED}), never from the request.
 *
 * <p>{@link Access#OWNER_ONLY}: it serves the user it runs as and refuses every other (a user's daemon,
 * and a jobs-file run's socket). {@link Access#EVERY_USER}, for a daemon run by root: it serves every
 * user; each submission runs as its submitter (a root scheduler does that), a user cancels only their
 * own jobs, and only root and members of the admin group cancel anyone's and pause or resume GPUs.
 * What each request does is {@link Requests}'; this class owns the socket and the connections. A bad
 * request gets a typed error and the connection goes on; a request over {@link Protocol#MAX_LINE_BYTES}
 * closes it; nothing a client sends can stop the daemon.
 *
 * <p>Bounded whatever clients do ({@link Limits}): a fixed set of threads (one selector thread reads,
 * writes and accepts for every connection; two answer {@code hello}, {@code submit}, {@code job} and the
 * queue's rows; two render the queue's text, one render at a time per user ({@link Renders}); four run what
 * waits for the scheduler's loop; 32 take submissions, so many clients' submissions share one fsync;
 * one times {@code srun} updates), so an idle connection costs a file
 * descriptor and a few hundred bytes, not a thread. An answer that comes later ({@code submit}'s
 * number, an {@code srun}'s events) is written when its future completes, by the selector thread.
 * Connections are capped overall and per user, one that sends no whole request for the idle timeout
 * is closed, and unfinished request lines together hold at most {@link #OWN_BYTES} each plus
 * {@link #SHARED_BYTES}, of which one user's at most {@link #SHARED_BYTES_PER_USER}: past that, a
 * connection is not read until memory is freed (its bytes wait in the kernel, its sender blocks) or its
 * idle timeout closes it.
 *
 * <p>Why one file of this length: everything the selector thread does to a connection (admit, read,
 * hand out, write, time out, close) and the memory it counts sits together, so a reader checks the
 * one-thread ownership and the bounds in one place; what a connection holds is {@link Connection}'s.
 */
public final class ServiceServer implements AutoCloseable {
    /** Who may use a service. */
    public enum Access {
        /** Only the user the service runs as; the socket is that user's alone (0600, directory 0700). */
        OWNER_ONLY,
        /** Every user, each acting on their own jobs; needs root. The socket is 0666, its directory 0755. */
        EVERY_USER
    }

    /**
     * How much of a service its clients may hold ({@code gpusched serve}'s {@code --max-connections},
     * {@code --max-connections-per-user}, {@code --idle-timeout}).
     *
     * @param connections the most connections open at once; a daemon serving every user never refuses
     *     root (trusted), so an admin can always reach a full daemon
     * @param connectionsPerUser the most connections one user other than root may hold open at once, on a
     *     daemon serving every user (a user's own daemon has only {@code connections})
     * @param idleTimeout how long a connection may go without sending a whole request before it is
     *     closed (a partial line counts as nothing sent); an {@code srun} waiting for or holding its grant
     *     is exempt, and so is a connection whose answer is being worked out
     */
    public record Limits(int connections, int connectionsPerUser, Duration idleTimeout) {
        /** The defaults: 1024 connections, 64 per user, 60 s idle. */
        public static final Limits DEFAULTS = new Limits(1024, 64, Duration.ofSeconds(60));

        /**
         * Checks the figures.
         *
         * @param connections see {@link #connections()}; at least 1
         * @param connectionsPerUser see {@link #connectionsPerUser()}; at least 1
         * @param idleTimeout see {@link #idleTimeout()}; positive
         * @throws IllegalArgumentException for a figure out of range, naming it
         */
        public Limits {
            if (connections < 1 || connectionsPerUser < 1) {
                throw new IllegalArgumentException("connection limits must be at least 1, got " + connections + " and "
                        + connectionsPerUser);
            }
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("the idle timeout must be positive, got "
                        + io.gpusched.jobs.Units.formatDuration(idleTimeout));
            }
        }
    }

    /**
     * Bytes of unfinished request lines any connection may hold whatever the others hold: every request
     * but a submission with a big environment fits, so a flood of partial lines never delays them.
     */
    static final int OWN_BYTES = 8 * 1024;
    /** Bytes of unfinished request lines all connections together may hold beyond {@link #OWN_BYTES} each. */
    static final long SHARED_BYTES = 32L << 20;
    /**
     * Bytes of {@link #SHARED_BYTES} the connections of one user may hold together, on a daemon serving
     * every user (root is not counted: trusted, as for connections): a quarter, so one user's unfinished
     * lines cannot take what everyone else's big requests (a submission with a big environment) need.
     */
    static final long SHARED_BYTES_PER_USER = SHARED_BYTES / 4;
    /** The most bytes one read takes: the selector thread's one read buffer. */
    private static final int READ_CHUNK = 64 * 1024;
    /**
     * The longest a {@code queue} or {@code job} answer waits for the board of the round under way (or
     * of a submission just numbered), in milliseconds; then it is answered from the last board. A round
     * takes milliseconds; a loop past this is stuck on its disk or stopping.
     */
    static final long CURRENT_SNAPSHOT_WAIT_MILLIS = 5_000;
    /**
     * Threads that answer {@code hello}, {@code queue}, {@code job} and {@code submit}, for which no thread
     * waits for the scheduler's loop: a submission's answer is written once its future completes (on
     * the loop's thread, as its line is forced), so the submissions of many clients share one fsync with
     * no thread held per submission. Never the queue's text, whose cost grows with the queue: that is
     * {@link Renders}', so no user's renders hold these up.
     */
    private static final int ANSWERERS = 2;
    /** Threads for requests that wait for the scheduler's loop (cancel, logs, pause, srun's steps). */
    private static final int WORKERS = 4;
    /** How often connections are checked for the idle timeout, at most. */
    private static final long SWEEP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** How long accepting pauses after accept failed (out of file descriptors), so the loop does not spin. */
    private static final long ACCEPT_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Path socket;
    private final ServerSocketChannel server;
    private final String user;
    private final boolean shared;
    private final Limits limits;
    private final Requests requests;
    private final Scheduler scheduler;
    private final Selector selector;
    private final SelectionKey acceptKey;
    private final Thread loop;
    private final ExecutorService answerers = Executors.newFixedThreadPool(ANSWERERS, named("gpusched-answer"));
    /** Where the queue's text is rendered: threads of its own, one render at a time per user. */
    private final Renders renders = new Renders(named("gpusched-render"));
    private final ExecutorService workers = Executors.newFixedThreadPool(WORKERS, named("gpusched-request"));
    /**
     * Where {@code stats} is answered: one thread of its own, so the journal is read one request at a time
     * in all (each holds the journal's entries while it counts), never on the loop, the answerers or the
     * workers; a user has one request taken at a time ({@link Requests#takeStats}), a second is refused.
     */
    private final ExecutorService statsThread = Executors.newSingleThreadExecutor(named("gpusched-stats"));
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(named("gpusched-srun-timer"));
    /** Work other threads hand the selector thread: queue an answer, end a connection. */
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private volatile boolean closing;
    // The selector thread's alone from here on.
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(READ_CHUNK);
    private final Map<String, Integer> perUser = new HashMap<>();
    /** Connections that would read but wait for {@link #SHARED_BYTES} to free up, oldest first. */
    private final Set<Connection> starved = new LinkedHashSet<>();
    private int open;
    /** Bytes of input buffers beyond {@link #OWN_BYTES} each, over all connections. */
    private long sharedInUse;
    /** {@link #sharedInUse} by user, for those who hold some. */
    private final Map<String, Long> sharedByUser = new HashMap<>();
    /** Bytes of all connections' input buffers; written by the selector thread, read by tests. */
    private volatile long inputBytes;
    private long nextSweep;
    private long acceptPausedUntil;

    private ServiceServer(Scheduler scheduler, Path socket, ServerSocketChannel server, boolean shared,
                          Optional<String> adminGroup, Optional<DashboardLinks> dashboard, Limits limits,
                          Optional<QueuePrinter> printer, Optional<StatsPrinter> statsPrinter) throws IOException {
        this.socket = socket;
        this.server = server;
        this.user = System.getProperty("user.name", "?");
        this.shared = shared;
        this.limits = limits;
        this.requests = new Requests(scheduler, shared, adminGroup, dashboard, printer, statsPrinter,
                Requests.TAKE_WITHIN);
        this.scheduler = scheduler;
        this.selector = Selector.open();
        server.configureBlocking(false);
        this.acceptKey = server.register(selector, SelectionKey.OP_ACCEPT);
        this.loop = new Thread(this::run, "gpusched-service");
        loop.setDaemon(true);
    }

    private static ThreadFactory named(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Listens on {@code socket}: its directory is created (mode 0700 when created here), a stale socket
     * file of a dead daemon is replaced, and the socket is made reachable by this user only.
     *
     * @param scheduler the scheduler to serve; it may start running before or after
     * @param socket where to listen
     * @return the running service; close it to stop listening (jobs are the scheduler's business)
     * @throws ServiceException {@code in_use} when another daemon answers on that socket, or
     *     {@code unreachable} when it cannot be created
     */
    public static ServiceServer start(Scheduler scheduler, Path socket) {
        return start(scheduler, socket, Access.OWNER_ONLY, Optional.empty());
    }

    /**
     * As {@link #start(Scheduler, Path)}, for the given users, with the default {@link Limits}.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it; {@link Access#EVERY_USER} needs this process to run as root
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @return the running service
     * @throws ServiceException {@code forbidden} for {@code EVERY_USER} without root, besides those of
     *     {@link #start(Scheduler, Path)}
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, Optional<String> adminGroup) {
        return start(scheduler, socket, access, adminGroup, Optional.empty(), Limits.DEFAULTS);
    }

    /**
     * As {@link #start(Scheduler, Path, Access, Optional)}, within the given limits.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it; {@link Access#EVERY_USER} needs this process to run as root
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @param limits how many connections, and how long one may stay idle
     * @return the running service
     * @throws ServiceException as {@link #start(Scheduler, Path, Access, Optional)}
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, Optional<String> adminGroup,
                                      Limits limits) {
        return start(scheduler, socket, access, adminGroup, Optional.empty(), limits);
    }

    /**
     * As {@link #start(Scheduler, Path, Access, Optional, Optional, Limits)} with the default limits.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @param dashboard each user's dashboard URL; empty when none runs
     * @return the running service
     * @throws ServiceException as {@link #start(Scheduler, Path, Access, Optional)}
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, Optional<String> adminGroup,
                                      Optional<DashboardLinks> dashboard) {
        return start(scheduler, socket, access, adminGroup, dashboard, Limits.DEFAULTS);
    }

    /**
     * As {@link #start(Scheduler, Path, Access, Optional, Limits)}, with a web dashboard beside it: the
     * {@code dashboard} op answers each caller their own URL from {@code dashboard}.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @param dashboard each user's dashboard URL; empty when none runs ({@code dashboard} answers
     *     {@code not_served})
     * @param limits how many connections, and how long one may stay idle
     * @return the running service
     * @throws ServiceException as {@link #start(Scheduler, Path, Access, Optional)}
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, Optional<String> adminGroup,
                                      Optional<DashboardLinks> dashboard, Limits limits) {
        return start(scheduler, socket, access, adminGroup, dashboard, limits, Optional.empty());
    }

    /**
     * As {@link #start(Scheduler, Path, Access, Optional, Optional, Limits)}, printing {@code queue}'s text
     * for clients that ask for it ({@code PROTOCOL.md}, {@code "text"}) with {@code printer}.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @param dashboard each user's dashboard URL; empty when none runs
     * @param limits how many connections, and how long one may stay idle
     * @param printer renders the queue as the asking client prints it; empty: such a client gets rows, as
     *     from a daemon older than {@code text}
     * @return the running service
     * @throws ServiceException as {@link #start(Scheduler, Path, Access, Optional)}
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, Optional<String> adminGroup,
                                      Optional<DashboardLinks> dashboard, Limits limits, Optional<QueuePrinter> printer) {
        return start(scheduler, socket, access, adminGroup, dashboard, limits, printer, Optional.empty());
    }

    /**
     * As {@link #start(Scheduler, Path, Access, Optional, Optional, Limits, Optional)}, answering {@code stats}
     * ({@code PROTOCOL.md}) with figures printed by {@code statsPrinter}.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @param dashboard each user's dashboard URL; empty when none runs
     * @param limits how many connections, and how long one may stay idle
     * @param printer renders the queue as the asking client prints it; empty: such a client gets rows
     * @param statsPrinter prints {@code gpusched stats}' figures; empty: {@code stats} is {@code not_served}
     * @return the running service
     * @throws ServiceException as {@link #start(Scheduler, Path, Access, Optional)}
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, Optional<String> adminGroup,
                                      Optional<DashboardLinks> dashboard, Limits limits, Optional<QueuePrinter> printer,
                                      Optional<StatsPrinter> statsPrinter) {
        Path abs = socket.toAbsolutePath();
        boolean shared = access == Access.EVERY_USER;
        if (shared && !"root".equals(System.getProperty("user.name"))) {
            throw new ServiceException("forbidden", "serving every user needs root (jobs run as their owners); as "
                    + System.getProperty("user.name") + ", serve yourself only");
        }
        try {
            RuntimeDirectory.prepare(abs.getParent(), shared);
            if (Files.exists(abs)) {
                if (answers(abs)) {
                    throw new ServiceException("in_use", abs + " is already served by a running gpusched; stop it or use"
                            + " another --socket");
                }
                Files.delete(abs);
            }
            ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            // A deep backlog: a burst of clients waits in the kernel while the selector thread admits them.
            ch.bind(UnixDomainSocketAddress.of(abs), 4096);
            Files.setPosixFilePermissions(abs, PosixFilePermissions.fromString(shared ? "rw-rw-rw-" : "rw-------"));
            ServiceServer s = new ServiceServer(scheduler, abs, ch, shared, adminGroup, dashboard, limits, printer,
                    statsPrinter);
            s.loop.start();
            return s;
        } catch (IOException e) {
            throw new ServiceException("unreachable", "cannot listen on " + abs + ": " + e.getMessage());
        }
    }

    /**
     * What {@link #start(Scheduler, Path, Access, Optional, Optional)} would refuse about the directory
     * {@code socket} is in, checked as this process without creating or changing anything (for
     * {@code gpusched doctor}): a link, another user's, or writable by others.
     *
     * @param socket where a service would listen
     * @return the refusal's one line, naming the directory, its owner and the fix; empty when it would
     *     listen there (a missing directory is created then)
     */
    public static Optional<String> socketDirectoryProblem(Path socket) {
        Path dir = socket.toAbsolutePath().getParent();
        return dir == null ? Optional.of("socket " + socket + " has no directory; give a path such as /run/gpusched/gpusched.sock")
                : RuntimeDirectory.check(dir);
    }

    private static boolean answers(Path socket) {
        try {
            SocketChannel.open(UnixDomainSocketAddress.of(socket)).close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** @return the socket's absolute path */
    public Path socket() {
        return socket;
    }

    // ---- the selector thread ----

    private void run() {
        try {
            while (!closing) {
                long now = System.nanoTime();
                long wait = Math.max(1, TimeUnit.NANOSECONDS.toMillis(Math.max(0, nextSweep - now)));
                selector.select(wait);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey k = it.next();
                    it.remove();
                    try {
                        ready(k);
                    } catch (RuntimeException e) {
                        // A fault with one connection ends that connection, never the service.
                        if (k.attachment() instanceof Connection c) {
                            close(c);
                        }
                    }
                }
                runTasks();
                now = System.nanoTime();
                if (now - nextSweep >= 0) {
                    sweep(now);
                    nextSweep = now + SWEEP_NANOS;
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            // the selector failed or was closed: the service ends
        } finally {
            shutDown();
        }
    }

    private void ready(SelectionKey k) {
        if (!k.isValid()) {
            return;
        }
        if (k == acceptKey) {
            accept();
            return;
        }
        Connection c = (Connection) k.attachment();
        if (k.isWritable()) {
            write(c);
        }
        if (!c.closed && k.isValid() && k.isReadable()) {
            read(c);
        }
    }

    private void runTasks() {
        for (Runnable r; (r = tasks.poll()) != null; ) {
            try {
                r.run();
            } catch (RuntimeException e) {
                // one answer or session step lost; the service goes on
            }
        }
    }

    /** Hands work to the selector thread, from any thread. */
    private void post(Runnable r) {
        tasks.add(r);
        selector.wakeup();
    }

    private void accept() {
        // A bounded burst per wake-up, so a connect flood does not keep the thread from reading.
        for (int i = 0; i < 64; i++) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                // Out of file descriptors, most likely: the connection waits in the backlog a while.
                acceptKey.interestOps(0);
                acceptPausedUntil = System.nanoTime() + ACCEPT_PAUSE_NANOS;
                return;
            }
            if (ch == null) {
                return;
            }
            admit(ch);
        }
    }

    private void admit(SocketChannel ch) {
        try {
            ch.configureBlocking(false);
            String peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED).user().getName();
            Optional<String> refusal = refusal(peer);
            if (refusal.isPresent()) {
                // One line into a new connection's empty socket buffer always fits: written at once.
                ch.write(ByteBuffer.wrap((refusal.get() + "\n").getBytes(StandardCharsets.UTF_8)));
                ch.close();
                return;
            }
            Connection c = new Connection(ch, peer, System.nanoTime());
            c.key = ch.register(selector, SelectionKey.OP_READ, c);
            open++;
            perUser.merge(peer, 1, Integer::sum);
        } catch (IOException e) {
            closeQuietly(ch);
        }
    }

    /** Why a new connection of this user is refused, as the answer it gets; empty when it is served. */
    private Optional<String> refusal(String peer) {
        if (!shared && !peer.equals(user)) {
            return Optional.of(Requests.error("forbidden", "this gpusched serves " + user + " only; " + peer
                    + " needs a daemon of their own (gpusched serve)"));
        }
        if (shared && peer.equals("root")) {
            return Optional.empty(); // trusted, and so an admin can always reach a full daemon
        }
        if (open >= limits.connections()) {
            return Optional.of(Requests.error("too_many_connections", "this gpusched has " + open
                    + " connections open, its limit (gpusched serve --max-connections " + limits.connections()
                    + "); try again once some close"));
        }
        int mine = perUser.getOrDefault(peer, 0);
        if (shared && mine >= limits.connectionsPerUser()) {
            return Optional.of(Requests.error("too_many_connections", peer + " has " + mine
                    + " connections open to this gpusched, the most one user may (gpusched serve"
                    + " --max-connections-per-user " + limits.connectionsPerUser() + "); close some and try again"));
        }
        return Optional.empty();
    }

    private void read(Connection c) {
        int allowed = allowance(c);
        if (allowed == 0) {
            interest(c); // others took the shared memory since: it waits for some to come back
            return;
        }
        readBuffer.clear().limit(allowed);
        int n;
        try {
            n = c.channel.read(readBuffer);
        } catch (IOException e) {
            n = -1;
        }
        if (n < 0) {
            c.eof = true;
        } else if (n > 0) {
            readBuffer.flip();
            int before = c.capacity();
            c.append(readBuffer, mayGrow(c) ? Protocol.MAX_LINE_BYTES + READ_CHUNK
                    : Math.max(OWN_BYTES, c.capacity()));
            recharge(c, before);
        }
        pump(c);
    }

    /**
     * How many bytes a connection may read now: a whole read while {@link #SHARED_BYTES} and its user's
     * {@link #SHARED_BYTES_PER_USER} last, else only what fits its own {@link #OWN_BYTES} or the buffer it
     * already has (no memory taken from others).
     */
    private int allowance(Connection c) {
        if (mayGrow(c)) {
            return READ_CHUNK;
        }
        return Math.min(READ_CHUNK, Math.max(0, Math.max(OWN_BYTES, c.capacity()) - c.buffered()));
    }

    /** Whether a connection's input buffer may grow into {@link #SHARED_BYTES}: some is left, to it and its user. */
    private boolean mayGrow(Connection c) {
        return sharedInUse < SHARED_BYTES && (!shared || c.peer.equals("root")
                || sharedByUser.getOrDefault(c.peer, 0L) < SHARED_BYTES_PER_USER);
    }

    /** What an input buffer of this size takes of {@link #SHARED_BYTES}. */
    private static long charged(int capacity) {
        return Math.max(0, capacity - OWN_BYTES);
    }

    /** Counts a connection's input buffer again after it changed from {@code before} bytes. */
    private void recharge(Connection c, int before) {
        inputBytes += c.capacity() - before;
        long delta = charged(c.capacity()) - charged(before);
        if (delta == 0) {
            return;
        }
        sharedInUse += delta;
        sharedByUser.merge(c.peer, delta, (a, b) -> a + b == 0 ? null : a + b);
        if (delta < 0 && !starved.isEmpty()) {
            // Memory came back: those waiting for it read again, oldest first, as many as it may serve;
            // a connection whose user still holds their share waits on.
            long left = SHARED_BYTES - sharedInUse;
            for (Connection s : new ArrayList<>(starved)) {
                if (left <= 0) {
                    break;
                }
                if (allowance(s) > 0) {
                    interest(s);
                    left -= READ_CHUNK;
                }
            }
        }
    }

    /** @return bytes the input buffers of all connections take now: unfinished lines and room for them */
    long unfinishedBytes() {
        return inputBytes;
    }

    /**
     * Moves a connection on with what it has: the next whole request to be answered, a line to the
     * session waiting for one, or the end; then says what to wait for on it.
     */
    private void pump(Connection c) {
        while (!c.closed && !c.endAfterWrite) {
            if (c.state == Connection.State.BUSY && takeBack(c)) {
                continue; // its answer was written whole meanwhile: idle now
            }
            if (c.state == Connection.State.BUSY || (c.state == Connection.State.IDLE && !c.out.isEmpty())) {
                break; // one request at a time, and its answer read before the next is taken
            }
            if (c.state == Connection.State.SESSION && c.reader == null) {
                break;
            }
            Optional<String> line = c.lineLength() > Protocol.MAX_LINE_BYTES ? Optional.empty() : takeLine(c);
            if (line.isPresent()) {
                if (c.state == Connection.State.SESSION) {
                    deliver(c, line);
                } else if (!line.get().isBlank()) {
                    dispatch(c, line.get());
                }
                continue;
            }
            if (c.lineLength() > Protocol.MAX_LINE_BYTES) {
                if (c.state == Connection.State.SESSION) {
                    deliver(c, Optional.empty());
                } else {
                    lastWords(c, Requests.error("too_large", "request longer than " + Protocol.MAX_LINE_BYTES
                            + " bytes; the connection is closed"));
                }
                continue;
            }
            if (c.eof) {
                if (c.state == Connection.State.SESSION) {
                    deliver(c, Optional.empty());
                } else {
                    close(c);
                }
            }
            break;
        }
        interest(c);
    }

    private Optional<String> takeLine(Connection c) {
        int before = c.capacity();
        Optional<String> line = c.takeLine(OWN_BYTES);
        recharge(c, before);
        return line;
    }

    private void deliver(Connection c, Optional<String> line) {
        Consumer<Optional<String>> r = c.reader;
        c.reader = null;
        try {
            r.accept(line);
        } catch (RuntimeException e) {
            finish(c); // the session failed: its connection ends
        }
    }

    /**
     * Takes back a busy connection whose answer another thread wrote whole ({@link Connection#ANSWERED});
     * else, when it holds input it cannot take while busy (a whole line, its end, or a line already too
     * long, refused once it is idle), asks to be told
     * when the answer is written ({@link Connection#WANTED}).
     *
     * @return whether the connection is idle again
     */
    private boolean takeBack(Connection c) {
        if (c.handBack.get() != Connection.ANSWERED) {
            if (!(c.hasLine() || c.eof || c.lineLength() > Protocol.MAX_LINE_BYTES)) {
                return false; // its client's next bytes bring it here again
            }
            if (c.handBack.compareAndSet(0, Connection.WANTED)) {
                return false; // asked: the answering thread hands it back through the task queue
            }
            if (c.handBack.get() == Connection.WANTED) {
                return false; // asked before, and not answered yet
            }
            // Answered between the two reads: taken back now.
        }
        c.handBack.set(0);
        c.state = Connection.State.IDLE;
        c.rest = java.util.Collections.emptyIterator();
        c.held = null;
        c.idleSince = c.answeredAt;
        c.wroteAt = c.answeredAt;
        return true;
    }

    /** Says what the selector waits for on a connection: its answers to be writable, its next bytes. */
    private void interest(Connection c) {
        if (c.closed) {
            return;
        }
        int ops = c.out.isEmpty() ? 0 : SelectionKey.OP_WRITE;
        boolean wantsInput = !c.eof && !c.endAfterWrite && !c.hasLine() && switch (c.state) {
            case IDLE -> c.out.isEmpty();
            case SESSION -> c.reader != null;
            // Busy: read on until a whole line or the end is in (then it waits, takeBack): an answer
            // written whole by another thread needs no wake-up of this one, its client's next line does.
            case BUSY -> c.lineLength() <= Protocol.MAX_LINE_BYTES;
        };
        starved.remove(c);
        if (wantsInput) {
            if (allowance(c) > 0) {
                ops |= SelectionKey.OP_READ;
            } else {
                starved.add(c);
            }
        }
        c.key.interestOps(ops);
    }

    /** A whole request: answered off this thread, the answer queued back here when it is ready. */
    private void dispatch(Connection c, String line) {
        c.state = Connection.State.BUSY;
        if (!execute(answerers, () -> answer(c, line))) {
            close(c);
        }
    }

    /**
     * On an answering thread: the line decoded once into its typed request, then answered, or handed to
     * a worker when it must wait. A line that is no request is answered at once; a refused {@code srun}
     * or {@code srun_attach} closes its connection after the answer, as every refused srun does.
     */
    private void answer(Connection c, String line) {
        io.gpusched.protocol.Request req;
        try {
            req = Requests.decode(line);
        } catch (io.gpusched.protocol.UnreadableRequest e) {
            String error = Requests.errorOf(e);
            if (e.op().filter(op -> op.equals("srun") || op.equals("srun_attach")).isPresent()) {
                SrunSession.Client session = session(c);
                session.send(error);
                session.end();
            } else {
                reply(c, CompletableFuture.completedFuture(List.of(error)));
            }
            return;
        }
        if (req instanceof io.gpusched.protocol.Request.Srun || req instanceof io.gpusched.protocol.Request.SrunAttach) {
            boolean started = execute(workers, () -> SrunSession.start(scheduler, session(c), c.peer, req,
                    r -> execute(workers, r), timer));
            if (!started) {
                post(() -> close(c));
            }
        } else if (req instanceof io.gpusched.protocol.Request.Queue || req instanceof io.gpusched.protocol.Request.Job) {
            // Never older than what its asker may have seen: a job whose output they read, a number
            // they were given, in the round still under way. No thread waits for that board.
            // The queue's text is rendered on the renderers, one at a time per user, never here.
            Runnable answer = () -> reply(c, () -> requests.answer(req, c.peer));
            boolean render = requests.renders(req);
            CompletableFuture<Void> current = scheduler.whenSnapshotCurrent();
            if (current.isDone()) {
                if (!render) {
                    answer.run();
                } else if (!renders.submit(c.peer, answer)) {
                    post(() -> close(c));
                }
            } else {
                current.completeOnTimeout(null, CURRENT_SNAPSHOT_WAIT_MILLIS, TimeUnit.MILLISECONDS).whenComplete((v, e) -> {
                    if (!(render ? renders.submit(c.peer, answer) : execute(answerers, answer))) {
                        post(() -> close(c));
                    }
                });
            }
        } else if (req instanceof io.gpusched.protocol.Request.Stats) {
            if (!requests.takeStats(c.peer)) {
                reply(c, CompletableFuture.completedFuture(List.of(Requests.statsRefused(c.peer))));
            } else if (!execute(statsThread, () -> {
                try {
                    reply(c, () -> requests.answer(req, c.peer));
                } finally {
                    requests.statsDone(c.peer);
                }
            })) {
                requests.statsDone(c.peer);
                post(() -> close(c));
            }
        } else if (Requests.immediate(req)) {
            reply(c, () -> requests.answer(req, c.peer));
        } else if (!execute(workers, () -> reply(c, () -> requests.answer(req, c.peer)))) {
            post(() -> close(c));
        }
    }

    private void reply(Connection c, java.util.function.Supplier<CompletableFuture<List<String>>> answer) {
        CompletableFuture<List<String>> f;
        try {
            f = answer.get();
        } catch (RuntimeException e) {
            // What cannot be answered: its connection ends, nothing else.
            post(() -> close(c));
            return;
        }
        reply(c, f);
    }

    /**
     * Queues an answer when it is ready, from whichever thread completes it; the connection waits again.
     * Off the selector thread, its first chunk is written to the socket right there (a submission's number
     * by the loop's thread, which just forced its line): the client has it without waiting for the selector
     * thread to wake. While the connection is busy nothing else writes to it, so nothing is overtaken; the
     * channel is non-blocking, so what the socket does not take now is left for the selector thread, which
     * then takes the connection back as before.
     */
    private void reply(Connection c, CompletableFuture<List<String>> answer) {
        answer.whenComplete((lines, e) -> {
            java.util.Iterator<ByteBuffer> it = e == null ? chunks(lines) : null;
            // The first lines here, off the selector thread; the rest as the socket takes them.
            ByteBuffer bytes = it == null ? null : it.next();
            if (bytes != null && Thread.currentThread() != loop && !c.closed) {
                try {
                    c.channel.write(bytes);
                } catch (IOException ex) {
                    // closed meanwhile, or the client went away: the selector thread finds out and closes it
                }
                if (!bytes.hasRemaining() && !it.hasNext() && !(lines instanceof HeldAnswer)) {
                    // Written whole: the selector thread takes the connection back when it next looks at
                    // it, unless it holds input already (then it asked to be told, and is).
                    c.answeredAt = System.nanoTime();
                    if (c.handBack.compareAndSet(0, Connection.ANSWERED)) {
                        return;
                    }
                }
            }
            post(() -> {
                c.handBack.set(0);
                if (c.closed) {
                    release(lines);
                    return;
                }
                if (bytes == null) {
                    close(c);
                    return;
                }
                c.state = Connection.State.IDLE;
                c.rest = it;
                c.held = lines instanceof HeldAnswer h ? h : null;
                if (bytes.hasRemaining()) {
                    queue(c, bytes); // what is left of it, and, once written, the rest and then the next request
                } else {
                    c.wroteAt = System.nanoTime();
                    write(c); // the rest, if any, then the next request
                }
            });
        });
    }

    /**
     * @return the {@code queue} texts' shares of the {@link TextBudget} taken now: what they may hold
     *     rendered and unwritten (tests)
     */
    long heldTextBytes() {
        return requests.heldTextBytes();
    }

    /** Lets go of what an answer still holds (a text's unwritten bytes) when it will not be written. */
    private static void release(Object answer) {
        if (answer instanceof HeldAnswer h) {
            h.release();
        }
    }

    /** Bytes an answer's lines are rendered into at a time: one line of rows and a little more. */
    private static final int ANSWER_CHUNK_BYTES = 64 * 1024;

    /**
     * An answer's bytes in the chunks it is written in, each rendered when taken: a text's head line,
     * then its pieces ({@link PiecedAnswer}); any other answer's lines as many at a time as fit
     * {@link #ANSWER_CHUNK_BYTES}. One chunk at least.
     */
    private static java.util.Iterator<ByteBuffer> chunks(List<String> lines) {
        if (lines instanceof PiecedAnswer t) {
            return t.chunks();
        }
        java.util.Iterator<String> it = lines.iterator();
        return new java.util.Iterator<>() {
            private boolean first = true;

            @Override
            public boolean hasNext() {
                return first || it.hasNext();
            }

            @Override
            public ByteBuffer next() {
                first = false;
                return ByteBuffer.wrap(nextLines(it));
            }
        };
    }

    /** The next of an answer's lines, each with its line end, as many as fit {@link #ANSWER_CHUNK_BYTES} (one at least). */
    private static byte[] nextLines(java.util.Iterator<String> lines) {
        StringBuilder b = new StringBuilder();
        while (lines.hasNext() && (b.length() == 0 || b.length() < ANSWER_CHUNK_BYTES / 2)) {
            b.append(lines.next()).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The connection as an {@code srun} session holds it: every call handed to the selector thread. */
    private SrunSession.Client session(Connection c) {
        return new SrunSession.Client() {
            @Override
            public void send(String line) {
                byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
                post(() -> {
                    if (!c.closed) {
                        queue(c, bytes);
                        interest(c);
                    }
                });
            }

            @Override
            public void end() {
                post(() -> finish(c));
            }

            @Override
            public void nextLine(Consumer<Optional<String>> then) {
                post(() -> {
                    if (c.closed) {
                        then.accept(Optional.empty());
                        return;
                    }
                    c.state = Connection.State.SESSION;
                    c.reader = then;
                    pump(c);
                });
            }
        };
    }

    /** Queues bytes to write and writes what the socket takes now. */
    private void queue(Connection c, byte[] bytes) {
        queue(c, ByteBuffer.wrap(bytes));
    }

    private void queue(Connection c, ByteBuffer bytes) {
        if (c.out.isEmpty()) {
            c.wroteAt = System.nanoTime();
        }
        c.out.add(bytes);
        write(c);
    }

    private void write(Connection c) {
        if (c.closed) {
            return;
        }
        try {
            while (!c.out.isEmpty() || c.rest.hasNext()) {
                if (c.out.isEmpty()) {
                    ByteBuffer next;
                    try {
                        next = c.rest.next();
                    } catch (RuntimeException e) {
                        // An answer that cannot go on (a text whose next piece its budget cannot hold):
                        // its client sees the connection end in the middle of it, and says so.
                        close(c);
                        return;
                    }
                    c.out.add(next);
                }
                ByteBuffer b = c.out.peek();
                int n = c.channel.write(b);
                if (n > 0) {
                    c.wroteAt = System.nanoTime();
                }
                if (b.hasRemaining()) {
                    break;
                }
                c.out.poll();
            }
        } catch (IOException e) {
            close(c); // the client went away
            return;
        }
        if (c.out.isEmpty()) {
            if (c.endAfterWrite) {
                close(c);
                return;
            }
            c.idleSince = System.nanoTime();
            pump(c);
        } else {
            interest(c);
        }
    }

    /** The connection's last answer, then it closes. */
    private void lastWords(Connection c, String answer) {
        c.state = Connection.State.BUSY;
        c.endAfterWrite = true;
        int before = c.capacity();
        c.dropInput();
        recharge(c, before);
        queue(c, (answer + "\n").getBytes(StandardCharsets.UTF_8));
    }

    /** Closes a connection once what is queued on it is written. */
    private void finish(Connection c) {
        if (c.closed) {
            return;
        }
        c.endAfterWrite = true;
        if (c.out.isEmpty()) {
            close(c);
        } else {
            interest(c);
        }
    }

    private void close(Connection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        c.key.cancel();
        closeQuietly(c.channel);
        open--;
        perUser.computeIfPresent(c.peer, (u, n) -> n > 1 ? n - 1 : null);
        starved.remove(c);
        c.out.clear();
        c.rest = java.util.Collections.emptyIterator();
        release(c.held);
        c.held = null;
        int before = c.capacity();
        c.dropInput();
        recharge(c, before);
        if (c.reader != null && !closing) {
            // A session hears its client is gone. Not when the service stops: its leases are the
            // scheduler's to settle, as after a crash, and a client comes back with srun_attach.
            deliver(c, Optional.empty());
        }
    }

    /**
     * Closes what the idle timeout says: a connection waiting for a request that sent no whole one in
     * time, and one whose answers its client has not read for as long.
     */
    private void sweep(long now) {
        if (acceptPausedUntil != 0 && now - acceptPausedUntil >= 0) {
            acceptPausedUntil = 0;
            acceptKey.interestOps(SelectionKey.OP_ACCEPT);
        }
        long timeout = limits.idleTimeout().toNanos();
        for (SelectionKey k : new ArrayList<>(selector.keys())) {
            if (!(k.attachment() instanceof Connection c) || c.closed) {
                continue;
            }
            if (c.state == Connection.State.BUSY && c.handBack.get() == Connection.ANSWERED) {
                pump(c); // answered whole and not heard from since: idle, for the timeout below
            }
            if (!c.out.isEmpty() && now - c.wroteAt > timeout) {
                close(c); // its client does not read
            } else if (c.state == Connection.State.IDLE && c.out.isEmpty() && !c.endAfterWrite
                    && now - c.idleSince > timeout) {
                lastWords(c, Requests.error("idle_timeout", "no request for " + seconds(limits.idleTimeout())
                        + " (gpusched serve --idle-timeout); the connection is closed, connect again"));
            }
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }

    /** Runs a task on a pool; false when the service is closing and the pool takes no more. */
    private static boolean execute(ExecutorService pool, Runnable r) {
        try {
            pool.execute(r);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private static void closeQuietly(java.nio.channels.Channel c) {
        try {
            c.close();
        } catch (IOException e) {
            // already gone
        }
    }

    /** The selector thread's last act: answers already queued go out if the sockets take them at once. */
    private void shutDown() {
        runTasks();
        List<Connection> all = new ArrayList<>();
        try {
            for (SelectionKey k : selector.keys()) {
                if (k.attachment() instanceof Connection c) {
                    all.add(c);
                }
            }
        } catch (ClosedSelectorException e) {
            // nothing left to flush
        }
        for (Connection c : all) {
            write(c);
            close(c);
        }
        closeQuietly(server);
        try {
            selector.close();
        } catch (IOException e) {
            // closing
        }
    }

    /** Stops listening and removes the socket file; connections in progress end. */
    @Override
    public void close() {
        closing = true;
        selector.wakeup();
        try {
            loop.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(server);
        answerers.shutdownNow();
        renders.shutdownNow();
        workers.shutdownNow();
        statsThread.shutdownNow();
        timer.shutdownNow();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // a socket file left behind is replaced by the next daemon
        }
    }
}

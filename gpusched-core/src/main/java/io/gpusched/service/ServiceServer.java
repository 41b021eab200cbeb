package io.gpusched.service;

import io.gpusched.Scheduler;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * A scheduler's service: answers {@code PROTOCOL.md} requests on a UNIX domain socket, one thread per
 * connection, each request through the scheduler's thread-safe API ({@code submit}, {@code cancel},
 * {@code pause}, {@code resume}, {@code snapshot}), so the scheduler's loop stays the only owner of its
 * state. The caller's user comes from the kernel ({@code SO_PEERCRED}), never from the request.
 *
 * <p>{@link Access#OWNER_ONLY}: it serves the user it runs as and refuses every other (a user's daemon,
 * and a jobs-file run's socket). {@link Access#EVERY_USER}, for a daemon run by root: it serves every
 * user; each submission runs as its submitter (a root scheduler does that), a user cancels only their
 * own jobs, and only root and members of the admin group cancel anyone's and pause or resume GPUs.
 * What each request does is {@link Requests}'; this class owns the socket and the connections. A bad
 * request gets a typed error and the connection goes on; a request over {@link Protocol#MAX_LINE_BYTES}
 * closes it; nothing a client sends can stop the daemon.
 */
public final class ServiceServer implements AutoCloseable {
    /** Who may use a service. */
    public enum Access {
        /** Only the user the service runs as; the socket is that user's alone (0600, directory 0700). */
        OWNER_ONLY,
        /** Every user, each acting on their own jobs; needs root. The socket is 0666, its directory 0755. */
        EVERY_USER
    }

    private final Path socket;
    private final ServerSocketChannel server;
    private final String user;
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gpusched-client");
        t.setDaemon(true);
        return t;
    });
    private final Thread acceptor;
    private final boolean shared;
    private final Requests requests;
    private final Scheduler scheduler;

    private ServiceServer(Scheduler scheduler, Path socket, ServerSocketChannel server, boolean shared,
                          java.util.Optional<String> adminGroup, Optional<DashboardLinks> dashboard) {
        this.socket = socket;
        this.server = server;
        this.user = System.getProperty("user.name", "?");
        this.shared = shared;
        this.requests = new Requests(scheduler, shared, adminGroup, dashboard);
        this.scheduler = scheduler;
        this.acceptor = new Thread(this::accept, "gpusched-service");
        acceptor.setDaemon(true);
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
        return start(scheduler, socket, Access.OWNER_ONLY, java.util.Optional.empty());
    }

    /**
     * As {@link #start(Scheduler, Path)}, for the given users.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it; {@link Access#EVERY_USER} needs this process to run as root
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @return the running service
     * @throws ServiceException {@code forbidden} for {@code EVERY_USER} without root, besides those of
     *     {@link #start(Scheduler, Path)}
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, java.util.Optional<String> adminGroup) {
        return start(scheduler, socket, access, adminGroup, Optional.empty());
    }

    /**
     * As {@link #start(Scheduler, Path, Access, Optional)}, with a web dashboard beside it: the
     * {@code dashboard} op answers each caller their own URL from {@code dashboard}.
     *
     * @param scheduler the scheduler to serve
     * @param socket where to listen
     * @param access who may use it
     * @param adminGroup with {@code EVERY_USER}: members act on every job and pause GPUs, as root does
     * @param dashboard each user's dashboard URL; empty when none runs ({@code dashboard} answers
     *     {@code not_served})
     * @return the running service
     */
    public static ServiceServer start(Scheduler scheduler, Path socket, Access access, java.util.Optional<String> adminGroup,
                                      Optional<DashboardLinks> dashboard) {
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
            ch.bind(UnixDomainSocketAddress.of(abs));
            Files.setPosixFilePermissions(abs, PosixFilePermissions.fromString(shared ? "rw-rw-rw-" : "rw-------"));
            ServiceServer s = new ServiceServer(scheduler, abs, ch, shared, adminGroup, dashboard);
            s.acceptor.start();
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

    private void accept() {
        while (server.isOpen()) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (IOException e) {
                if (!server.isOpen()) {
                    return;
                }
                continue;
            }
            try {
                connections.execute(() -> serve(c));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                closeQuietly(c); // closing down: no new connection is served
                return;
            }
        }
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // already gone
        }
    }

    private void serve(SocketChannel c) {
        try (LineChannel lines = new LineChannel(c)) {
            String peer = peer(c);
            if (!shared && !peer.equals(user)) {
                lines.write(Requests.error("forbidden", "this gpusched serves " + user + " only; " + peer
                        + " needs a daemon of their own (gpusched serve)"));
                return;
            }
            while (true) {
                Optional<String> line;
                try {
                    line = lines.read();
                } catch (LineChannel.TooLong e) {
                    lines.write(Requests.error("too_large", e.getMessage() + "; the connection is closed"));
                    return;
                }
                if (line.isEmpty()) {
                    return;
                }
                if (line.get().isBlank()) {
                    continue;
                }
                Optional<Map<String, Object>> session = srunRequest(line.get());
                if (session.isPresent()) {
                    // An srun holds its connection to the end: the connection is how the daemon knows
                    // the client is still there.
                    SrunSession.serve(scheduler, lines, peer, session.get(), Requests::submission);
                    return;
                }
                lines.write(requests.answer(line.get(), peer));
            }
        } catch (IOException | RuntimeException e) {
            // The client went away or sent what cannot be answered: its connection ends, nothing else.
        }
    }

    private static Optional<Map<String, Object>> srunRequest(String line) {
        try {
            Map<String, Object> req = Json.parseObject(line);
            return SrunSession.wants(req) ? Optional.of(req) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // Requests answers it with the reason
        }
    }

    private static String peer(SocketChannel c) throws IOException {
        UnixDomainPrincipal p = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
        return p.user().getName();
    }

    /** Stops listening and removes the socket file; connections in progress end. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
        connections.shutdownNow();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // a socket file left behind is replaced by the next daemon
        }
    }
}

package io.gpusched.service;

import io.gpusched.CancelOutcome;
import io.gpusched.GpuschedException;
import io.gpusched.JobHandle;
import io.gpusched.JsonEventWriter;
import io.gpusched.Scheduler;
import io.gpusched.SubmitContext;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * own jobs, and only root and members of the admin group cancel anyone's and pause or resume GPUs. A bad request gets a typed error and the connection goes on; a request over
 * {@link Protocol#MAX_LINE_BYTES} closes it; nothing a client sends can stop the daemon.
 */
public final class ServiceServer implements AutoCloseable {
    /** Who may use a service. */
    public enum Access {
        /** Only the user the service runs as; the socket is that user's alone (0600, directory 0700). */
        OWNER_ONLY,
        /** Every user, each acting on their own jobs; needs root. The socket is 0666, its directory 0755. */
        EVERY_USER
    }

    private final Scheduler scheduler;
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
    private final java.util.Optional<String> adminGroup;

    private ServiceServer(Scheduler scheduler, Path socket, ServerSocketChannel server, boolean shared,
                          java.util.Optional<String> adminGroup) {
        this.scheduler = scheduler;
        this.socket = socket;
        this.server = server;
        this.user = System.getProperty("user.name", "?");
        this.shared = shared;
        this.adminGroup = adminGroup;
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
        Path abs = socket.toAbsolutePath();
        boolean shared = access == Access.EVERY_USER;
        if (shared && !"root".equals(System.getProperty("user.name"))) {
            throw new ServiceException("forbidden", "serving every user needs root (jobs run as their owners); as "
                    + System.getProperty("user.name") + ", serve yourself only");
        }
        try {
            Path dir = abs.getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString(shared ? "rwxr-xr-x" : "rwx------")));
            }
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
            ServiceServer s = new ServiceServer(scheduler, abs, ch, shared, adminGroup);
            s.acceptor.start();
            return s;
        } catch (IOException e) {
            throw new ServiceException("unreachable", "cannot listen on " + abs + ": " + e.getMessage());
        }
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
                lines.write(error("forbidden", "this gpusched serves " + user + " only; " + peer
                        + " needs a daemon of their own (gpusched serve)"));
                return;
            }
            while (true) {
                Optional<String> line;
                try {
                    line = lines.read();
                } catch (LineChannel.TooLong e) {
                    lines.write(error("too_large", e.getMessage() + "; the connection is closed"));
                    return;
                }
                if (line.isEmpty()) {
                    return;
                }
                if (line.get().isBlank()) {
                    continue;
                }
                lines.write(answer(line.get(), peer));
            }
        } catch (IOException | RuntimeException e) {
            // The client went away or sent what cannot be answered: its connection ends, nothing else.
        }
    }

    private static String peer(SocketChannel c) throws IOException {
        UnixDomainPrincipal p = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
        return p.user().getName();
    }

    String answer(String line, String peer) {
        Map<String, Object> req;
        try {
            req = Json.parseObject(line);
        } catch (IllegalArgumentException e) {
            return error("bad_request", "not a request: " + e.getMessage());
        }
        Object v = req.get("v");
        if (!(v instanceof Long version) || version != Protocol.VERSION) {
            return error("unsupported_version", "this gpusched speaks protocol version " + Protocol.VERSION + ", the request"
                    + " says " + v + "; use a client of the same release");
        }
        try {
            return switch (String.valueOf(req.get("op"))) {
                case "hello" -> ok(Map.of("server", "gpusched", "user", peer));
                case "submit" -> submit(req, peer);
                case "queue" -> queue();
                case "cancel" -> cancel(req, peer);
                case "logs" -> logs(req);
                case "pause", "resume" -> pause(req, peer);
                default -> error("unknown_op", "unknown op '" + req.get("op") + "'; known: hello, submit, queue, cancel,"
                        + " pause, resume, logs");
            };
        } catch (Forbidden e) {
            return error("forbidden", e.getMessage());
        } catch (BadRequest e) {
            return error("bad_request", e.getMessage());
        } catch (JobSpecException e) {
            return error("bad_job", e.getMessage());
        } catch (IllegalArgumentException e) {
            return error("bad_request", e.getMessage());
        } catch (GpuschedException e) {
            return error("failed", e.getMessage());
        }
    }

    private String submit(Map<String, Object> req, String peer) {
        JobSpec spec = JobSpec.parse(string(req, "line"));
        Path cwd = Path.of(string(req, "cwd"));
        Optional<Map<String, String>> env = Optional.empty();
        if (req.get("env") instanceof Map<?, ?> m) {
            Map<String, String> e = new LinkedHashMap<>();
            for (Map.Entry<?, ?> x : m.entrySet()) {
                if (!(x.getValue() instanceof String s)) {
                    throw new BadRequest("\"env\" must map names to strings");
                }
                e.put(String.valueOf(x.getKey()), s);
            }
            env = Optional.of(e);
        } else if (req.containsKey("env") && req.get("env") != null) {
            throw new BadRequest("\"env\" must be an object");
        }
        if (!cwd.isAbsolute()) {
            throw new BadRequest("\"cwd\" must be an absolute path, got " + cwd);
        }
        JobHandle h = scheduler.submit(spec, new SubmitContext(peer, cwd, env));
        try {
            return ok(Map.of("no", h.number().get(30, TimeUnit.SECONDS)));
        } catch (ExecutionException e) {
            throw new GpuschedException(e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new GpuschedException("the scheduler did not take the job within 30 s; it may be stopping");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GpuschedException("interrupted");
        }
    }

    private String queue() {
        return scheduler.snapshot()
                .map(s -> ok(Map.of("snapshot", new Json.RawJson(JsonEventWriter.valueToJson(s)))))
                .orElseGet(() -> error("not_ready", "the scheduler has not made its first round yet; try again"));
    }

    private String cancel(Map<String, Object> req, String peer) {
        int no = (int) whole(req, "no");
        if (shared && !admin(peer)) {
            scheduler.owner(no).filter(o -> !o.equals(peer)).ifPresent(o -> {
                throw new Forbidden("job " + no + " is " + o + "'s; only " + o + " or an admin (root"
                        + adminGroup.map(g -> ", group " + g).orElse("") + ") may cancel it");
            });
        }
        CancelOutcome o = scheduler.cancel(no);
        return ok(Map.of("outcome", o.name().toLowerCase(java.util.Locale.ROOT)));
    }

    /** A job's log files (one per attempt on other GPUs), oldest first, and whether it may still write. */
    private String logs(Map<String, Object> req) {
        int no = (int) whole(req, "no");
        String prefix = String.format("job%03d_gpu", no);
        java.util.List<String> paths = new java.util.ArrayList<>();
        try (var files = Files.list(scheduler.logDir())) {
            files.filter(f -> f.getFileName().toString().startsWith(prefix) && f.getFileName().toString().endsWith(".log"))
                    .sorted(java.util.Comparator.comparing(ServiceServer::modified))
                    .forEach(f -> paths.add(f.toAbsolutePath().toString()));
        } catch (IOException e) {
            throw new GpuschedException("cannot list " + scheduler.logDir() + ": " + e.getMessage());
        }
        // Asked of the loop, not read from a snapshot: a snapshot a round old would call a job that just
        // started (its log already there) ended, and a follower would stop.
        String state = scheduler.state(no);
        return ok(Map.of("paths", paths, "state", state));
    }

    private static java.nio.file.attribute.FileTime modified(Path f) {
        try {
            return Files.getLastModifiedTime(f);
        } catch (IOException e) {
            return java.nio.file.attribute.FileTime.fromMillis(0);
        }
    }

    private String pause(Map<String, Object> req, String peer) {
        int gpu = (int) whole(req, "gpu");
        if (shared && !admin(peer)) {
            throw new Forbidden("pausing and resuming GPUs is for admins (root" + adminGroup.map(g -> ", group " + g)
                    .orElse("") + "); ask one");
        }
        if ("pause".equals(req.get("op"))) {
            scheduler.pause(gpu);
        } else {
            scheduler.resume(gpu);
        }
        return ok(Map.of());
    }

    private static String string(Map<String, Object> req, String name) {
        if (req.get(name) instanceof String s) {
            return s;
        }
        throw new BadRequest("\"" + name + "\" must be a string");
    }

    private static long whole(Map<String, Object> req, String name) {
        if (req.get(name) instanceof Long l && l >= 0 && l <= Integer.MAX_VALUE) {
            return l;
        }
        throw new BadRequest("\"" + name + "\" must be a whole number");
    }

    private static String ok(Map<String, ?> fields) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", Protocol.VERSION);
        m.put("ok", true);
        m.putAll(fields);
        return Json.write(m);
    }

    private static String error(String code, String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", Protocol.VERSION);
        m.put("ok", false);
        m.put("error", Map.of("code", code, "message", message));
        return Json.write(m);
    }

    /** Whether a user may act on every job and on GPUs: root, or a member of the admin group. */
    private boolean admin(String peer) {
        if (peer.equals("root")) {
            return true;
        }
        if (adminGroup.isEmpty()) {
            return false;
        }
        try {
            Process p = new ProcessBuilder("id", "-nG", "--", peer).redirectErrorStream(true).start();
            String groups = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return p.waitFor() == 0 && java.util.List.of(groups.strip().split("\\s+")).contains(adminGroup.get());
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A request this caller may not make. */
    private static final class Forbidden extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Forbidden(String message) {
            super(message);
        }
    }

    /** A request whose fields are missing or of the wrong type. */
    private static final class BadRequest extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
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

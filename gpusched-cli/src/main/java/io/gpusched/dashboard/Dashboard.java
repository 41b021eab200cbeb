package io.gpusched.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpusched.model.GpuschedException;
import io.gpusched.event.JsonEventWriter;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.QueueView;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.Scheduler;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The read-only web dashboard and its APIs, on the JDK's HTTP server with threads of its own (never the
 * scheduler's loop): {@code /} the page (one file, no external assets), {@code /events} its live updates
 * (Server-Sent Events), {@code /api/queue} the queue snapshot, {@code /api/jobs/N} one job with its
 * memory timeline, {@code /metrics} Prometheus text, and {@code /status} and {@code /jobs} in
 * local-gpu-scheduler's fields ({@link LocalSchedulerApi}). Only GET and HEAD are answered: it changes nothing.
 *
 * <p>Only the people its daemon's socket serves read it ({@link DashboardAccess}): every request carries
 * its user's token ({@code ?token=}, or {@code Authorization: Bearer}), which the socket hands out
 * ({@link #urlFor}); one without is answered 401, one with a token this daemon did not issue to a user it
 * serves 403, each with one line saying to run {@code gpusched dashboard}. A request whose {@code Host}
 * is not the dashboard's own address ({@link AllowedHosts}) is answered 403 before anything else.
 *
 * <p>No user, with a token or without, holds it up for the others or takes the daemon's files through
 * it: the server holds at most {@link ServerLimits#MAX_CONNECTIONS} connections, each of which may have
 * a thread, and ends a request whose headers do not arrive in time ({@link ServerLimits}); live pages
 * are capped in all and per user, and one that does not read is dropped ({@link EventStream}).
 */
public final class Dashboard implements AutoCloseable {
    /** Writes {@code /api/queue}: the queue in the protocol's fields, as a {@code queue} answer's snapshot. */
    private static final ProtocolCodec QUEUE_CODEC = new ProtocolCodec();
    private final HttpServer server;
    private final ExecutorService http;
    private final ScheduledExecutorService ticker;
    private final EventStream events;
    private final String url;
    private final DashboardAccess access;
    private final Tokens tokens;

    private Dashboard(HttpServer server, ExecutorService http, ScheduledExecutorService ticker, EventStream events,
                      String url, DashboardAccess access, Tokens tokens) {
        this.server = server;
        this.http = http;
        this.ticker = ticker;
        this.events = events;
        this.url = url;
        this.access = access;
        this.tokens = tokens;
    }

    /** Who a request is from, once its token was checked. */
    private sealed interface Caller {
        /** A user the socket serves, by the token it gave them. */
        record User(String name) implements Caller {
        }

        /** The holder of {@code --metrics-token-file}'s token: admitted to {@code /metrics} only. */
        record Scraper() implements Caller {
        }
    }

    /**
     * Starts listening.
     *
     * @param scheduler whose queue it shows (read through {@link Scheduler#snapshot()} and
     *     {@link Scheduler#timeline(int)}, which never wait for the loop)
     * @param address where to listen; the caller has checked it ({@link DashboardAddress#requireAllowed})
     * @param metrics what {@code /metrics} shows; a listener of the same scheduler
     * @param access who may read it: its daemon's socket's users, each by the token {@link #urlFor} gives them
     * @return the running dashboard
     * @throws GpuschedException with a one-line message when it cannot listen there
     */
    public static Dashboard start(Scheduler scheduler, DashboardAddress address, Metrics metrics, DashboardAccess access) {
        HttpServer server;
        // Before the server is made: the JDK reads its limits once, at the JVM's first HttpServer.
        ServerLimits.apply();
        try {
            server = HttpServer.create(address.socketAddress(), 50);
        } catch (IOException e) {
            throw new GpuschedException("--dashboard " + address.host() + ":" + address.port() + ": cannot listen there ("
                    + e.getMessage() + "); pick another port, or 0 for any free one");
        }
        String page = page();
        // The daemon's start: the dashboard starts with it, and the JVM's own start is earlier still.
        java.time.Instant started = ProcessHandle.current().info().startInstant().orElseGet(java.time.Instant::now);
        int port = server.getAddress().getPort();
        Tokens tokens = Tokens.fresh();
        AllowedHosts hosts = AllowedHosts.of(address, server.getAddress());
        EventStream events = new EventStream(scheduler);
        // The JDK reads a request's line and headers on this pool's thread, before any handler (and so before
        // the token) is reached: a fixed handful of threads would be held by as many connections that send
        // half a header. A thread for every connection the server may hold (ServerLimits) cannot run out
        // before the connections do, and ServerLimits.MAX_REQUEST_SECONDS ends such a connection. An
        // /events stream holds its thread while it lasts: it writes the page's events (EventStream). Past
        // the cap (a connection just closed whose thread has not yet returned) the JDK closes the new one.
        ThreadPoolExecutor http = new ThreadPoolExecutor(4, ServerLimits.MAX_CONNECTIONS, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), daemon("gpusched-dashboard-http"));
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemon("gpusched-dashboard-events"));
        server.setExecutor(http);
        AnswerSlots answers = new AnswerSlots();
        server.createContext("/", ex -> {
            answers.startClock();
            try (ex) {
                Optional<Caller> caller = admit(ex, hosts, tokens, access);
                if (caller.isEmpty()) {
                    return;
                }
                if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
                    ex.getResponseHeaders().set("Allow", "GET, HEAD");
                    send(ex, 405, "text/plain; charset=utf-8", "the dashboard is read-only: GET or HEAD\n");
                    return;
                }
                if (!answers.take()) {
                    send(ex, 503, "application/json", error("busy", "the dashboard is answering "
                            + AnswerSlots.MAX_ANSWERS + " requests already; try again"));
                    return;
                }
                try {
                    route(ex, caller.get(), scheduler, metrics, events, page, started, port);
                } finally {
                    answers.give();
                }
            } catch (RuntimeException e) {
                send(ex, 500, "text/plain; charset=utf-8", "gpusched dashboard: " + e + "\n");
            } finally {
                answers.stopClock();
            }
        });
        server.createContext("/events", ex -> {
            Optional<Caller> caller;
            // The refusals under the answers' clock; a stream has its own rules (EventStream.STALL_MS).
            answers.startClock();
            try {
                caller = admit(ex, hosts, tokens, access);
            } catch (IOException | RuntimeException e) {
                ex.close();
                return;
            } finally {
                answers.stopClock();
            }
            if (caller.isEmpty() || !(caller.get() instanceof Caller.User user)) {
                // Refused (answered by admit); the scraper's token is admitted to /metrics alone.
                ex.close();
                return;
            }
            // Writes the page's events on this thread until it closes or is dropped; then throws, so that
            // the JDK closes the connection and forgets it (its count towards ServerLimits.MAX_CONNECTIONS).
            events.serve(ex, user.name());
        });
        ticker.scheduleWithFixedDelay(() -> {
            try {
                answers.enforce(System.nanoTime());
                events.tick(System.nanoTime() / 1_000_000);
            } catch (RuntimeException e) {
                // one bad tick must not end the pushes; the next tries again
            }
        }, EventStream.TICK_MS, EventStream.TICK_MS, TimeUnit.MILLISECONDS);
        server.start();
        InetSocketAddress bound = server.getAddress();
        String host = bound.getAddress().getHostAddress();
        String url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort() + "/";
        return new Dashboard(server, http, ticker, events, url, access, tokens);
    }

    /**
     * @return where it listens, e.g. {@code http://127.0.0.1:8765/} (with the port taken when 0 was asked),
     *     without a token: what a daemon may print in its log
     */
    public String url() {
        return url;
    }

    /**
     * A user's own address of the dashboard, for the socket's {@code dashboard} op
     * ({@code io.gpusched.service.DashboardLinks}).
     *
     * @param user the caller, as the kernel named them to the socket
     * @return {@link #url()} with {@code ?token=} that user's token, which holds until the daemon stops;
     *     empty for a user this dashboard does not serve (another user of a user's daemon)
     */
    public Optional<String> urlFor(String user) {
        return access.serves(user) ? Optional.of(url + "?token=" + tokens.issue(user)) : Optional.empty();
    }

    /** Stops listening, ends the open event streams, and its threads. */
    @Override
    public void close() {
        ticker.shutdownNow();
        events.closeAll();
        server.stop(0);
        http.shutdownNow();
    }

    /**
     * Checks a request's {@code Host} and token; answers the refusal itself.
     *
     * @return who asks; empty when the request was refused
     */
    private static Optional<Caller> admit(HttpExchange ex, AllowedHosts hosts, Tokens tokens, DashboardAccess access)
            throws IOException {
        Optional<String> host = Optional.ofNullable(ex.getRequestHeaders().getFirst("Host"));
        if (!hosts.allows(host)) {
            send(ex, 403, "text/plain; charset=utf-8", "gpusched dashboard: Host '" + host.orElse("")
                    + "' is not this dashboard's address; open the URL gpusched dashboard prints\n");
            return Optional.empty();
        }
        Optional<String> token = token(ex);
        if (token.isEmpty()) {
            ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"gpusched\"");
            send(ex, 401, "text/plain; charset=utf-8", "gpusched dashboard: this needs your token; run gpusched dashboard "
                    + "for your URL\n");
            return Optional.empty();
        }
        // The scraper's token opens /metrics alone: elsewhere it is refused as any unknown token.
        if (access.metricsToken().isPresent() && ex.getRequestURI().getPath().equals("/metrics")
                && Tokens.same(access.metricsToken().get(), token.get())) {
            return Optional.of(new Caller.Scraper());
        }
        Optional<String> user = tokens.user(token.get()).filter(access::serves);
        if (user.isEmpty()) {
            send(ex, 403, "text/plain; charset=utf-8", "gpusched dashboard: this token is not valid here (mistyped, "
                    + "another daemon's, or from before this daemon started); run gpusched dashboard for your URL\n");
            return Optional.empty();
        }
        return Optional.of(new Caller.User(user.get()));
    }

    /** The token a request carries: {@code ?token=}, else {@code Authorization: Bearer}. */
    private static Optional<String> token(HttpExchange ex) {
        String query = ex.getRequestURI().getRawQuery();
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("token=")) {
                    return Optional.of(java.net.URLDecoder.decode(pair.substring("token=".length()), StandardCharsets.UTF_8))
                            .filter(t -> !t.isEmpty());
                }
            }
        }
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.of(auth.substring(7).strip()).filter(t -> !t.isEmpty());
        }
        return Optional.empty();
    }

    private static void route(HttpExchange ex, Caller caller, Scheduler scheduler, Metrics metrics, EventStream events,
                              String page, java.time.Instant started, int port) throws IOException {
        String path = ex.getRequestURI().getPath();
        // The caller (a user by their token, or the scraper on /metrics) is shown the whole queue, as the
        // socket's queue op shows it to every user (PROTOCOL.md); where that op comes to hide something
        // per user, this is where to match it.
        Optional<QueueSnapshot> snap = scheduler.snapshot();
        if (path.equals("/") || path.equals("/index.html")) {
            // Its <noscript> line links /api/queue with the caller's own token: without JavaScript
            // nothing else could add it. URL-encoded, so nothing in it can end the attribute.
            send(ex, 200, "text/html; charset=utf-8", page.replace("%TOKEN%",
                    java.net.URLEncoder.encode(token(ex).orElse(""), StandardCharsets.UTF_8)));
        } else if (path.equals("/metrics")) {
            send(ex, 200, PrometheusText.CONTENT_TYPE, Metrics.scrape(metrics.exposition(), events.open()));
        } else if (path.equals("/api/queue")) {
            if (snap.isEmpty()) {
                notReady(ex);
            } else {
                // Every row, each command cut as in gpusched queue: /api/jobs/N has it whole.
                send(ex, 200, "application/json", QUEUE_CODEC.encode(QueueView.listed(snap.get())));
            }
        } else if (path.startsWith("/api/jobs/")) {
            job(ex, scheduler, snap, path.substring("/api/jobs/".length()));
        } else if (path.equals("/status") || path.equals("/jobs")) {
            // local-gpu-scheduler's two documents, shown to whom /api/queue is: the same whole queue.
            if (snap.isEmpty()) {
                notReady(ex);
            } else if (path.equals("/status")) {
                send(ex, 200, "application/json", LocalSchedulerApi.status(snap.get(), BuildInfo.current().version(),
                        started, java.time.Instant.now(), port));
            } else {
                send(ex, 200, "application/json", LocalSchedulerApi.jobs(snap.get(), metrics.pids()));
            }
        } else {
            send(ex, 404, "application/json", error("not_found", "no such page: " + path
                    + "; there are /, /events, /api/queue, /api/jobs/N, /status, /jobs and /metrics"));
        }
    }

    private static void job(HttpExchange ex, Scheduler scheduler, Optional<QueueSnapshot> snap, String n) throws IOException {
        int no;
        try {
            no = Integer.parseInt(n);
        } catch (NumberFormatException e) {
            send(ex, 400, "application/json", error("bad_request", "a job's number, e.g. /api/jobs/3, got '" + n + "'"));
            return;
        }
        if (snap.isEmpty()) {
            notReady(ex);
            return;
        }
        Optional<JobView> view = JobView.of(snap.get(), no, scheduler.timeline(no));
        if (view.isEmpty()) {
            send(ex, 404, "application/json", error("no_job", "no job " + no + " in this queue"));
        } else {
            send(ex, 200, "application/json", JsonEventWriter.valueToJson(view.get()));
        }
    }

    private static void notReady(HttpExchange ex) throws IOException {
        send(ex, 503, "application/json", error("not_ready", "the scheduler has not made its first round yet; try again"));
    }

    private static String error(String code, String message) {
        return JsonEventWriter.valueToJson(java.util.Map.of("error", code, "message", message));
    }

    static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        send(ex, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        // The page's URL carries its user's token: no other site hears of it.
        ex.getResponseHeaders().set("Referrer-Policy", "no-referrer");
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head) {
            ex.getResponseBody().write(body);
        }
    }

    private static String page() {
        try (InputStream in = Dashboard.class.getResourceAsStream("dashboard.html")) {
            if (in == null) {
                throw new GpuschedException("the dashboard's page is missing from the jar (io/gpusched/dashboard/dashboard.html)");
            }
            return notesFilledIn(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The page with its {@code %NOTES%} filled in: the JSON field names of the shown attributes, in table order,
     * which its queue shows after a job's command. Field names are lower-case words and {@code _}, so nothing in
     * them needs escaping.
     */
    static String notesFilledIn(String page) {
        return page.replace("%NOTES%", io.gpusched.jobs.Attribute.SHOWN.stream().map(a -> "\"" + a.fieldName() + "\"")
                .collect(java.util.stream.Collectors.joining(",", "[", "]")));
    }

    private static ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}

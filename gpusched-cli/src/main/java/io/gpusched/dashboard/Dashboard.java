package io.gpusched.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpusched.GpuschedException;
import io.gpusched.JsonEventWriter;
import io.gpusched.QueueSnapshot;
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
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The read-only web dashboard and its APIs, on the JDK's HTTP server with threads of its own (never the
 * scheduler's loop): {@code /} the page (one file, no external assets), {@code /events} its live updates
 * (Server-Sent Events), {@code /api/queue} the queue snapshot, {@code /api/jobs/N} one job with its
 * memory timeline, {@code /metrics} Prometheus text. Only GET and HEAD are answered: it changes nothing.
 */
public final class Dashboard implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService http;
    private final ScheduledExecutorService ticker;
    private final EventStream events;
    private final String url;

    private Dashboard(HttpServer server, ExecutorService http, ScheduledExecutorService ticker, EventStream events,
                      String url) {
        this.server = server;
        this.http = http;
        this.ticker = ticker;
        this.events = events;
        this.url = url;
    }

    /**
     * Starts listening.
     *
     * @param scheduler whose queue it shows (read through {@link Scheduler#snapshot()} and
     *     {@link Scheduler#timeline(int)}, which never wait for the loop)
     * @param address where to listen; the caller has checked it ({@link DashboardAddress#requireAllowed})
     * @param metrics what {@code /metrics} shows; a listener of the same scheduler
     * @return the running dashboard
     * @throws GpuschedException with a one-line message when it cannot listen there
     */
    public static Dashboard start(Scheduler scheduler, DashboardAddress address, Metrics metrics) {
        HttpServer server;
        try {
            server = HttpServer.create(address.socketAddress(), 50);
        } catch (IOException e) {
            throw new GpuschedException("--dashboard " + address.host() + ":" + address.port() + ": cannot listen there ("
                    + e.getMessage() + "); pick another port, or 0 for any free one");
        }
        byte[] page = page();
        EventStream events = new EventStream(scheduler);
        ExecutorService http = Executors.newFixedThreadPool(4, daemon("gpusched-dashboard-http"));
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemon("gpusched-dashboard-events"));
        server.setExecutor(http);
        server.createContext("/", ex -> {
            try (ex) {
                if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
                    ex.getResponseHeaders().set("Allow", "GET, HEAD");
                    send(ex, 405, "text/plain; charset=utf-8", "the dashboard is read-only: GET or HEAD\n");
                    return;
                }
                route(ex, scheduler, metrics, events, page);
            } catch (RuntimeException e) {
                send(ex, 500, "text/plain; charset=utf-8", "gpusched dashboard: " + e + "\n");
            }
        });
        server.createContext("/events", ex -> {
            try {
                events.subscribe(ex);
            } catch (IOException e) {
                ex.close();
            }
        });
        ticker.scheduleWithFixedDelay(() -> {
            try {
                events.tick(System.nanoTime() / 1_000_000);
            } catch (RuntimeException e) {
                // one bad tick must not end the pushes; the next tries again
            }
        }, EventStream.TICK_MS, EventStream.TICK_MS, TimeUnit.MILLISECONDS);
        server.start();
        InetSocketAddress bound = server.getAddress();
        String host = bound.getAddress().getHostAddress();
        String url = "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort() + "/";
        return new Dashboard(server, http, ticker, events, url);
    }

    /** @return where it listens, e.g. {@code http://127.0.0.1:8765/} (with the port taken when 0 was asked) */
    public String url() {
        return url;
    }

    /** Stops listening, ends the open event streams, and its threads. */
    @Override
    public void close() {
        ticker.shutdownNow();
        events.closeAll();
        server.stop(0);
        http.shutdownNow();
    }

    private static void route(HttpExchange ex, Scheduler scheduler, Metrics metrics, EventStream events, byte[] page)
            throws IOException {
        String path = ex.getRequestURI().getPath();
        Optional<QueueSnapshot> snap = scheduler.snapshot();
        if (path.equals("/") || path.equals("/index.html")) {
            send(ex, 200, "text/html; charset=utf-8", page);
        } else if (path.equals("/metrics")) {
            send(ex, 200, PrometheusText.CONTENT_TYPE, Metrics.render(metrics.exposition()) + dashboardMetrics(events));
        } else if (path.equals("/api/queue")) {
            if (snap.isEmpty()) {
                notReady(ex);
            } else {
                // Every row, each command cut as in gpusched queue: /api/jobs/N has it whole.
                send(ex, 200, "application/json", JsonEventWriter.listJson(snap.get(),
                        io.gpusched.service.Protocol.LIST_COMMAND_CHARS, io.gpusched.service.Protocol.LIST_TEXT_CHARS));
            }
        } else if (path.startsWith("/api/jobs/")) {
            job(ex, scheduler, snap, path.substring("/api/jobs/".length()));
        } else {
            send(ex, 404, "application/json", error("not_found", "no such page: " + path
                    + "; there are /, /events, /api/queue, /api/jobs/N and /metrics"));
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

    /** The dashboard's own gauge, beside the scheduler's metrics. */
    private static String dashboardMetrics(EventStream events) {
        return new PrometheusText().gauge("gpusched_dashboard_event_streams", "Pages subscribed to /events now.",
                java.util.List.of(PrometheusText.Sample.of(events.open()))).toString();
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
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head) {
            ex.getResponseBody().write(body);
        }
    }

    private static byte[] page() {
        try (InputStream in = Dashboard.class.getResourceAsStream("dashboard.html")) {
            if (in == null) {
                throw new GpuschedException("the dashboard's page is missing from the jar (io/gpusched/dashboard/dashboard.html)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

package io.gpusched.dashboard;

import com.sun.net.httpserver.HttpExchange;
import io.gpusched.JsonEventWriter;
import io.gpusched.QueueSnapshot;
import io.gpusched.Scheduler;
import io.gpusched.StatusBoard;
import io.gpusched.VramTimeline;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code /events}: Server-Sent Events to every open page. One thread of the dashboard's own ticks
 * {@link #TICK_MS} apart: when the scheduler published a new queue snapshot, or a running job's
 * timeline grew, it writes one {@code queue} event ({@code {"snapshot": ..., "timelines": {no: ...}}},
 * the running jobs' timelines) to every stream; so at most a few per second, whatever the loop does.
 * Every write happens on that thread, so no two writes to one stream interleave.
 */
final class EventStream {
    /** Between looks at the scheduler: at most four events a second. */
    static final long TICK_MS = 250;
    /** Open pages beyond this are answered 503: each holds a connection. */
    static final int MAX_STREAMS = 32;
    private static final long KEEPALIVE_MS = 15_000;

    private final Scheduler scheduler;
    private final List<Stream> streams = new CopyOnWriteArrayList<>();
    // The tick thread's own: what the last event showed.
    private Object lastSeen;
    private String lastPayload;
    private long lastWriteMs;

    private record Stream(HttpExchange exchange, OutputStream out, boolean[] primed) {
    }

    EventStream(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** @return how many pages are subscribed now */
    int open() {
        return streams.size();
    }

    /** An HTTP thread: answers the headers and hands the stream to the tick thread. */
    void subscribe(HttpExchange ex) throws IOException {
        if (streams.size() >= MAX_STREAMS) {
            Dashboard.send(ex, 503, "application/json", "{\"error\":\"busy\",\"message\":\"" + MAX_STREAMS
                    + " pages are open already; close one\"}");
            return;
        }
        ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        // Reconnect after 2 s if the daemon restarts; the first event follows on the next tick.
        out.write("retry: 2000\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        streams.add(new Stream(ex, out, new boolean[1]));
    }

    /** The tick thread. */
    void tick(long nowMs) {
        if (streams.isEmpty()) {
            lastSeen = null;
            return;
        }
        Optional<QueueSnapshot> snap = scheduler.snapshot();
        if (snap.isEmpty()) {
            return;
        }
        Map<Integer, VramTimeline> timelines = new TreeMap<>();
        List<Object> seen = new ArrayList<>();
        seen.add(snap.get());
        for (StatusBoard.Running r : snap.get().board().running()) {
            scheduler.timeline(r.no()).ifPresent(t -> {
                timelines.put(t.no(), t);
                seen.add(t.points().size() + ":" + (t.points().isEmpty() ? "" : t.points().get(t.points().size() - 1)));
            });
        }
        boolean changed = !seen.equals(lastSeen);
        if (changed) {
            lastSeen = seen;
            lastPayload = "event: queue\ndata: " + JsonEventWriter.valueToJson(Map.of("snapshot", snap.get(),
                    "timelines", timelines)) + "\n\n";
        }
        boolean keepalive = nowMs - lastWriteMs >= KEEPALIVE_MS;
        for (Stream s : streams) {
            String text = changed || !s.primed()[0] ? lastPayload : keepalive ? ": keepalive\n\n" : null;
            if (text == null) {
                continue;
            }
            try {
                s.out().write(text.getBytes(StandardCharsets.UTF_8));
                s.out().flush();
                s.primed()[0] = true;
            } catch (IOException e) {
                // The page went away.
                streams.remove(s);
                s.exchange().close();
            }
        }
        if (changed || keepalive) {
            lastWriteMs = nowMs;
        }
    }

    /** Ends every stream. */
    void closeAll() {
        for (Stream s : streams) {
            s.exchange().close();
        }
        streams.clear();
    }
}

package io.gpusched.dashboard;

import com.sun.net.httpserver.HttpExchange;
import io.gpusched.JsonEventWriter;
import io.gpusched.QueueSnapshot;
import io.gpusched.Scheduler;
import io.gpusched.StatusBoard;
import io.gpusched.VramTimeline;
import io.gpusched.service.Protocol;
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
 * timeline grew, it writes one {@code queue} event ({@code {"snapshot": ..., "timelines": {no: ...},
 * "left_out": {list: n}}}: the snapshot as {@link #shown} cuts it, texts cut as a list view's, the
 * running jobs' timelines) to every stream; so at most a few per second, whatever the loop does.
 * Every write happens on that thread, so no two writes to one stream interleave.
 */
final class EventStream {
    /** Between looks at the scheduler: at most four events a second. */
    static final long TICK_MS = 250;
    /** The pending jobs an update carries, from the head of the queue. */
    static final int PENDING_ROWS = 500;
    /** The newest finished jobs an update carries, of this run's and of earlier runs' each. */
    static final int FINISHED_ROWS = 50;
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
        QueueSnapshot shown = shown(snap.get());
        Map<String, Integer> leftOut = leftOut(snap.get().board(), shown.board());
        Map<Integer, VramTimeline> timelines = new TreeMap<>();
        List<Object> seen = new ArrayList<>();
        seen.add(shown);
        seen.add(leftOut);
        for (StatusBoard.Running r : snap.get().board().running()) {
            scheduler.timeline(r.no()).ifPresent(t -> {
                timelines.put(t.no(), t);
                seen.add(t.points().size() + ":" + (t.points().isEmpty() ? "" : t.points().get(t.points().size() - 1)));
            });
        }
        boolean changed = !seen.equals(lastSeen);
        if (changed) {
            lastSeen = seen;
            lastPayload = "event: queue\ndata: " + JsonEventWriter.listJson(Map.of("snapshot", shown,
                    "timelines", timelines, "left_out", leftOut), Protocol.LIST_COMMAND_CHARS, Protocol.LIST_TEXT_CHARS)
                    + "\n\n";
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

    /**
     * What a page is sent of a snapshot: every running and interrupted job, the head of the pending
     * queue ({@link #PENDING_ROWS}) and the newest finished jobs ({@link #FINISHED_ROWS} of each list),
     * so an update stays small and a page stays quick however long the queue; {@code /api/queue} has
     * every row.
     */
    static QueueSnapshot shown(QueueSnapshot s) {
        StatusBoard b = s.board();
        StatusBoard cut = new StatusBoard(b.running(), b.pending().subList(0, Math.min(PENDING_ROWS, b.pending().size())),
                newest(b.done()), newest(b.earlier()), b.interrupted());
        return new QueueSnapshot(s.at(), cut, s.pausedGpus(), s.orphans(), s.gpus(), s.memory());
    }

    private static <T> List<T> newest(List<T> rows) {
        return rows.subList(Math.max(0, rows.size() - FINISHED_ROWS), rows.size());
    }

    /** @return how many rows of each list {@link #shown} left out; only the lists it cut */
    static Map<String, Integer> leftOut(StatusBoard all, StatusBoard shown) {
        Map<String, Integer> m = new TreeMap<>();
        if (all.pending().size() > shown.pending().size()) {
            m.put("pending", all.pending().size() - shown.pending().size());
        }
        if (all.done().size() > shown.done().size()) {
            m.put("done", all.done().size() - shown.done().size());
        }
        if (all.earlier().size() > shown.earlier().size()) {
            m.put("earlier", all.earlier().size() - shown.earlier().size());
        }
        return m;
    }

    /** Ends every stream. */
    void closeAll() {
        for (Stream s : streams) {
            s.exchange().close();
        }
        streams.clear();
    }
}

package io.gpusched.dashboard;

import com.sun.net.httpserver.HttpExchange;
import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.Scheduler;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.VramTimeline;
import io.gpusched.service.Protocol;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * {@code /events}: Server-Sent Events to every open page. One thread of the dashboard's own ticks
 * {@link #TICK_MS} apart (so at most four writes a second, whatever the loop does) and sends only what
 * changed since its last tick:
 * <ul>
 *   <li>a page that just opened (or reopened: a browser reconnects by itself) gets the whole state: one
 *       {@code state} event ({@code {"snapshot": ..., "left_out": {list: n}}}: the snapshot as
 *       {@link #shown} cuts it, texts cut as a list view's), one {@code timeline} event per running job
 *       (its whole {@link VramTimeline}, as {@code /api/jobs/N} writes it) and one {@code gpu} event per
 *       GPU ({@code {"gpu": i, "points": [[ms, used_mib, util_percent], ...]}}, {@link GpuHistory});</li>
 *   <li>then an {@code update} event on each tick where something changed: {@code snapshot} and
 *       {@code left_out} when the snapshot changed; {@code timelines}, by job number, only the
 *       {@code points} sampled since the last tick (with {@code peak_mib}, {@code attempts} and
 *       {@code oom_retries} where they changed), or the whole timeline, marked by its {@code started_at},
 *       for a job the page has none of yet; {@code gpus}, by GPU, the new points. The page keeps the
 *       history.</li>
 * </ul>
 * Each event is one snapshot, one timeline (at most {@link VramTimeline#MAX_POINTS} points) or one
 * GPU's history at most. The tick thread makes every page's events, so every page that has the state
 * gets the same updates, but writes none: it queues them on each page's {@link Stream}, which the HTTP
 * thread that opened it writes ({@link #serve}), so a page that does not read holds up nobody else's. A
 * page whose queue grows past {@link #MAX_BACKLOG_BYTES} or that has not taken an event for
 * {@link #STALL_MS} is dropped (its connection closed; a browser's page reconnects by itself and gets
 * the whole state again). Pages are capped: {@link #MAX_STREAMS} in all, {@link #MAX_STREAMS_PER_USER}
 * for one user.
 */
final class EventStream {
    /** Between looks at the scheduler: at most four events a second. */
    static final long TICK_MS = 250;
    /** The pending jobs an update carries, from the head of the queue. */
    static final int PENDING_ROWS = 500;
    /** The newest finished jobs an update carries, of this run's and of earlier runs' each. */
    static final int FINISHED_ROWS = 50;
    /** Open pages beyond this are answered 503: each holds a connection and a thread. */
    static final int MAX_STREAMS = 32;
    /**
     * One user's open pages beyond this are answered 503, so that one user cannot take every
     * {@link #MAX_STREAMS} slot from the others; a person has a tab or two open, a few windows at most.
     */
    static final int MAX_STREAMS_PER_USER = 4;
    /**
     * Bytes of events a page may have queued behind the one being written to it; one more event past
     * that drops the page. Some 20 updates of 500 pending rows (the audit measured 55 KB each), about
     * {@link #STALL_MS} of them: a page that reads keeps its queue near empty. The event being written is not counted, so a page's first (its whole state,
     * which may be larger) is always taken; a page holds at most that event and this much more.
     */
    static final long MAX_BACKLOG_BYTES = 1 << 20;
    /**
     * A page whose oldest queued event has waited this long, in ms, is dropped: it has not read for that
     * long (its socket is full, or it is gone without a word). Time enough for a slow link to take a
     * whole state; short enough that a dead page does not hold its connection and thread for long.
     */
    static final long STALL_MS = 5_000;
    private static final long KEEPALIVE_MS = 15_000;
    /** Before any point: a job's first sample may be at 0 s. */
    private static final Duration NONE = Duration.ofNanos(-1);

    private final Supplier<Optional<QueueSnapshot>> snapshots;
    private final IntFunction<Optional<VramTimeline>> timelines;
    private final List<Stream> streams = new CopyOnWriteArrayList<>();
    /** Held to admit a page, so that two at once cannot both take the last slot. */
    private final Object admitting = new Object();
    // The tick thread's own: what every page with the state has been sent.
    private final GpuHistory gpus = new GpuHistory();
    private final Map<Integer, Sent> sent = new HashMap<>();
    private QueueSnapshot lastSource;
    private Shown showing;
    private Shown lastShown;
    private long lastWriteMs;


    /** A snapshot as pages are sent it ({@link #shown}), and what it left out. */
    private record Shown(QueueSnapshot snapshot, Map<String, Integer> leftOut) {
    }

    /**
     * What pages were sent of one running job's timeline.
     *
     * @param last the time of the latest point sent ({@link #NONE} before one)
     */
    private record Sent(Instant startedAt, Duration last, List<VramTimeline.Attempt> attempts,
                        List<VramTimeline.OomRetry> oomRetries, long peakMib) {
        static Sent of(VramTimeline t, Duration before) {
            Duration last = t.points().isEmpty() ? before : max(before, t.points().get(t.points().size() - 1).since());
            return new Sent(t.startedAt(), last, t.attempts(), t.oomRetries(), t.peakMib());
        }
    }

    EventStream(Scheduler scheduler) {
        this(scheduler::snapshot, scheduler::timeline);
    }

    /**
     * @param snapshots the queue as the loop last published it ({@link Scheduler#snapshot()})
     * @param timelines a job's timeline by number ({@link Scheduler#timeline(int)})
     */
    EventStream(Supplier<Optional<QueueSnapshot>> snapshots, IntFunction<Optional<VramTimeline>> timelines) {
        this.snapshots = snapshots;
        this.timelines = timelines;
    }

    /** @return how many pages are subscribed now */
    int open() {
        return streams.size();
    }

    /**
     * An HTTP thread, for a caller already admitted: answers 503 when the caps are reached, else the
     * headers, then writes the page's events as the tick thread queues them, until the page goes away, is
     * dropped, or the dashboard closes.
     *
     * @param user who opened the page, for {@link #MAX_STREAMS_PER_USER}
     * @throws IOException when the stream ended (the page went away or was dropped): thrown out of the
     *     handler, so that the JDK closes the connection and forgets it; a 503 returns normally
     */
    void serve(HttpExchange ex, String user) throws IOException {
        Optional<Stream> admitted = add(user);
        if (admitted.isEmpty()) {
            String message = streams.size() >= MAX_STREAMS ? MAX_STREAMS + " pages are open already; close one"
                    : "you have " + MAX_STREAMS_PER_USER + " pages open already; close one";
            try (ex) {
                Dashboard.send(ex, 503, "application/json", "{\"error\":\"busy\",\"message\":\"" + message + "\"}");
            }
            return;
        }
        Stream s = admitted.get();
        s.claim();
        try {
            ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
            ex.getResponseHeaders().set("Cache-Control", "no-cache");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            // Reconnect after 2 s if the daemon restarts; the first event follows on the next tick.
            out.write("retry: 2000\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            s.pump(out);
        } finally {
            streams.remove(s);
            s.release();
            s.end("closed");
        }
    }

    /**
     * Subscribes a page: on the next tick it gets the whole state, then the updates, queued on the stream
     * for its writer ({@link Stream#pump}).
     *
     * @param user who opened it
     * @return the stream; empty when {@link #MAX_STREAMS} pages are open, or {@link #MAX_STREAMS_PER_USER} of this user's
     */
    Optional<Stream> add(String user) {
        synchronized (admitting) {
            if (streams.size() >= MAX_STREAMS || streams.stream().filter(o -> o.user.equals(user)).count() >= MAX_STREAMS_PER_USER) {
                return Optional.empty();
            }
            Stream s = new Stream(user);
            streams.add(s);
            return Optional.of(s);
        }
    }

    /** The tick thread. */
    void tick(long nowMs) {
        Optional<QueueSnapshot> snap = snapshots.get();
        if (snap.isEmpty()) {
            return;
        }
        // Kept with no page open too, so a page opened later has the last minutes at once.
        Map<Integer, List<List<Object>>> newGpuPoints = gpus.record(snap.get());
        if (streams.isEmpty()) {
            lastSource = null;
            lastShown = null;
            sent.clear();
            return;
        }
        // The loop publishes a new snapshot each round: between rounds the last one is cut only once.
        if (snap.get() != lastSource) {
            lastSource = snap.get();
            QueueSnapshot cut = shown(snap.get());
            showing = new Shown(cut, leftOut(snap.get().board(), cut.board()));
        }
        QueueSnapshot shown = showing.snapshot();
        Map<String, Integer> leftOut = showing.leftOut();
        Map<Integer, VramTimeline> now = new TreeMap<>();
        for (StatusBoard.Running r : snap.get().board().running()) {
            timelines.apply(r.no()).ifPresent(t -> now.put(r.no(), t));
        }

        Map<String, Object> update = new TreeMap<>();
        // The same object between rounds; a new round's may still show the same (the page's cut).
        if (showing != lastShown && !showing.equals(lastShown)) {
            update.put("snapshot", shown);
            update.put("left_out", leftOut);
        }
        Map<Integer, Object> deltas = new TreeMap<>();
        now.forEach((no, t) -> delta(Optional.ofNullable(sent.get(no)), t).ifPresent(d -> deltas.put(no, d)));
        if (!deltas.isEmpty()) {
            update.put("timelines", deltas);
        }
        if (!newGpuPoints.isEmpty()) {
            update.put("gpus", newGpuPoints);
        }
        byte[] updateEvent = update.isEmpty() ? null : event("update", update);
        byte[] state = null;
        boolean keepalive = nowMs - lastWriteMs >= KEEPALIVE_MS;
        for (Stream s : streams) {
            byte[] text;
            if (!s.primed) {
                if (state == null) {
                    state = state(shown, leftOut, now);
                }
                text = state;
            } else {
                text = updateEvent != null ? updateEvent : keepalive ? ": keepalive\n\n".getBytes(StandardCharsets.UTF_8) : null;
            }
            // Never a write here: queued for the page's own writer, or the page dropped.
            if (!s.offer(text, nowMs)) {
                streams.remove(s);
            } else if (text != null) {
                s.primed = true;
            }
        }
        lastShown = showing;
        Map<Integer, Sent> before = new HashMap<>(sent);
        sent.clear();
        now.forEach((no, t) -> sent.put(no, Sent.of(t, Optional.ofNullable(before.get(no))
                .filter(b -> b.startedAt().equals(t.startedAt())).map(Sent::last).orElse(NONE))));
        if (updateEvent != null || state != null || keepalive) {
            lastWriteMs = nowMs;
        }
    }

    /**
     * What a page that has {@code before} of a job's timeline is sent of {@code t}: the points after the
     * last one sent (a point the ring merged away is not sent again: the page keeps the finer ones),
     * and the peak, the attempts and the OOM retries where they changed; or the whole timeline, which
     * has {@code started_at}, when the page has none of this one.
     *
     * @return empty when nothing changed
     */
    private static Optional<Object> delta(Optional<Sent> before, VramTimeline t) {
        if (before.isEmpty() || !before.get().startedAt().equals(t.startedAt())) {
            return Optional.of(t);
        }
        Sent b = before.get();
        List<VramTimeline.Point> fresh = t.points().stream().filter(p -> p.since().compareTo(b.last()) > 0).toList();
        boolean attempts = !t.attempts().equals(b.attempts());
        boolean ooms = !t.oomRetries().equals(b.oomRetries());
        if (fresh.isEmpty() && !attempts && !ooms && t.peakMib() == b.peakMib()) {
            return Optional.empty();
        }
        // Sent every tick for each running job: only what changed, the job's number being the key.
        Map<String, Object> d = new TreeMap<>();
        d.put("points", fresh);
        if (t.peakMib() != b.peakMib()) {
            d.put("peak_mib", t.peakMib());
        }
        if (attempts) {
            d.put("attempts", t.attempts());
        }
        if (ooms) {
            d.put("oom_retries", t.oomRetries());
        }
        return Optional.of(d);
    }

    /** The whole state, as the events a page that just opened gets, in one write. */
    private byte[] state(QueueSnapshot shown, Map<String, Integer> leftOut, Map<Integer, VramTimeline> now) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(event("state", Map.of("snapshot", shown, "left_out", leftOut)));
        now.values().forEach(t -> out.writeBytes(event("timeline", t)));
        gpus.all().forEach((gpu, points) -> out.writeBytes(event("gpu", Map.of("gpu", gpu, "points", points))));
        return out.toByteArray();
    }

    private static byte[] event(String name, Object data) {
        return ("event: " + name + "\ndata: " + JsonEventWriter.listJson(data, Protocol.LIST_COMMAND_CHARS,
                Protocol.LIST_TEXT_CHARS) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
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

    /** Ends every stream: each writer stops and its connection is closed. */
    void closeAll() {
        for (Stream s : streams) {
            s.end("the dashboard closed");
        }
        streams.clear();
    }

    /**
     * One open page: the events queued for it, and the thread that writes them. The tick thread
     * {@link #offer}s; the writer ({@link #pump}, the HTTP thread that opened the page) takes them in
     * order. Ending it ({@link #end}) interrupts the writer, which is how a write blocked on a page that
     * does not read is ended: the JDK's socket is an interruptible channel, which an interrupt closes.
     */
    static final class Stream {
        private record Queued(byte[] bytes, long atMs) {
        }

        final String user;
        /** The tick thread's: whether the page was queued the whole state. */
        boolean primed;
        // Guarded by this.
        private final ArrayDeque<Queued> queue = new ArrayDeque<>();
        /** The bytes queued behind the head (the event being written, or next to be). */
        private long behindHead;
        private Optional<String> ended = Optional.empty();
        private Thread writer;

        Stream(String user) {
            this.user = user;
        }

        /**
         * The tick thread: queues an event, or drops the page when it has not read for {@link #STALL_MS}
         * or this would put more than {@link #MAX_BACKLOG_BYTES} behind the event being written.
         *
         * @param text the event; null for none (only the stall is checked)
         * @param nowMs the tick's clock, in ms
         * @return false when the page is ended (now or before): take it off the list
         */
        synchronized boolean offer(byte[] text, long nowMs) {
            if (ended.isPresent()) {
                return false;
            }
            if (!queue.isEmpty() && nowMs - queue.peekFirst().atMs() >= STALL_MS) {
                end("took no event for " + STALL_MS / 1000 + " s");
                return false;
            }
            if (text == null) {
                return true;
            }
            long behind = queue.isEmpty() ? 0 : behindHead + text.length;
            if (behind > MAX_BACKLOG_BYTES) {
                end("over " + MAX_BACKLOG_BYTES + " bytes of events unread");
                return false;
            }
            queue.addLast(new Queued(text, nowMs));
            behindHead = behind;
            notifyAll();
            return true;
        }

        /**
         * Ends the page: nothing more is queued, and its writer stops (interrupted out of a blocked write,
         * which closes the connection). Any thread; the first reason is kept.
         */
        synchronized void end(String why) {
            if (ended.isPresent()) {
                return;
            }
            ended = Optional.of(why);
            queue.clear();
            behindHead = 0;
            if (writer != null) {
                writer.interrupt();
            }
            notifyAll();
        }

        /** @return why the page was ended; empty while it is open */
        synchronized Optional<String> ended() {
            return ended;
        }

        /**
         * The page's own thread: writes the queued events as they come, each whole and flushed, until the
         * page is ended or a write fails.
         *
         * @throws IOException always, once the stream is over: the write's failure, or why it was ended
         */
        void pump(OutputStream out) throws IOException {
            try {
                while (true) {
                    byte[] next;
                    synchronized (this) {
                        while (queue.isEmpty() && ended.isEmpty()) {
                            wait();
                        }
                        if (ended.isPresent()) {
                            throw new IOException("event stream ended: " + ended.get());
                        }
                        next = queue.peekFirst().bytes();
                    }
                    writeOne(out, next);
                }
            } catch (InterruptedException e) {
                throw new IOException("event stream ended: " + ended().orElse("interrupted"));
            }
        }

        /**
         * Makes the calling thread the page's writer, the one {@link #end} interrupts: from before the
         * response's headers, so that no write to the page is out of its reach. Then {@link #release}.
         */
        synchronized void claim() {
            writer = Thread.currentThread();
            if (ended.isPresent()) {
                writer.interrupt();
            }
        }

        /** The writer is done with the page: no later {@link #end} interrupts it. */
        void release() {
            synchronized (this) {
                writer = null;
            }
            // An interrupt meant for this page must not reach the pool's next task (the pool clears it too).
            Thread.interrupted();
        }

        /**
         * Writes what is queued now, without waiting for more: what {@link #pump} does, for a caller that
         * writes the stream itself (the tests drive the tick and this in turn).
         *
         * @return false when the page is ended
         */
        boolean drainTo(OutputStream out) throws IOException {
            while (true) {
                byte[] next;
                synchronized (this) {
                    if (ended.isPresent()) {
                        return false;
                    }
                    if (queue.isEmpty()) {
                        return true;
                    }
                    next = queue.peekFirst().bytes();
                }
                writeOne(out, next);
            }
        }

        /** Writes the head of the queue, then takes it off: until then it is what {@link #STALL_MS} measures. */
        private void writeOne(OutputStream out, byte[] head) throws IOException {
            out.write(head);
            out.flush();
            synchronized (this) {
                if (ended.isEmpty()) {
                    queue.pollFirst();
                    behindHead = queue.isEmpty() ? 0 : behindHead - queue.peekFirst().bytes().length;
                }
            }
        }
    }
}

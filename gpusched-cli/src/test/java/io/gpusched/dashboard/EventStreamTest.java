package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.VramTimeline;
import io.gpusched.gpu.GpuStat;
import io.gpusched.service.Protocol;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a dashboard page is sent: small, whatever the queue holds, and after the whole state only what
 * changed.
 */
class EventStreamTest {
    private static final Instant START = Instant.parse("2026-11-25T10:00:00Z");

    /** Job 1 running on GPU 0, the snapshot taken at {@code at}. */
    private static QueueSnapshot snapshot(Instant at, long usedMib) {
        StatusBoard.Running job = StatusBoard.Running.builder(1, "python train.py").gpus(List.of(0))
                .elapsed(Duration.ofSeconds(10)).currentMib(Map.of(0, usedMib)).peakMib(usedMib)
                .owner(Optional.of("ada")).declaredMib(OptionalLong.of(2048)).build();
        return new QueueSnapshot(at, new StatusBoard(List.of(job), List.of(), List.of()), Set.of(), List.of(),
                List.of(GpuStat.of(0, 24000, usedMib)));
    }

    /** Job 1's timeline of one sample a second, 0 s to {@code last} s, each of 1000 + s MiB. */
    private static VramTimeline timeline(int last) {
        List<VramTimeline.Point> points = new ArrayList<>();
        for (int s = 0; s <= last; s++) {
            points.add(new VramTimeline.Point(Duration.ofSeconds(s), 1000 + s));
        }
        return new VramTimeline(1, START, points, List.of(new VramTimeline.Attempt(1, Duration.ZERO, OptionalLong.of(2048))),
                List.of(), 1000 + last);
    }

    /** A page: its stream, and what its writer wrote of it. */
    private record Page(EventStream.Stream stream, ByteArrayOutputStream out) {
        static Page of(EventStream events, String user) {
            return new Page(events.add(user).orElseThrow(), new ByteArrayOutputStream());
        }

        /** @return everything written to the page so far, after its writer took what is queued */
        String all() {
            try {
                stream.drainTo(out);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    /** @return what was written since {@code from} characters, and moves {@code from} on */
    private static String since(Page page, int[] from) {
        String all = page.all();
        String fresh = all.substring(from[0]);
        from[0] = all.length();
        return fresh;
    }

    /** @return the {@code since_s} of every point in {@code text}, in order */
    private static List<Double> sinces(String text) {
        List<Double> out = new ArrayList<>();
        Matcher m = Pattern.compile("\"since_s\":([0-9.]+),\"used_mib\"").matcher(text);
        while (m.find()) {
            out.add(Double.parseDouble(m.group(1)));
        }
        return out;
    }

    @Test
    void aPageGetsTheWholeStateOnce_thenEachUpdateCarriesOnlyThePointsSampledSinceTheLast() {
        AtomicReference<QueueSnapshot> snap = new AtomicReference<>(snapshot(START.plusSeconds(3), 1003));
        AtomicReference<VramTimeline> line = new AtomicReference<>(timeline(3));
        EventStream events = new EventStream(() -> Optional.of(snap.get()),
                no -> no == 1 ? Optional.of(line.get()) : Optional.empty());
        Page page = Page.of(events, "ada");
        int[] read = {0};

        events.tick(0);
        String first = since(page, read);
        assertTrue(first.startsWith("event: state\ndata: {\"left_out\":{},\"snapshot\":{"), first);
        assertTrue(first.contains("\nevent: timeline\ndata: {\"no\":1,\"started_at\":\"2026-11-25T10:00:00Z\""), first);
        assertEquals(List.of(0.0, 1.0, 2.0, 3.0), sinces(first), "the whole timeline");
        assertTrue(first.contains("\nevent: gpu\ndata: {\"gpu\":0,\"points\":[[" + START.plusSeconds(3).toEpochMilli()
                + ",1003,null]]}"), first);

        // Nothing changed: nothing is sent.
        events.tick(250);
        assertEquals("", since(page, read));

        // Two more samples, the same snapshot.
        line.set(timeline(5));
        events.tick(500);
        String second = since(page, read);
        assertEquals("event: update\ndata: {\"timelines\":{\"1\":{\"peak_mib\":1005,\"points\":["
                + "{\"since_s\":4.0,\"used_mib\":1004},{\"since_s\":5.0,\"used_mib\":1005}]}}}\n\n", second);

        // A new round: the snapshot once more, the GPU's new point, and the one new sample.
        snap.set(snapshot(START.plusSeconds(6), 1006));
        line.set(timeline(6));
        events.tick(750);
        String third = since(page, read);
        assertTrue(third.startsWith("event: update\ndata: {\"gpus\":{\"0\":[[" + START.plusSeconds(6).toEpochMilli()
                + ",1006,null]]},\"left_out\":{},\"snapshot\":{"), third);
        assertEquals(List.of(6.0), sinces(third));
        assertFalse(third.contains("started_at"), "no whole timeline: " + third);

        // A page opened now gets the whole history in its state, and the first page nothing more.
        Page later = Page.of(events, "ada");
        events.tick(1000);
        assertEquals("", since(page, read));
        String whole = later.all();
        assertEquals(List.of(0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0), sinces(whole));
        assertTrue(whole.contains("{\"gpu\":0,\"points\":[[" + START.plusSeconds(3).toEpochMilli() + ",1003,null],["
                + START.plusSeconds(6).toEpochMilli() + ",1006,null]]}"), whole);
    }

    @Test
    void aMergedRingSendsNoPointTwice_andAnOomRetrySendsTheAttemptsAgain() {
        AtomicReference<VramTimeline> line = new AtomicReference<>(timeline(3));
        QueueSnapshot snap = snapshot(START, 1003);
        EventStream events = new EventStream(() -> Optional.of(snap), no -> Optional.of(line.get()));
        Page page = Page.of(events, "ada");
        int[] read = {0};
        events.tick(0);
        since(page, read);
        // The ring merged 0-1 and 2-3 into their higher points, then the job was retried after an OOM at 4 s.
        VramTimeline t = timeline(3);
        line.set(new VramTimeline(1, START, List.of(t.points().get(1), t.points().get(3),
                new VramTimeline.Point(Duration.ofSeconds(5), 900)),
                List.of(t.attempts().get(0), new VramTimeline.Attempt(2, Duration.ofSeconds(4), OptionalLong.of(3072))),
                List.of(new VramTimeline.OomRetry(Duration.ofSeconds(4), 1, OptionalLong.of(3072))), 1003));
        events.tick(250);
        String update = since(page, read);
        assertEquals(List.of(5.0), sinces(update));
        assertTrue(update.contains("\"attempts\":[{\"number\":1,") && update.contains("{\"number\":2,\"since_s\":4.0,"
                + "\"declared_mib\":3072}]"), update);
        assertTrue(update.contains("\"oom_retries\":[{\"since_s\":4.0,\"attempt\":1,\"next_mib\":3072}]"), update);
    }


    @Test
    void aPageGetsTheHeadOf100000PendingJobsAndHowManyMore_withCommandsCut() {
        List<StatusBoard.Pending> pending = new ArrayList<>();
        String command = "x".repeat(64 * 1024);
        for (int i = 1; i <= 100_000; i++) {
            pending.add(StatusBoard.Pending.builder(i, command).declaredMib(OptionalLong.of(1024)).reason("its turn")
                    .owner(Optional.of("ada")).build());
        }
        QueueSnapshot all = new QueueSnapshot(Instant.EPOCH, new StatusBoard(List.of(), pending, List.of()), Set.of(),
                List.of());
        QueueSnapshot shown = EventStream.shown(all);
        assertEquals(EventStream.PENDING_ROWS, shown.board().pending().size());
        assertEquals(1, shown.board().pending().get(0).no(), "the head of the queue");
        Map<String, Integer> left = EventStream.leftOut(all.board(), shown.board());
        assertEquals(Map.of("pending", 100_000 - EventStream.PENDING_ROWS), left);
        String payload = JsonEventWriter.listJson(Map.of("snapshot", shown, "left_out", left), Protocol.LIST_COMMAND_CHARS,
                Protocol.LIST_TEXT_CHARS);
        assertTrue(payload.length() < 256 * 1024, "an update of " + payload.length() + " characters");
        assertTrue(payload.contains("\"left_out\":{\"pending\":99500}"), payload.substring(payload.length() - 200));
    }

    /** 500 pending jobs of 200-character commands, taken at {@code at}: updates of tens of KB. */
    private static QueueSnapshot longQueue(Instant at) {
        List<StatusBoard.Pending> pending = new ArrayList<>();
        for (int i = 1; i <= EventStream.PENDING_ROWS; i++) {
            pending.add(StatusBoard.Pending.builder(i, "python train.py --run " + i + " " + "x".repeat(180))
                    .declaredMib(OptionalLong.of(1024)).reason("its turn").owner(Optional.of("ada")).build());
        }
        return new QueueSnapshot(at, new StatusBoard(List.of(), pending, List.of()), Set.of(), List.of());
    }

    @Test
    void aPageThatTakesNothingIsDroppedOnceOverItsBacklog_whileAnotherGetsEveryUpdate() {
        AtomicReference<QueueSnapshot> snap = new AtomicReference<>(longQueue(START));
        EventStream events = new EventStream(() -> Optional.of(snap.get()), no -> Optional.empty());
        Page reader = Page.of(events, "ada");
        EventStream.Stream stuck = events.add("bob").orElseThrow();
        int[] read = {0};
        int tick = 0;
        for (; stuck.ended().isEmpty(); tick++) {
            assertTrue(tick < 20, "never dropped");
            snap.set(longQueue(START.plusSeconds(tick)));
            events.tick(tick * EventStream.TICK_MS);
            assertTrue(since(reader, read).startsWith(tick == 0 ? "event: state" : "event: update"), "tick " + tick);
        }
        assertEquals(Optional.of("over 1048576 bytes of events unread"), stuck.ended());
        assertTrue(tick * EventStream.TICK_MS < EventStream.STALL_MS, "the backlog, before the stall: tick " + tick);
        assertEquals(1, events.open());
        snap.set(longQueue(START.plusSeconds(100)));
        events.tick(tick * EventStream.TICK_MS);
        assertTrue(since(reader, read).startsWith("event: update"), "the reader is still served");
    }

    @Test
    void aPageWhoseOldestEventWaitedPastTheStallIsDropped_evenWithLittleQueued() {
        AtomicReference<QueueSnapshot> snap = new AtomicReference<>(snapshot(START, 1000));
        EventStream events = new EventStream(() -> Optional.of(snap.get()), no -> Optional.empty());
        EventStream.Stream stuck = events.add("bob").orElseThrow();
        Page reader = Page.of(events, "ada");
        int[] read = {0};
        for (long ms = 0; ms < EventStream.STALL_MS; ms += EventStream.TICK_MS) {
            snap.set(snapshot(START.plusMillis(ms), 1000 + ms));
            events.tick(ms);
            since(reader, read);
            assertTrue(stuck.ended().isEmpty(), "still within the stall at " + ms + " ms");
        }
        // Nothing new at all: the stall is still looked at.
        events.tick(EventStream.STALL_MS);
        assertEquals(Optional.of("took no event for 5 s"), stuck.ended());
        assertEquals(1, events.open());
        assertTrue(reader.stream().ended().isEmpty());
    }

    @Test
    void oneUserHasAtMostTheirShareOfPages_andOthersStillGetOneUntilTheWholeCap() {
        EventStream events = new EventStream(Optional::empty, no -> Optional.empty());
        for (int i = 0; i < EventStream.MAX_STREAMS_PER_USER; i++) {
            assertTrue(events.add("mallory").isPresent());
        }
        assertTrue(events.add("mallory").isEmpty(), "one more of hers");
        int users = 1;
        while (events.open() < EventStream.MAX_STREAMS) {
            assertTrue(events.add("user" + users++).isPresent(), "at " + events.open());
        }
        assertTrue(events.add("someone-else").isEmpty(), "the whole cap");
    }
}

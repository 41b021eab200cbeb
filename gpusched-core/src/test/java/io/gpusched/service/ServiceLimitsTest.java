package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.Scheduler;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What no client can make the service hold without bound (issue #28, finding 11): threads, connections,
 * idle connections, memory for unfinished lines; and {@code srun}'s error codes (finding 13). A real
 * scheduler on a real socket, attacked by raw clients.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServiceLimitsTest {
    @TempDir
    Path dir;

    private Scheduler scheduler;
    private RunningScheduler running;
    private ServiceServer server;
    private final List<SocketChannel> opened = new ArrayList<>();

    @BeforeEach
    void schedule() throws Exception {
        running = RunningScheduler.start(RunningScheduler.builder(dir, 0).options(RunningScheduler.quick()).build());
        scheduler = running.scheduler();
    }

    private void serve(ServiceServer.Limits limits) {
        server = ServiceServer.start(scheduler, dir.resolve("run/gpusched.sock"), ServiceServer.Access.OWNER_ONLY,
                Optional.empty(), limits);
    }

    @AfterEach
    void stop() throws Exception {
        for (SocketChannel c : opened) {
            c.close();
        }
        if (server != null) {
            server.close();
        }
        running.close();
    }

    private SocketChannel connect() throws IOException {
        SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()));
        opened.add(c);
        return c;
    }

    private static void send(SocketChannel c, String text) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    /** The next line from the service, waiting at most {@code seconds}; empty at its end of stream. */
    private static Optional<String> line(SocketChannel c, double seconds) throws Exception {
        CompletableFuture<Optional<String>> f = CompletableFuture.supplyAsync(() -> {
            StringBuilder out = new StringBuilder();
            ByteBuffer one = ByteBuffer.allocate(1);
            try {
                while (true) {
                    one.clear();
                    if (c.read(one) < 0) {
                        return out.length() == 0 ? Optional.empty() : Optional.of(out.toString());
                    }
                    if (one.get(0) == '\n') {
                        return Optional.of(out.toString());
                    }
                    out.append((char) one.get(0));
                }
            } catch (IOException e) {
                return Optional.empty();
            }
        });
        return f.get((long) (seconds * 1000), TimeUnit.MILLISECONDS);
    }

    private static String exchange(SocketChannel c, String request) throws Exception {
        send(c, request + "\n");
        return line(c, 10).orElseThrow();
    }

    /** A printer whose text is {@code lines} lines of {@code page} whatever the queue, counting the slices it writes. */
    private static QueuePrinter pages(String page, int lines, java.util.concurrent.atomic.AtomicLong written) {
        byte[] b = page.getBytes(StandardCharsets.UTF_8);
        return (rows, text) -> new QueuePrinter.Text() {
            @Override
            public int slices() {
                return lines;
            }

            @Override
            public void write(int slice, java.io.OutputStream out) throws IOException {
                written.incrementAndGet();
                out.write(b);
            }
        };
    }

    @Test
    void aUserWhoAsksForTheQueuesTextOnEveryConnectionAndNeverReads_makesTheDaemonHoldAtMostItsTextBudget()
            throws Exception {
        // A text of 4 MiB whatever the queue: held whole, 64 connections asking at once would be 256 MiB.
        QueuePrinter big = pages("x".repeat(1023) + "\n", 4096, new java.util.concurrent.atomic.AtomicLong());
        server = ServiceServer.start(scheduler, dir.resolve("run/gpusched.sock"), ServiceServer.Access.OWNER_ONLY,
                Optional.empty(), Optional.empty(), ServiceServer.Limits.DEFAULTS, Optional.of(big));
        List<SocketChannel> hostile = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            SocketChannel c = connect();
            send(c, "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\"}}\n");
            hostile.add(c);
        }
        // Every one is answered with text, none is read past its first line: each holds one piece unwritten.
        int texts = 0;
        for (SocketChannel c : hostile) {
            String head = line(c, 10).orElseThrow();
            texts += head.contains("\"text_bytes\":4194304") ? 1 : 0;
        }
        assertEquals(64, texts, "text answers");
        long share = QueueAnswer.share(1024);
        assertTrue(server.heldTextBytes() <= 64 * share && server.heldTextBytes() <= TextBudget.TOTAL,
                "held " + server.heldTextBytes());
        // Another client still gets its answer at once.
        assertTrue(exchange(connect(), "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"));
        for (SocketChannel c : hostile) {
            c.close();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.heldTextBytes() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, server.heldTextBytes(), "a closed connection gives its text's bytes back");
    }

    /** A line of the 100,000 a slow reader's text is made of: about 200 bytes. */
    private static final String PAGE = "… job " + "y".repeat(190) + "\n";

    /**
     * @param written counts the slices the service's printer writes
     * @param text the request's {@code text}
     * @return a connection that asked a service whose text is 100,000 {@link #PAGE}s for it
     */
    private SocketChannel askForPages(java.util.concurrent.atomic.AtomicLong written, String text) throws IOException {
        server = ServiceServer.start(scheduler, dir.resolve("run/gpusched.sock"), ServiceServer.Access.OWNER_ONLY,
                Optional.empty(), Optional.empty(), ServiceServer.Limits.DEFAULTS, Optional.of(pages(PAGE, 100_000, written)));
        SocketChannel c = connect();
        send(c, "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":" + text + "}\n");
        return c;
    }

    @Test
    void aSlowReaderOfAHundredThousandJobText_makesTheDaemonRenderOnlyWhatItsSocketTakes() throws Exception {
        // 100,000 lines of 200 bytes: a 20 MB text, rendered a piece at a time as the reader takes it.
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        int lineBytes = PAGE.getBytes(StandardCharsets.UTF_8).length;
        SocketChannel c = askForPages(written, "{\"layout\":\"list\"}");
        String head = line(c, 10).orElseThrow();
        long total = 100_000L * lineBytes;
        assertTrue(head.contains("\"text_bytes\":" + total), head);
        // Read 8 KiB at a time, pausing: what the daemon rendered past what was read is the socket's
        // buffers and one piece, never the text.
        ByteBuffer in = ByteBuffer.allocate(8192);
        long read = 0;
        long mostAhead = 0;
        for (int i = 0; i < 200; i++) {
            in.clear();
            read += c.read(in);
            Thread.sleep(i % 20 == 0 ? 50 : 1);
            long rendered = (written.get() - 100_000) * lineBytes; // past the counting pass
            mostAhead = Math.max(mostAhead, rendered - read);
            assertTrue(server.heldTextBytes() <= QueueAnswer.share(lineBytes), "held " + server.heldTextBytes());
        }
        assertTrue(mostAhead < 4L << 20, "rendered ahead of the reader: " + mostAhead + " of " + total + " bytes");
        // Then the rest, every byte of it, and the share is given back.
        while (read < total) {
            in.clear();
            int n = c.read(in);
            assertTrue(n > 0, "the text ended after " + read + " of " + total + " bytes");
            read += n;
        }
        assertEquals(total, read);
        assertEquals(100_000 * 2, written.get(), "each slice written twice: counted, then sent");
        assertTrue(exchange(c, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"), "the connection goes on");
        assertEquals(0, server.heldTextBytes());
    }

    @Test
    void aSlowReaderOfAHundredThousandJobTextInChunks_makesTheDaemonRenderItOnce_onlyAsItsSocketTakesIt() throws Exception {
        // 100,000 lines of 200 bytes in chunks: rendered once, a piece at a time as the reader takes it.
        java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
        int lineBytes = PAGE.getBytes(StandardCharsets.UTF_8).length;
        SocketChannel c = askForPages(written, "{\"layout\":\"list\",\"chunks\":true}");
        assertEquals(Optional.of("{\"v\":1,\"ok\":true,\"text_chunks\":true}"), line(c, 10));
        long total = 100_000L * lineBytes;
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        ByteBuffer in = ByteBuffer.allocate(8192);
        long mostAhead = 0;
        for (int i = 0; i < 200; i++) {
            in.clear();
            int n = c.read(in);
            got.write(in.array(), 0, Math.max(n, 0));
            Thread.sleep(i % 20 == 0 ? 50 : 1);
            mostAhead = Math.max(mostAhead, written.get() * lineBytes - got.size());
            assertTrue(server.heldTextBytes() <= QueueAnswer.ChunkedText.SHARE, "held " + server.heldTextBytes());
        }
        assertTrue(mostAhead < 4L << 20, "rendered ahead of the reader: " + mostAhead + " of " + total + " bytes");
        // Then the rest, up to the line 0 that ends it; the share is given back.
        byte[] last = new byte[3];
        while (got.size() < total || !java.util.Arrays.equals(last, "\n0\n".getBytes(StandardCharsets.US_ASCII))) {
            in.clear();
            int n = c.read(in);
            assertTrue(n > 0, "the text ended after " + got.size() + " bytes");
            got.write(in.array(), 0, n);
            for (int k = Math.max(0, n - 3); k < n; k++) { // the stream's last three bytes
                System.arraycopy(last, 1, last, 0, 2);
                last[2] = in.array()[k];
            }
        }
        byte[] b = got.toByteArray();
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        int at = 0;
        int chunks = 0;
        while (true) {
            int nl = at;
            while (b[nl] != '\n') {
                nl++;
            }
            int length = Integer.parseInt(new String(b, at, nl - at, StandardCharsets.US_ASCII));
            at = nl + 1;
            if (length == 0) {
                break;
            }
            assertTrue(length <= 1 << 20 && b[at + length - 1] == '\n', "a chunk of whole lines within 1 MiB: " + length);
            text.write(b, at, length);
            at += length;
            chunks++;
        }
        assertEquals(b.length, at, "nothing after the 0 line");
        assertEquals(PAGE.repeat(100_000), text.toString(StandardCharsets.UTF_8));
        assertTrue(chunks > 250, "in chunks of about 64 KiB: " + chunks);
        assertEquals(100_000, written.get(), "each slice written once");
        assertTrue(exchange(c, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"), "the connection goes on");
        assertEquals(0, server.heldTextBytes());
    }

    @Test
    void aConnectionThatSendsNoRequestIsClosedAfterTheIdleTimeout_sayingSoInOneLine() throws Exception {
        serve(new ServiceServer.Limits(16, 16, Duration.ofMillis(400)));
        SocketChannel c = connect();
        long t0 = System.nanoTime();
        String said = line(c, 10).orElseThrow();
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(said.contains("\"code\":\"idle_timeout\"") && said.contains("--idle-timeout"), said);
        assertTrue(waited >= 350, "closed after " + waited + " ms, before the timeout");
        assertEquals(Optional.empty(), line(c, 5), "then the connection is closed");
    }

    @Test
    void aLineThatNeverEndsCountsAsIdle_soASlowSenderIsClosedToo() throws Exception {
        serve(new ServiceServer.Limits(16, 16, Duration.ofMillis(500)));
        SocketChannel c = connect();
        send(c, "{\"v\":1,");
        long t0 = System.nanoTime();
        // A byte every 100 ms for 5 s: each arrives, none completes the request.
        CompletableFuture<Void> trickle = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < 50; i++) {
                    Thread.sleep(100);
                    send(c, " ");
                }
            } catch (IOException | InterruptedException e) {
                // closed by the service: what this test waits for
            }
        });
        String said = line(c, 10).orElseThrow();
        assertTrue(said.contains("\"code\":\"idle_timeout\""), said);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(3), "the trickle kept it open");
        trickle.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aClientThatKeepsAskingIsNeverIdle_andTheClientLibraryReconnectsAfterAnIdleClose() throws Exception {
        serve(new ServiceServer.Limits(16, 16, Duration.ofMillis(400)));
        SocketChannel c = connect();
        for (int i = 0; i < 8; i++) {
            Thread.sleep(200);
            assertTrue(exchange(c, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"));
        }
        try (GpuschedClient client = GpuschedClient.connect(server.socket())) {
            Thread.sleep(1000); // the service closes it meanwhile
            assertTrue(client.queue().board() != null, "the request went out again on a new connection");
        }
    }

    @Test
    void oneConnectionOverTheCapIsRefusedWithOneLineNamingTheOption_andServedOnceOneCloses() throws Exception {
        serve(new ServiceServer.Limits(3, 64, Duration.ofSeconds(60)));
        List<SocketChannel> three = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            SocketChannel c = connect();
            assertTrue(exchange(c, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"));
            three.add(c);
        }
        SocketChannel fourth = connect();
        String said = line(fourth, 10).orElseThrow();
        assertTrue(said.contains("\"code\":\"too_many_connections\"") && said.contains("--max-connections 3"), said);
        assertEquals(Optional.empty(), line(fourth, 5), "then it is closed");
        three.get(0).close();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; Thread.sleep(50)) {
            SocketChannel again = connect();
            String answer = exchange(again, "{\"v\":1,\"op\":\"hello\"}");
            if (answer.contains("\"ok\":true")) {
                break;
            }
            assertTrue(System.nanoTime() < end, answer);
        }
    }

    /** This process's soft limit on open files, from {@code /proc/self/limits}; 0 where unknown. */
    private static long openFileLimit() throws IOException {
        Path limits = Path.of("/proc/self/limits");
        if (!Files.exists(limits)) {
            return 0;
        }
        for (String l : Files.readAllLines(limits)) {
            if (l.startsWith("Max open files")) {
                String soft = l.substring("Max open files".length()).strip().split("\\s+")[0];
                return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
            }
        }
        return 0;
    }

    @Test
    void thousandsOfIdleConnectionsAddNoThread_andAnotherClientIsAnsweredAtOnce() throws Exception {
        int n = 2000;
        long files = openFileLimit();
        assumeTrue(files > 2 * n + 500, "needs " + (2 * n + 500) + " open files (both ends here), the limit is " + files);
        serve(new ServiceServer.Limits(n + 10, n + 10, Duration.ofSeconds(60)));
        try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
            c.queue(); // the answering threads exist from now on
        }
        int before = Thread.getAllStackTraces().size();
        for (int i = 0; i < n; i++) {
            connect();
        }
        try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
            long t0 = System.nanoTime();
            c.queue();
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(millis < 1000, "queue took " + millis + " ms");
        }
        int after = Thread.getAllStackTraces().size();
        // At most the pools' threads not started yet (4 request workers, the srun timer) and the JDK's
        // CompletableFuture delayer: a fixed few, not one per connection.
        assertTrue(after - before <= 6, n + " idle connections took " + (after - before) + " threads");
    }

    @Test
    void unfinishedLinesHoldBoundedMemoryInAll_andSmallRequestsGoOnMeanwhile() throws Exception {
        serve(new ServiceServer.Limits(200, 200, Duration.ofSeconds(3)));
        byte[] partial = ("{\"v\":1,\"op\":\"hello\",\"pad\":\"" + "x".repeat(Protocol.MAX_LINE_BYTES - 40))
                .getBytes(StandardCharsets.UTF_8);
        int n = 64; // 64 MiB of unfinished lines offered, twice what the service shares out
        List<SocketChannel> slow = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SocketChannel c = connect();
            c.configureBlocking(false);
            slow.add(c);
        }
        // Each sends what the service (and the kernel's buffer) takes, until nothing more goes for a while.
        List<ByteBuffer> left = new ArrayList<>();
        slow.forEach(c -> left.add(ByteBuffer.wrap(partial)));
        for (long quiet = System.nanoTime(); System.nanoTime() - quiet < TimeUnit.MILLISECONDS.toNanos(700); Thread.sleep(10)) {
            for (int i = 0; i < n; i++) {
                if (left.get(i).hasRemaining() && slow.get(i).write(left.get(i)) > 0) {
                    quiet = System.nanoTime();
                }
            }
        }
        long held = server.unfinishedBytes();
        assertTrue(held <= ServiceServer.SHARED_BYTES + 2L * Protocol.MAX_LINE_BYTES + n * ServiceServer.OWN_BYTES,
                "the service holds " + held + " bytes of unfinished lines");
        assertTrue(left.stream().anyMatch(ByteBuffer::hasRemaining), "every line was taken whole: nothing was bounded");
        SocketChannel other = connect();
        long t0 = System.nanoTime();
        assertTrue(exchange(other, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"));
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1), "a small request waited for memory");
        // None of them completes its line: the idle timeout closes them all, and their memory comes back.
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); server.unfinishedBytes() > 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "still held: " + server.unfinishedBytes());
        }
    }

    @Test
    void anSrunWithABadJobLineAnswersBadJob_asSubmitDoes_andABadFieldBadRequest() throws Exception {
        serve(ServiceServer.Limits.DEFAULTS);
        SocketChannel c = connect();
        String badJob = exchange(c, "{\"v\":1,\"op\":\"srun\",\"line\":\"[vrma=8G] x\",\"cwd\":\"/\"}");
        assertTrue(badJob.contains("\"code\":\"bad_job\"") && badJob.contains("did you mean 'vram'"), badJob);
        assertEquals(Optional.empty(), line(c, 5), "the session ends with its answer");
        String relative = exchange(connect(), "{\"v\":1,\"op\":\"srun\",\"line\":\"true\",\"cwd\":\"relative\"}");
        assertTrue(relative.contains("\"code\":\"bad_request\"") && relative.contains("must be an absolute path"), relative);
        try (GpuschedClient client = GpuschedClient.connect(server.socket())) {
            ServiceException e = assertThrows(ServiceException.class, () -> client.srun("[vrma=8G] x", dir, w -> { }));
            assertEquals("bad_job", e.code());
        }
    }

    @Test
    void aWaitingSrunOutlivesTheIdleTimeout_isGrantedWhenTheGpuFrees_andReportsItsEnd() throws Exception {
        serve(new ServiceServer.Limits(16, 16, Duration.ofMillis(300)));
        Path work = Files.createDirectories(dir.resolve("work"));
        int first;
        try (GpuschedClient client = GpuschedClient.connect(server.socket())) {
            first = client.submit("[vram=20G] sleep 30", work, Optional.empty());
        }
        SocketChannel c = connect();
        String queued = exchange(c, "{\"v\":1,\"op\":\"srun\",\"line\":\"[vram=20G] true\",\"cwd\":\"" + work + "\"}");
        assertTrue(queued.contains("\"event\":\"queued\""), queued);
        String waiting = line(c, 10).orElseThrow();
        assertTrue(waiting.contains("\"event\":\"waiting\"") && waiting.contains("\"position\":1"), waiting);
        Thread.sleep(1500); // five idle timeouts
        try (GpuschedClient client = GpuschedClient.connect(server.socket())) {
            client.cancel(first);
        }
        String granted = line(c, 20).orElseThrow();
        while (granted.contains("\"event\":\"waiting\"")) {
            granted = line(c, 20).orElseThrow();
        }
        assertTrue(granted.contains("\"event\":\"granted\"") && granted.contains("GPUSCHED_RUN"), granted);
        Thread.sleep(700); // the command runs: a granted srun sends nothing either
        String ended = exchange(c, "{\"v\":1,\"op\":\"exited\",\"status\":3}");
        assertTrue(ended.contains("\"event\":\"ended\"") && ended.contains("\"recorded\":\"recorded\"")
                && ended.contains("\"exit_code\":3"), ended);
        assertEquals(Optional.empty(), line(c, 5));
    }
}

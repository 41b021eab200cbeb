package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Findings 1-3 of the dashboard audit, as a local user would attack a real {@code gpusched serve
 * --dashboard} over real sockets, without a token where none is needed: requests whose headers never
 * end, more connections than the dashboard holds, and an {@code /events} page that never reads. Each
 * time the daemon's resources stay bounded and other users are still answered.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DashboardLimitsTest {
    /** io.gpusched.dashboard.ServerLimits.MAX_CONNECTIONS. */
    private static final int MAX_CONNECTIONS = 128;
    /**
     * The request and idle time limits (10 s) as the daemons of the tests that wait them out shorten them, through
     * io.gpusched.dashboard.ServerLimits.REQUEST_SECONDS_PROPERTY, which can only shorten them: the same
     * limits enforced the same way by the JDK, waited for in a third of the time.
     */
    private static final int REQUEST_SECONDS = 3;
    /**
     * The answer time limit (io.gpusched.dashboard.AnswerSlots.ANSWER_SECONDS, 30 s) as the daemon of the test
     * that waits it out shortens it, through AnswerSlots.ANSWER_SECONDS_PROPERTY.
     */
    private static final int ANSWER_SECONDS = 5;

    @TempDir
    Path dir;

    private ServeDaemon daemon;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** The attacker's connections, closed after each test. */
    private final List<Socket> held = new ArrayList<>();

    @AfterEach
    void closeHeld() {
        for (Socket s : held) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    private Socket connect(URI base, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        held.add(s);
        if (receiveBuffer > 0) {
            // Before connecting, so that the window the server sees is this small.
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5_000);
        return s;
    }

    /** A connection that sent a request line and half a header, and then nothing: no token needed. */
    private Socket halfRequest(URI base) throws IOException {
        Socket s = connect(base, 0);
        s.getOutputStream().write(("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:" + base.getPort() + "\r\nX-a: ")
                .getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /** @return whether the server closed {@code s} (end of stream, or reset) within {@code ms}, reading what came before */
    private static boolean closedByServerWithin(Socket s, long ms) throws IOException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[64 * 1024];
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            s.setSoTimeout((int) left);
            try {
                if (in.read(buf) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (SocketException e) {
                return true;
            }
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int openFiles(long pid) throws IOException {
        try (var files = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
            return (int) files.count();
        }
    }

    @Test
    void slowHeadersOnEveryThreadStillLeaveMetricsAnswered() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0").start();
        String link = DashboardEndToEndTest.link(daemon);
        URI base = URI.create(link);
        // Four times the four threads the dashboard once had, each held by headers that never end.
        for (int i = 0; i < 16; i++) {
            halfRequest(base);
        }
        // Time for the server to take each onto a thread, as it does on the request's first bytes.
        Thread.sleep(1_000);
        HttpResponse<String> metrics = get(DashboardEndToEndTest.at(link, "metrics"));
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.body().contains("gpusched_dashboard_event_streams 0\n"), metrics.body());
        assertEquals(200, get(DashboardEndToEndTest.at(link, "api/queue")).statusCode(), "the pages' API too");
    }

    @Test
    void headersThatNeverEnd_andAConnectionThatSendsNothing_areClosedAfterTheRequestTimeLimit() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0")
                .withJvmOptions("-Dgpusched.dashboard.requestSeconds=" + REQUEST_SECONDS).start();
        URI base = URI.create(DashboardEndToEndTest.url(daemon));
        Socket partial = halfRequest(base);
        Socket silent = connect(base, 0);
        // The JDK looks each second; a few more for a loaded machine (and far less than the unshortened 10 s).
        long limitMs = (REQUEST_SECONDS + 5) * 1000L;
        assertTrue(closedByServerWithin(partial, limitMs), "half a header held its connection (and a thread) past "
                + limitMs + " ms");
        assertTrue(closedByServerWithin(silent, 5_000), "a connection that sent nothing was held past " + limitMs + " ms");
    }

    @Test
    void moreConnectionsThanTheCapAreClosedAtOnce_soTheDaemonsFilesStayBounded_andItAnswersAgainOnItsOwn() throws Exception {
        // The idle limit shortened to 2 * REQUEST_SECONDS: long enough to count the files before it closes any.
        int idleSeconds = 2 * REQUEST_SECONDS;
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0")
                .withJvmOptions("-Dgpusched.dashboard.requestSeconds=" + idleSeconds).start();
        String link = DashboardEndToEndTest.link(daemon);
        URI base = URI.create(link);
        long pid = daemon.process().pid();
        int before = openFiles(pid);
        long opening = System.nanoTime();
        // Three times the cap, each sending nothing (no token needed), kept open by the attacker.
        for (int i = 0; i < 3 * MAX_CONNECTIONS; i++) {
            connect(base, 0);
        }
        // Time for the server to accept (and refuse) what the kernel queued for it.
        Thread.sleep(1_000);
        int during = openFiles(pid);
        // Counted before the idle limit could have closed any: what bounds them is the cap alone.
        assertTrue(System.nanoTime() - opening < TimeUnit.SECONDS.toNanos(idleSeconds),
                "the files were counted after the idle limit; the cap is not what was measured");
        // The cap, and a little for what the daemon opens meanwhile (its rounds read the simulated GPU's files).
        assertTrue(during <= before + MAX_CONNECTIONS + 32, "the daemon held " + (during - before) + " more files for "
                + 3 * MAX_CONNECTIONS + " connections (cap " + MAX_CONNECTIONS + ")");
        // The held ones end after the idle limit, the attacker's sockets still open: a user is answered again.
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(idleSeconds + 15); ; Thread.sleep(250)) {
            try {
                if (get(DashboardEndToEndTest.at(link, "metrics")).statusCode() == 200) {
                    break;
                }
            } catch (IOException e) {
                // refused while the cap is full
            }
            assertTrue(System.nanoTime() < end, "never answered again");
        }
        // A slot is free as soon as one is closed; the others follow within the JDK's next looks.
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); openFiles(pid) > before + 32; Thread.sleep(100)) {
            assertTrue(System.nanoTime() < end, "the held connections were not closed: " + (openFiles(pid) - before) + " more");
        }
    }

    @Test
    void aClientThatPipelinesRequestsAndReadsNoAnswer_isCutOffAfterTheAnswerTime_whileOthersAreAnswered() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0")
                .withJvmOptions("-Dgpusched.dashboard.answerSeconds=" + ANSWER_SECONDS).start();
        String link = DashboardEndToEndTest.link(daemon);
        URI base = URI.create(link);
        // 400 requests for the page (some 20 KB each) on one connection with a small window, none read:
        // the answers fill its socket and the thread writing them waits on it.
        Socket greedy = connect(base, 4096);
        String token = link.substring(link.indexOf("?token=") + "?token=".length());
        byte[] request = ("GET /?token=" + token + " HTTP/1.1\r\nHost: 127.0.0.1:" + base.getPort() + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 400; i++) {
            greedy.getOutputStream().write(request);
        }
        greedy.getOutputStream().flush();
        assertEquals(200, get(DashboardEndToEndTest.at(link, "metrics")).statusCode(), "answered meanwhile");
        // The answer time limit (shortened to ANSWER_SECONDS), and a few for a loaded machine; not reading
        // all along (reading would let the answers through).
        Thread.sleep((ANSWER_SECONDS + 6) * 1000L);
        assertTrue(closedByServerWithin(greedy, 3_000), "the greedy connection was still held after "
                + (ANSWER_SECONDS + 6) + " s");
        assertEquals(200, get(DashboardEndToEndTest.at(link, "metrics")).statusCode());
    }

    @Test
    void aPageThatNeverReadsItsEventsHoldsUpNoOtherPage_andIsDropped() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0").start();
        // 500 pending jobs of long commands (the GPU paused): every round's update is tens of KB, so a page
        // that does not read fills its socket in seconds.
        assertEquals(0, daemon.verb("pause", "0").code());
        for (int i = 1; i <= 500; i++) {
            assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", "echo " + i + " " + "x".repeat(190)).code());
        }
        String link = DashboardEndToEndTest.link(daemon);
        URI base = URI.create(link);
        String events = DashboardEndToEndTest.at(link, "events");

        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        http.sendAsync(HttpRequest.newBuilder(URI.create(events)).build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(r -> r.body().forEach(lines::add));
        for (String l = ""; !l.startsWith("event: state"); ) {
            l = lines.poll(20, TimeUnit.SECONDS);
            assertTrue(l != null, "the reader's page got no state");
        }
        // The never-reading page: a 4 KiB window, so the server's writes to it stop at once.
        Socket stuck = connect(base, 4096);
        URI e = URI.create(events);
        stuck.getOutputStream().write(("GET " + e.getRawPath() + "?" + e.getRawQuery() + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + base.getPort() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        stuck.getOutputStream().flush();

        String metrics = DashboardEndToEndTest.at(link, "metrics");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
             !get(metrics).body().contains("gpusched_dashboard_event_streams 2\n"); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "the stuck page never subscribed");
        }

        // The reader keeps getting updates (four a second) all along: before the stuck page is dropped (after
        // 5 s of not reading, EventStream.STALL_MS), and for 5 s after.
        long start = System.nanoTime();
        long lastEvent = start;
        long nextLook = start;
        boolean dropped = false;
        long droppedAt = Long.MAX_VALUE;
        int updates = 0;
        while (!dropped || System.nanoTime() - droppedAt < TimeUnit.SECONDS.toNanos(5)) {
            String l = lines.poll(250, TimeUnit.MILLISECONDS);
            long now = System.nanoTime();
            if (l != null && l.startsWith("event: ")) {
                lastEvent = now;
                updates++;
            }
            assertTrue(now - lastEvent < TimeUnit.SECONDS.toNanos(5), "the reader's page got nothing for 5 s after "
                    + updates + " updates, " + TimeUnit.NANOSECONDS.toMillis(now - start) + " ms after the stuck page opened");
            if (!dropped && now >= nextLook) {
                dropped = get(metrics).body().contains("gpusched_dashboard_event_streams 1\n");
                droppedAt = dropped ? now : droppedAt;
                nextLook = now + TimeUnit.SECONDS.toNanos(1);
            }
            assertTrue(now - start < TimeUnit.SECONDS.toNanos(60), "the stuck page was never dropped");
        }
        long watched = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertTrue(updates >= 2 * watched, "the reader got " + updates + " events in " + watched + " s");
        assertTrue(closedByServerWithin(stuck, 10_000), "the stuck page's connection was not closed");
    }
}

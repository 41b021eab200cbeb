package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queue's text is rendered anew for each format and width, at a cost that grows with the queue
 * (100 ms of CPU or more at 100,000 jobs): one user asking for a new width on every connection must
 * not hold up anyone's {@code hello}, {@code submit} or other answers, nor another user's text. A real
 * scheduler on a real socket; the renders are held still by the service's printer (the attack's cost,
 * made as long as the test likes), so nothing here depends on how fast a render is.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RendersPerUserTest {
    @TempDir
    Path dir;

    private RunningScheduler running;
    private ServiceServer server;
    private final List<SocketChannel> opened = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    /** Lets the held renders go. */
    private final CountDownLatch release = new CountDownLatch(1);
    /** Renders being held now, the most ever held at once, and how many were held in all. */
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger mostAtOnce = new AtomicInteger();
    private final AtomicInteger heldInAll = new AtomicInteger();

    /**
     * The attack's printer: a text asked for any width but 80 is held until {@link #release} (its render
     * takes that long); at width 80, or none, it is one line at once.
     */
    private final QueuePrinter printer = (rows, text) -> {
        if (text.width().orElse(80) != 80) {
            mostAtOnce.accumulateAndGet(held.incrementAndGet(), Math::max);
            heldInAll.incrementAndGet();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                held.decrementAndGet();
            }
        }
        byte[] line = ("queue at width " + text.width().orElse(80) + "\n").getBytes(StandardCharsets.UTF_8);
        return new QueuePrinter.Text() {
            @Override
            public int slices() {
                return 1;
            }

            @Override
            public void write(int slice, java.io.OutputStream out) throws IOException {
                out.write(line);
            }
        };
    };

    @BeforeEach
    void schedule() throws Exception {
        running = RunningScheduler.start(RunningScheduler.builder(dir, 0).options(RunningScheduler.quick()).build());
    }

    @AfterEach
    void stop() throws Exception {
        release.countDown();
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (SocketChannel c : opened) {
            c.close();
        }
        if (server != null) {
            server.close();
        }
        running.close();
    }

    private void serve(ServiceServer.Access access) {
        server = ServiceServer.start(running.scheduler(), dir.resolve("run/gpusched.sock"), access, Optional.empty(),
                Optional.empty(), ServiceServer.Limits.DEFAULTS, Optional.of(printer));
    }

    private SocketChannel connect() throws IOException {
        SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()));
        opened.add(c);
        return c;
    }

    private static void send(SocketChannel c, String line) throws IOException {
        ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    /** The next line from the service, waiting at most {@code seconds} (a deadline, not a measure); empty at its end. */
    private static Optional<String> line(SocketChannel c, int seconds) throws Exception {
        CompletableFuture<Optional<String>> f = CompletableFuture.supplyAsync(() -> {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            ByteBuffer one = ByteBuffer.allocate(1);
            try {
                while (true) {
                    one.clear();
                    if (c.read(one) < 0) {
                        return out.size() == 0 ? Optional.empty() : Optional.of(out.toString(StandardCharsets.UTF_8));
                    }
                    if (one.get(0) == '\n') {
                        return Optional.of(out.toString(StandardCharsets.UTF_8));
                    }
                    out.write(one.get(0));
                }
            } catch (IOException e) {
                return Optional.empty();
            }
        });
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no answer within " + seconds + " s", e);
        }
    }

    private static String exchange(SocketChannel c, String request) throws Exception {
        send(c, request);
        return line(c, 20).orElseThrow();
    }

    private static String textAt(int width) {
        return "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\",\"width\":" + width + "}}";
    }

    /** Waits (20 s at most) until at least {@code n} renders are held. */
    private void awaitHeld(int n) throws InterruptedException {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); held.get() < n; Thread.sleep(5)) {
            assertTrue(System.nanoTime() < end, "renders held: " + held.get() + ", awaited " + n);
        }
    }

    @Test
    void aUserWhoseRendersAreHeldOnMoreConnectionsThanTheServiceHasAnsweringThreads_holdsUpNeitherHelloNorSubmit()
            throws Exception {
        serve(ServiceServer.Access.OWNER_ONLY);
        List<SocketChannel> attack = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            SocketChannel c = connect();
            send(c, textAt(100 + i));
            attack.add(c);
        }
        awaitHeld(1);
        // While they are held: the cheap answers, on a connection of its own, come at once.
        SocketChannel other = connect();
        assertTrue(exchange(other, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"), "hello");
        String submitted = exchange(other, "{\"v\":1,\"op\":\"submit\",\"line\":\"true\",\"cwd\":\"" + dir + "\"}");
        assertTrue(submitted.contains("\"ok\":true") && submitted.contains("\"no\":"), submitted);
        String rows = exchange(other, "{\"v\":1,\"op\":\"queue\"}");
        assertTrue(rows.contains("\"ok\":true"), rows);
        java.util.regex.Matcher no = java.util.regex.Pattern.compile("\"no\":(\\d+)").matcher(submitted);
        assertTrue(no.find(), submitted);
        String job = exchange(other, "{\"v\":1,\"op\":\"job\",\"no\":" + no.group(1) + "}");
        assertTrue(job.contains("\"ok\":true"), job);
        // (Their own next text waits its turn behind the held ones: another user's does not, below.)
        assertTrue(held.get() >= 1 && release.getCount() == 1, "the renders were held throughout");
        // Then the attack's renders go on, and each is answered.
        release.countDown();
        for (SocketChannel c : attack) {
            String head = line(c, 20).orElseThrow();
            assertEquals("{\"v\":1,\"ok\":true,\"text_bytes\":19}", head);
        }
    }

    @Test
    void aUserGetsOneRenderAtATime_theNextOnesWaitTheirTurn_andEachIsAnswered() throws Exception {
        serve(ServiceServer.Access.OWNER_ONLY);
        List<SocketChannel> asks = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            SocketChannel c = connect();
            send(c, textAt(100 + i));
            asks.add(c);
        }
        awaitHeld(1);
        // A second render of theirs would start at once if it could (two threads render): give it the
        // chance, then see it did not. This can only miss a fault, never fail a sound service.
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); System.nanoTime() < end && held.get() < 2; ) {
            Thread.sleep(10);
        }
        assertEquals(1, held.get(), "renders of one user at once");
        release.countDown();
        for (int i = 0; i < asks.size(); i++) {
            assertEquals("{\"v\":1,\"ok\":true,\"text_bytes\":19}", line(asks.get(i), 20).orElseThrow());
            assertEquals("queue at width " + (100 + i), line(asks.get(i), 20).orElseThrow());
        }
        assertEquals(4, heldInAll.get());
        assertEquals(1, mostAtOnce.get(), "renders of one user at once");
    }

    @Test
    void anotherUsersRenderAndHello_areAnsweredWhileOneUsersRendersAreHeld() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to serve every user, and connect as another (setpriv)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) && Files.isExecutable(Path.of("/usr/bin/python3")),
                "needs setpriv (util-linux) and python3");
        serve(ServiceServer.Access.EVERY_USER);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        // nobody asks for a new width on each of 6 connections, then waits, reading nothing.
        String py = "import socket,sys\n"
                + "held=[]\n"
                + "for i in range(6):\n"
                + "    s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])\n"
                + "    s.sendall(('{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\",\"width\":%d}}\\n'"
                + " % (100+i)).encode())\n"
                + "    held.append(s)\n"
                + "print('sent', flush=True)\n"
                + "sys.stdin.read()\n";
        Process p = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", py, server.socket().toString()).redirectErrorStream(true).start();
        processes.add(p);
        java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8));
        assertEquals("sent", out.readLine());
        awaitHeld(1);
        // root, another user, is answered while nobody's renders are held: its own text, and hello.
        SocketChannel other = connect();
        assertTrue(exchange(other, "{\"v\":1,\"op\":\"hello\"}").contains("root"), "hello");
        assertEquals("{\"v\":1,\"ok\":true,\"text_bytes\":18}", exchange(other, textAt(80)));
        assertEquals("queue at width 80", line(other, 20).orElseThrow());
        assertTrue(release.getCount() == 1 && held.get() == 1, "nobody's renders were held throughout, one at a time: "
                + held.get());
    }
}

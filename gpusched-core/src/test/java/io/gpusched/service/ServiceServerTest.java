package io.gpusched.service;

import io.gpusched.protocol.BoardList;
import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Row;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.model.CancelOutcome;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real scheduler served on a real UNIX socket, with real clients. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServiceServerTest {
    @TempDir
    Path dir;

    private Scheduler scheduler;
    private RunningScheduler running;
    private ServiceServer server;
    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    @BeforeEach
    void serve() throws Exception {
        running = RunningScheduler.start(RunningScheduler.builder(dir, 0).options(RunningScheduler.quick())
                .listener(events::add).build());
        scheduler = running.scheduler();
        server = ServiceServer.start(scheduler, dir.resolve("run/gpusched.sock"));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        running.close();
    }

    @Test
    void aClientSubmitsSeesTheQueueAndCancels_asTheUserTheKernelSays() throws Exception {
        Path work = Files.createDirectories(dir.resolve("work"));
        try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
            assertEquals(System.getProperty("user.name"), c.user());
            int no = c.submit("[vram=20G] echo \"$(pwd) $FOO\" > seen; sleep 30", work,
                    Optional.of(Map.of("FOO", "bar", "PATH", "/usr/bin:/bin")));
            assertEquals(1, no);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                 !Files.exists(work.resolve("seen")); Thread.sleep(10)) {
                assertTrue(System.nanoTime() < end, "the job never ran");
            }
            assertEquals(work + " bar", Files.readString(work.resolve("seen")).strip());
            int second = c.submit("[vram=20G] true", work, Optional.empty());
            QueueView q = waitFor(c, s -> board(s, "pending").size() == 1 && board(s, "running").size() == 1);
            assertEquals(second, q.board().pending().get(0).no());
            assertTrue(q.board().pending().get(0).reason().text().contains("headroom"), q.toString());
            assertEquals(CancelOutcome.STOPPING, c.cancel(no));
            assertEquals(CancelOutcome.NOT_FOUND, c.cancel(99));
            waitFor(c, s -> board(s, "done").size() == 2);
        }
    }

    private static List<? extends Row> board(QueueView snapshot, String list) {
        return snapshot.board().rows(BoardList.ofWireName(list).orElseThrow());
    }

    private static QueueView waitFor(GpuschedClient c, java.util.function.Predicate<QueueView> done)
            throws InterruptedException {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); ; Thread.sleep(20)) {
            QueueView q = c.queue();
            if (done.test(q)) {
                return q;
            }
            assertTrue(System.nanoTime() < end, "timed out; last queue " + q);
        }
    }

    private static String exchange(SocketChannel ch, String line) throws IOException {
        ch.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
        ByteBuffer in = ByteBuffer.allocate(1 << 16);
        StringBuilder out = new StringBuilder();
        while (out.indexOf("\n") < 0) {
            in.clear();
            if (ch.read(in) < 0) {
                break;
            }
            in.flip();
            out.append(StandardCharsets.UTF_8.decode(in));
        }
        return out.toString().strip();
    }

    @Test
    void aSubmittedLineAShellWouldReadAsOtherThanOneWholeJobIsRefusedWithItsFix_andNothingIsQueued() throws Exception {
        try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
            int before = c.queue().board().pending().size() + c.queue().board().running().size();
            Map<String, String> refused = Map.of(
                    "[vram=1G] python train.py \\", "<job>:1: line ends with '\\' (a shell line continuation), but a job is one"
                            + " line: 'python train.py \\'; join the next line onto this one, or put the command in a script",
                    "printf '[%s]' a\\ ", "<job>:1: line ends with '\\' and a blank, which a shell reads as an escaped blank",
                    "echo a\recho b", "<job>:1: carriage return (CR) inside line: 'echo a\\x0decho b'; a job is one line",
                    "printf \u001b[1m", "<job>:1: control character \\x1b in command: 'printf \\x1b[1m'",
                    "[vram=8G] # python train.py", "<job>:1: the command is only a shell comment: '# python train.py'; put '#'"
                            + " at the start of the line to skip it");
            for (Map.Entry<String, String> r : refused.entrySet()) {
                ServiceException e = assertThrows(ServiceException.class, () -> c.submitted(new GpuschedClient.Submission(
                        r.getKey(), Path.of("/"), Optional.empty(), Optional.empty(), Optional.empty())), r.getKey());
                assertEquals("bad_job", e.code(), r.getKey());
                assertTrue(e.getMessage().contains(r.getValue()), e.getMessage());
            }
            assertEquals(before, c.queue().board().pending().size() + c.queue().board().running().size(), "nothing queued");
        }
    }

    @Test
    void badRequestsGetTypedErrors_andTheConnectionGoesOn() throws Exception {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()))) {
            assertTrue(exchange(ch, "not json").contains("\"code\":\"bad_request\""));
            assertTrue(exchange(ch, "{\"v\":2,\"op\":\"hello\"}").contains("\"code\":\"unsupported_version\""));
            assertTrue(exchange(ch, "{\"v\":1,\"op\":\"launch\"}").contains("\"code\":\"unknown_op\""));
            assertTrue(exchange(ch, "{\"v\":1,\"op\":\"cancel\",\"no\":\"7\"}").contains("\"no\\\" must be a whole number"));
            String badJob = exchange(ch, "{\"v\":1,\"op\":\"submit\",\"line\":\"[vrma=8G] x\",\"cwd\":\"/\"}");
            assertTrue(badJob.contains("\"code\":\"bad_job\"") && badJob.contains("did you mean 'vram'"), badJob);
            assertTrue(exchange(ch, "{\"v\":1,\"op\":\"submit\",\"line\":\"true\",\"cwd\":\"relative\"}")
                    .contains("must be an absolute path"));
            String both = exchange(ch, "{\"v\":1,\"op\":\"cancel\",\"no\":1,\"user\":\"ada\"}");
            assertTrue(both.contains("\"code\":\"bad_request\"") && both.contains("not both"), both);
            assertTrue(exchange(ch, "{\"v\":1,\"op\":\"cancel\",\"user\":7}").contains("\"user\\\" must be a string"));
            assertTrue(exchange(ch, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"));
        }
    }

    @Test
    void numbersBeyondALongAreRefusedAsNotWhole_notAsBadJson_andTheConnectionGoesOn() throws Exception {
        String forty = "9".repeat(40);
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()))) {
            for (String line : List.of("{\"v\":1,\"op\":\"cancel\",\"no\":" + forty + "}",
                    "{\"v\":1,\"op\":\"cancel\",\"no\":-" + forty + "}",
                    "{\"v\":1,\"op\":\"job\",\"no\":" + forty + "}",
                    "{\"v\":1,\"op\":\"pause\",\"gpu\":" + forty + "}",
                    "{\"v\":1,\"op\":\"logs\",\"no\":9223372036854775808}",
                    "{\"v\":1,\"op\":\"cancel\",\"no\":2147483648}",
                    "{\"v\":1,\"op\":\"cancel\",\"no\":-1}")) {
                String answer = exchange(ch, line);
                assertTrue(answer.contains("\"code\":\"bad_request\"") && answer.contains("must be a whole number")
                        && !answer.contains("not JSON"), line + " -> " + answer);
            }
            String umask = exchange(ch, "{\"v\":1,\"op\":\"submit\",\"line\":\"true\",\"cwd\":\"/\",\"umask\":" + forty + "}");
            assertTrue(umask.contains("\"code\":\"bad_request\"") && umask.contains("\\\"umask\\\" must be a whole number"), umask);
            String version = exchange(ch, "{\"v\":" + forty + ",\"op\":\"hello\"}");
            assertTrue(version.contains("\"code\":\"unsupported_version\""), version);
            // Past jackson's 1000 digits a number is no JSON this service reads, still one line, never a trace.
            String endless = exchange(ch, "{\"v\":1,\"op\":\"cancel\",\"no\":" + "9".repeat(5000) + "}");
            assertTrue(endless.contains("\"code\":\"bad_request\"") && endless.contains("not a request: not JSON"), endless);
            assertTrue(exchange(ch, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"));
        }
    }

    @Test
    void whatTheLoopRefusesIsAnsweredAsARefusal_andAUniqueJobSubmittedAgainNamesTheFirst() throws Exception {
        // A submission's answer comes on the loop's thread once its line is forced (no thread waits for it):
        // a refusal the loop makes must read as it did when a thread waited and threw.
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()))) {
            String orphan = exchange(ch, "{\"v\":1,\"op\":\"submit\",\"line\":\"[after=nosuch] true\",\"cwd\":\"/\"}");
            assertTrue(orphan.contains("\"code\":\"bad_request\"") && orphan.contains("nosuch"), orphan);
            String first = exchange(ch, "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=20G unique] sleep 30\",\"cwd\":\"/\"}");
            assertTrue(first.contains("\"ok\":true") && first.contains("\"no\":1"), first);
            String again = exchange(ch, "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=20G unique] sleep 30\",\"cwd\":\"/\"}");
            assertTrue(again.contains("\"ok\":true") && again.contains("\"no\":1") && again.contains("\"already\":"), again);
            assertTrue(exchange(ch, "{\"v\":1,\"op\":\"hello\"}").contains("\"ok\":true"), "the connection goes on");
        }
    }

    @Test
    void moreClientsSubmittingAtOnceThanTheServiceHasThreads_eachGetAFreshNumber() throws Exception {
        int clients = 48;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
        try {
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            List<java.util.concurrent.Future<String>> answers = new java.util.ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int n = i;
                answers.add(pool.submit(() -> {
                    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()))) {
                        go.await();
                        return exchange(ch, "{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=20G] echo " + n + "\",\"cwd\":\"/\"}");
                    }
                }));
            }
            go.countDown();
            java.util.Set<String> numbers = new java.util.HashSet<>();
            for (java.util.concurrent.Future<String> f : answers) {
                String a = f.get(30, TimeUnit.SECONDS);
                assertTrue(a.contains("\"ok\":true"), a);
                numbers.add(a.replaceAll(".*\"no\":(\\d+).*", "$1"));
            }
            assertEquals(clients, numbers.size(), "a number each: " + numbers);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRefusedSrunAttachClosesItsConnection_asEveryRefusedSrunDoes() throws Exception {
        for (String line : List.of("{\"v\":1,\"op\":\"srun_attach\",\"no\":" + "9".repeat(40) + ",\"token\":\"t\"}",
                "{\"v\":1,\"op\":\"srun_attach\",\"no\":0,\"token\":\"t\"}",
                "{\"v\":1,\"op\":\"srun\",\"line\":\"true\",\"cwd\":7}")) {
            try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()))) {
                String answer = exchange(ch, line);
                assertTrue(answer.contains("\"code\":\"bad_request\""), line + " -> " + answer);
                assertEquals(-1, ch.read(ByteBuffer.allocate(16)), "closed after the answer to " + line);
            }
        }
    }

    @Test
    void anOversizedRequestClosesOnlyItsOwnConnection() throws Exception {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()))) {
            String answer = exchange(ch, "{\"v\":1,\"op\":\"hello\",\"pad\":\"" + "x".repeat(Protocol.MAX_LINE_BYTES) + "\"}");
            assertTrue(answer.contains("\"code\":\"too_large\""), answer);
        }
        try (GpuschedClient c = GpuschedClient.connect(server.socket())) {
            assertEquals(System.getProperty("user.name"), c.user());
        }
    }

    @Test
    void aSecondServiceOnALiveSocketIsRefused_andTheSocketIsThisUsersOnly() throws Exception {
        ServiceException e = assertThrows(ServiceException.class, () -> ServiceServer.start(scheduler, server.socket()));
        assertEquals("in_use", e.code());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(server.socket())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(server.socket().getParent())));
    }

    @Test
    void aStaleSocketFileOfADeadDaemonIsReplaced() throws Exception {
        Path stale = dir.resolve("stale.sock");
        java.nio.channels.ServerSocketChannel dead = java.nio.channels.ServerSocketChannel
                .open(java.net.StandardProtocolFamily.UNIX);
        dead.bind(UnixDomainSocketAddress.of(stale));
        dead.close(); // the file stays, nobody listens
        assertTrue(Files.exists(stale));
        try (ServiceServer again = ServiceServer.start(scheduler, stale);
             GpuschedClient c = GpuschedClient.connect(again.socket())) {
            assertEquals(System.getProperty("user.name"), c.user());
        }
    }

    @Test
    void anotherUserIsRefusedByTheKernelsWordNotTheirs() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to connect as another user (setpriv)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) && Files.isExecutable(Path.of("/usr/bin/python3")),
                "needs setpriv (util-linux) and python3");
        // Let the other user reach the socket at all, so the refusal is the daemon's, not the file mode's.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(server.socket().getParent(), PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(server.socket(), PosixFilePermissions.fromString("rw-rw-rw-"));
        // The daemon answers a refused user at once, whatever it claims to be; read before writing.
        String py = "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]);"
                + " print(s.recv(4096).decode())";
        Process p = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", py, server.socket().toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("\"code\":\"forbidden\"") && out.contains("serves root only"), out);
    }
}

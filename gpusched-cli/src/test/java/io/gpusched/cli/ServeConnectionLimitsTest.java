package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code gpusched serve} daemon flooded with connections (issue #28, finding 11): its threads stay
 * fixed and another client is answered at once; one user's connections are capped, with one line saying
 * which option raises the cap, while another user is served; a connection that sends nothing is closed
 * after {@code --idle-timeout}. The per-user cap needs root and two real Unix users the test creates
 * (useradd, setpriv, python3 as their client).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServeConnectionLimitsTest {
    private static final String FLOODER = "gs-cn-a";
    private static final String OTHER = "gs-cn-b";
    private static final List<String> CREATED = new ArrayList<>();

    @TempDir
    Path dir;

    private ServeDaemon daemon;
    private final List<SocketChannel> opened = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        for (SocketChannel c : opened) {
            c.close();
        }
        if (daemon != null) {
            daemon.close();
        }
    }

    @AfterAll
    static void removeUsers() throws Exception {
        UnixUsers.remove(CREATED);
    }

    /** Threads of a process, as the kernel lists them. */
    private static int threads(Process p) throws IOException {
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(p.pid()), "task"))) {
            return (int) tasks.count();
        }
    }

    /** This process's soft limit on open files (the daemon inherits it); 0 where unknown. */
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

    private SocketChannel connect() throws IOException {
        SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(daemon.socket()));
        opened.add(c);
        return c;
    }

    /** The daemon's next line on a connection, waiting at most 10 s; empty at its end of stream. */
    private static String line(SocketChannel c) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            StringBuilder out = new StringBuilder();
            ByteBuffer one = ByteBuffer.allocate(1);
            try {
                while (c.read(one.clear()) > 0 && one.get(0) != '\n') {
                    out.append((char) one.get(0));
                }
            } catch (IOException e) {
                // its end
            }
            return out.toString();
        }).get(10, TimeUnit.SECONDS);
    }

    @Test
    void threeThousandIdleConnectionsLeaveTheDaemonsThreadsAsTheyWere_andAQueueAnswersWithinASecond() throws Exception {
        int n = 3000;
        long files = openFileLimit();
        assumeTrue(files > 2 * n + 500, "needs " + (2 * n + 500) + " open files (both ends are on this machine), the"
                + " limit is " + files + "; raise it with ulimit -n");
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--max-connections", "4000").start();
        int before = threads(daemon.process());
        for (int i = 0; i < n; i++) {
            connect();
        }
        long t0 = System.nanoTime();
        ServeDaemon.Result q = daemon.verb("queue");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertEquals(0, q.code(), q.err());
        assertTrue(millis < 1000, "queue took " + millis + " ms beside " + n + " idle connections");
        int after = threads(daemon.process());
        // The pools' threads not started yet may start (4 request workers, the srun timer, the JDK's
        // CompletableFuture delayer): a fixed few, not one per connection (3,015 before issue #28).
        assertTrue(after - before <= 6, n + " idle connections took " + (after - before) + " threads: " + before + " -> "
                + after);
    }

    @Test
    void aConnectionThatSendsNothingIsClosedAfterTheIdleTimeoutServeWasGiven() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--idle-timeout", "1").start();
        SocketChannel c = connect();
        long t0 = System.nanoTime();
        String said = line(c);
        assertTrue(said.contains("\"code\":\"idle_timeout\"") && said.contains("no request for 1 s"), said);
        assertTrue(System.nanoTime() - t0 > TimeUnit.MILLISECONDS.toNanos(900), "closed before the timeout");
        assertEquals("", line(c), "then the connection is closed");
    }

    @Test
    void aUserAtTheirConnectionCapIsRefusedWithOneLineNamingTheOption_whileAnotherUserIsServed() throws Exception {
        CREATED.addAll(UnixUsers.create(FLOODER, OTHER));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--max-connections-per-user", "3").start();
        // The flooder holds three connections (each answered), then opens a fourth and prints its first
        // line; it keeps them all for 8 s.
        String flood = "import socket,sys,time\n"
                + "held=[]\n"
                + "for i in range(3):\n"
                + "    s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'{\"v\":1,\"op\":\"hello\"}\\n')\n"
                + "    f=s.makefile(); r=f.readline(); held.append((s,f))\n"
                + "    print(r.strip(), flush=True)\n"
                + "s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.makefile().readline().strip(), flush=True)\n"
                + "time.sleep(8)\n";
        Process flooder = new ProcessBuilder(UnixUsers.setpriv(FLOODER, "/usr/bin/python3", "-c", flood, daemon.socket().toString()))
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(flooder.getInputStream(), StandardCharsets.UTF_8))) {
            for (int i = 0; i < 3; i++) {
                String answer = out.readLine();
                assertTrue(answer != null && answer.contains("\"ok\":true"), "connection " + (i + 1) + ": " + answer);
            }
            String refused = out.readLine();
            assertTrue(refused != null && refused.contains("\"code\":\"too_many_connections\"") && refused.contains(
                    "\"message\":\"" + FLOODER + " has 3 connections open to this gpusched, the most one user may"
                    + " (gpusched serve --max-connections-per-user 3); close some and try again\""), refused);
            // Meanwhile another user, and root, are served.
            String answer = UnixUsers.as(OTHER, daemon.socket(), "{\"v\":1,\"op\":\"hello\"}");
            assertTrue(answer.contains("\"ok\":true") && answer.contains("\"user\":\"" + OTHER + "\""), answer);
            assertEquals(0, daemon.verb("queue").code(), "root is never refused");
            assertTrue(flooder.isAlive(), "the flooder's connections were still held");
        } finally {
            flooder.destroyForcibly().waitFor();
        }
    }
}

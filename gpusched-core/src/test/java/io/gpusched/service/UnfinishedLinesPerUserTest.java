package io.gpusched.service;

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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unfinished request lines share {@link ServiceServer#SHARED_BYTES} beyond each connection's own: one
 * user who starts a long line on each of their connections and never ends it may hold only their
 * share, {@link ServiceServer#SHARED_BYTES_PER_USER}, so another user's long request (a submission
 * with a big environment) is still read and answered. A root daemon on a real socket, the attacker a
 * raw client run as nobody (needs root, setpriv and python3).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnfinishedLinesPerUserTest {
    @TempDir
    Path dir;

    private RunningScheduler running;
    private ServiceServer server;
    private Process attacker;

    @BeforeEach
    void serve() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to serve every user, and connect as another (setpriv)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) && Files.isExecutable(Path.of("/usr/bin/python3")),
                "needs setpriv (util-linux) and python3");
        running = RunningScheduler.start(RunningScheduler.builder(dir, 0).options(RunningScheduler.quick()).build());
        server = ServiceServer.start(running.scheduler(), dir.resolve("run/gpusched.sock"), ServiceServer.Access.EVERY_USER,
                Optional.empty(), ServiceServer.Limits.DEFAULTS);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    }

    @AfterEach
    void stop() throws Exception {
        if (attacker != null) {
            attacker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
        if (running != null) {
            running.close();
        }
    }

    /** The next line from the service, waiting at most 20 s (a deadline, not a measure). */
    private static String line(SocketChannel c) throws Exception {
        CompletableFuture<String> f = CompletableFuture.supplyAsync(() -> {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            ByteBuffer one = ByteBuffer.allocate(1);
            try {
                while (c.read(one.clear()) > 0 && one.get(0) != '\n') {
                    out.write(one.get(0));
                }
            } catch (IOException e) {
                // what came is the answer
            }
            return out.toString(StandardCharsets.UTF_8);
        });
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no answer within 20 s", e);
        }
    }

    @Test
    void oneUsersUnfinishedLinesOnEveryConnection_holdOnlyTheirShare_andAnotherUsersLongRequestIsAnswered()
            throws Exception {
        // nobody starts a line of 1 MiB, the longest request, on each of 48 connections (48 MiB offered,
        // more than the 32 MiB all share) and sends of it what the daemon takes, never its end.
        int n = 48;
        String py = "import socket,sys,time\n"
                + "line=b'{\"v\":1,\"op\":\"hello\",\"pad\":\"'+b'x'*(" + (Protocol.MAX_LINE_BYTES - 40) + ")\n"
                + "socks=[]\n"
                + "for i in range(" + n + "):\n"
                + "    s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.setblocking(False); socks.append([s,0])\n"
                + "quiet=time.time()\n"
                + "while time.time()-quiet<1.5:\n"
                + "    for e in socks:\n"
                + "        try:\n"
                + "            k=e[0].send(line[e[1]:e[1]+65536])\n"
                + "            if k>0:\n"
                + "                e[1]+=k; quiet=time.time()\n"
                + "        except BlockingIOError:\n"
                + "            pass\n"
                + "    time.sleep(0.01)\n"
                + "print('held', sum(e[1] for e in socks), flush=True)\n"
                + "sys.stdin.read()\n";
        attacker = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", py, server.socket().toString()).redirectErrorStream(true).start();
        String said = new java.io.BufferedReader(new java.io.InputStreamReader(attacker.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
        assertTrue(said != null && said.startsWith("held "), "the attacker: " + said);
        long held = server.unfinishedBytes();
        assertTrue(held <= ServiceServer.SHARED_BYTES_PER_USER + 2L * Protocol.MAX_LINE_BYTES + n * ServiceServer.OWN_BYTES,
                "one user's unfinished lines hold " + held + " bytes of the daemon's memory (" + said + ")");
        // root's request of 512 KiB, over what any connection holds of its own, is read whole and answered.
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(server.socket()))) {
            ByteBuffer request = ByteBuffer.wrap(("{\"v\":1,\"op\":\"hello\",\"pad\":\"" + "y".repeat(512 * 1024) + "\"}\n")
                    .getBytes(StandardCharsets.UTF_8));
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                try {
                    while (request.hasRemaining()) {
                        c.write(request);
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            String answer = line(c);
            assertTrue(answer.contains("\"ok\":true") && answer.contains("root"), answer);
            sent.get(20, TimeUnit.SECONDS);
        }
    }
}

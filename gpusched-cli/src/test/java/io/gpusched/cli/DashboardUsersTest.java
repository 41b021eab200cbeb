package io.gpusched.cli;

import static io.gpusched.cli.UnixUsers.asUser;
import static io.gpusched.cli.UnixUsers.ownDir;
import static io.gpusched.cli.UnixUsers.setpriv;
import static io.gpusched.cli.UnixUsers.userClasspath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Finding 9 of #28, with real Unix users the test creates: the dashboard is read by the people its
 * daemon's socket serves, each with the URL {@code gpusched dashboard} gives them over the socket, and by
 * nobody else: not without a token, not with a token changed, not under another {@code Host}, and a
 * user's daemon not by another user even holding a token of a daemon that does serve them. Needs root,
 * useradd, setpriv (util-linux) and python3 (the users' HTTP client).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DashboardUsersTest {
    private static final String ADA = "gs-da-a";
    private static final String BOB = "gs-da-b";
    /** GET a URL; print the status, then the body (urllib raises on 4xx: its status and body are printed alike). */
    private static final String FETCH = "import sys,urllib.request,urllib.error\n"
            + "try:\n r=urllib.request.urlopen(sys.argv[1]); print(r.status); print(r.read().decode(),end='')\n"
            + "except urllib.error.HTTPError as e:\n print(e.code); print(e.read().decode(),end='')\n";

    @TempDir
    Path dir;

    @RegisterExtension
    static final UnixUsers.ForClass USERS = UnixUsers.ForClass.created(ADA, BOB);

    /** A GET as {@code user} (python's urllib, as a browser of theirs would send it): status, then the body. */
    private static String fetch(String user, String url) throws Exception {
        Process p = new ProcessBuilder(setpriv(user, "/usr/bin/python3", "-c", FETCH, url)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        return out;
    }

    /**
     * {@code gpusched serve --dashboard 127.0.0.1:0} as {@code user} (root: every user's daemon), until its
     * socket answers its owner; @return the process
     */
    private Process serve(String user, String classpath, Path socket, Path logs, Path log) throws Exception {
        List<String> argv = setpriv(user, ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath,
                Main.class.getName(), "serve", "--sim", "1", "--poll", "0.1", "--dashboard", "127.0.0.1:0",
                "--socket", socket.toString(), "--log-dir", logs.toString());
        Process daemon = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); ; Thread.sleep(100)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), "the daemon did not come up: " + Files.readString(log));
            if (Files.readString(log).contains("serving ")) {
                return daemon;
            }
        }
    }

    /** The dashboard's address as the daemon logged it (no token there). */
    private static String base(Path log) throws Exception {
        Matcher m = Pattern.compile("dashboard on (http://\\S+/) \\(read-only").matcher(Files.readString(log));
        assertTrue(m.find(), Files.readString(log));
        return m.group(1);
    }

    private static void stop(Process daemon) throws Exception {
        ServeDaemon.stopGracefully(daemon);
        assertTrue(daemon.waitFor(30, TimeUnit.SECONDS));
    }

    private static String token(String url) {
        return url.substring(url.indexOf("?token=") + "?token=".length());
    }

    @Test
    void aRootDaemonsDashboardShowsEachUserTheQueueByTheirOwnUrl_andNobodyWithoutOneOrUnderAnotherHost() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        Path socket = dir.resolve("run/gpusched.sock");
        Path log = dir.resolve("daemon.log");
        Process daemon = serve("root", System.getProperty("java.class.path"), socket, dir.resolve("logs"), log);
        try {
            String s = socket.toString();
            String base = base(log);
            assertTrue(!Files.readString(log).contains("token="), "the daemon's log holds no token");
            Path home = ownDir(ADA, dir.resolve(ADA));
            assertEquals(0, asUser(ADA, cp, home, "submit", "--socket", s, "--vram", "1G", "--", "echo ada-job").code());

            UnixUsers.Result ada = asUser(ADA, cp, home, "dashboard", "--socket", s);
            assertEquals(0, ada.code(), ada.err());
            String adaUrl = ada.out().strip();
            assertTrue(adaUrl.startsWith(base + "?token="), adaUrl);
            String queue = fetch(ADA, DashboardEndToEndTest.at(adaUrl, "api/queue"));
            assertTrue(queue.startsWith("200\n") && queue.contains("\"owner\":\"" + ADA + "\"") && queue.contains("echo ada-job"),
                    queue);
            assertTrue(fetch(ADA, adaUrl).startsWith("200\n<!DOCTYPE html>"), "her page");

            // Bob is served by this socket too: his own token, the queue as gpusched queue shows it to him.
            UnixUsers.Result bob = asUser(BOB, cp, dir, "dashboard", "--socket", s);
            assertEquals(0, bob.code(), bob.err());
            assertNotEquals(token(adaUrl), token(bob.out().strip()));
            assertTrue(asUser(BOB, cp, dir, "queue", "--socket", s).out().contains("echo ada-job"));
            assertTrue(fetch(BOB, DashboardEndToEndTest.at(bob.out().strip(), "api/queue")).contains("echo ada-job"));

            // Without a token, or with hers changed by one character: refused, saying what to run.
            assertEquals("401\ngpusched dashboard: this needs your token; run gpusched dashboard for your URL\n",
                    fetch(BOB, base + "api/queue"));
            String t = token(adaUrl);
            String mangled = t.substring(0, t.length() - 2) + (t.charAt(t.length() - 2) == 'x' ? 'y' : 'x') + t.charAt(t.length() - 1);
            assertEquals("403\ngpusched dashboard: this token is not valid here (mistyped, another daemon's, or from before "
                    + "this daemon started); run gpusched dashboard for your URL\n", fetch(BOB, base + "api/queue?token=" + mangled));
            assertTrue(fetch(BOB, base + "events?token=" + mangled).startsWith("403\n"), "the stream too");

            // Her valid token under another Host (a page that rebound its name to 127.0.0.1): refused.
            int port = java.net.URI.create(base).getPort();
            String rebound = DashboardEndToEndTest.raw(base, "GET /api/queue?token=" + t + " HTTP/1.1\r\nHost: attacker.example:"
                    + port + "\r\nConnection: close\r\n\r\n");
            assertTrue(rebound.startsWith("HTTP/1.1 403 ") && !rebound.contains("ada-job"), rebound);
        } finally {
            stop(daemon);
        }
    }

    @Test
    void aUsersDaemonsDashboardServesHerAlone_evenToAnotherUserHoldingATokenOfADaemonThatServesHim() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        Path home = ownDir(ADA, dir.resolve(ADA));
        Path adaSocket = home.resolve("run/gpusched.sock");
        Path adaLog = home.resolve("daemon.log");
        Process adas = serve(ADA, cp, adaSocket, home.resolve("logs"), adaLog);
        Path rootSocket = dir.resolve("run/gpusched.sock");
        Process roots = serve("root", System.getProperty("java.class.path"), rootSocket, dir.resolve("logs"),
                dir.resolve("daemon.log"));
        try {
            String base = base(adaLog);
            assertEquals(0, asUser(ADA, cp, home, "submit", "--socket", adaSocket.toString(), "--vram", "1G", "--",
                    "echo her-private-job").code());
            UnixUsers.Result ada = asUser(ADA, cp, home, "dashboard", "--socket", adaSocket.toString());
            assertEquals(0, ada.code(), ada.err());
            assertTrue(fetch(ADA, DashboardEndToEndTest.at(ada.out().strip(), "api/queue")).contains("her-private-job"));

            // Her socket does not serve him, so it gives him no URL...
            UnixUsers.Result asked = asUser(BOB, cp, dir, "dashboard", "--socket", adaSocket.toString());
            assertEquals(1, asked.code());
            assertEquals("", asked.out());
            // ... nor root, whom her socket refuses as well (the kernel names the caller).
            ServeDaemon.Result rootAsked = ServeDaemon.cli("dashboard", "--socket", adaSocket.toString());
            assertEquals(new ServeDaemon.Result(1, "", rootAsked.err()), rootAsked);

            // ... and the port, which he can reach, reads nothing without her token.
            String none = fetch(BOB, base + "api/queue");
            assertTrue(none.startsWith("401\n") && !none.contains("her-private-job"), none);
            UnixUsers.Result bobs = asUser(BOB, cp, dir, "dashboard", "--socket", rootSocket.toString());
            assertEquals(0, bobs.code(), bobs.err());
            String foreign = fetch(BOB, base + "api/queue?token=" + token(bobs.out().strip()));
            assertTrue(foreign.startsWith("403\n") && !foreign.contains("her-private-job"), "the root daemon's token for him: "
                    + foreign);
            assertTrue(fetch(BOB, base + "events?token=" + token(bobs.out().strip())).startsWith("403\n"));
            assertTrue(fetch(BOB, base + "metrics?token=" + token(bobs.out().strip())).startsWith("403\n"));
        } finally {
            stop(adas);
            stop(roots);
        }
    }

    @Test
    void statusAndJobsAnswerInLocalGpuSchedulersFields_toAUserWithHerToken_andNobodyWithout() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        Path socket = dir.resolve("run/gpusched.sock");
        Path log = dir.resolve("daemon.log");
        Process daemon = serve("root", System.getProperty("java.class.path"), socket, dir.resolve("logs"), log);
        try {
            String s = socket.toString();
            String base = base(log);
            Path home = ownDir(ADA, dir.resolve(ADA));
            assertEquals(0, asUser(ADA, cp, home, "submit", "--socket", s, "--vram", "1G", "--", "sleep 60").code());
            assertEquals(0, asUser(ADA, cp, home, "submit", "--socket", s, "--vram", "1G", "--", "true").code());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                 !ServeDaemon.cli("queue", "--socket", s).out().contains("job 2 ok"); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, ServeDaemon.cli("queue", "--socket", s).out());
            }
            String url = asUser(ADA, cp, home, "dashboard", "--socket", s).out().strip();
            int port = java.net.URI.create(base).getPort();

            String status = fetch(ADA, DashboardEndToEndTest.at(url, "status"));
            // Keys come sorted, as every JSON of the dashboard's; jq reads them by name.
            assertTrue(status.matches("(?s)200\\n\\{\"gpus_allocated\":\\[0\\],\"gpus_total\":1,\"jobs_queued\":0,"
                    + "\"jobs_running\":1,\"jobs_total\":2,\"port\":" + port + ",\"service\":\"gpusched\",\"uptime_s\":[0-9]+,"
                    + "\"version\":\"[^\"]+\"}\\n"), status);

            String jobs = fetch(ADA, DashboardEndToEndTest.at(url, "jobs"));
            Matcher m = Pattern.compile("^200\\n\\[\\{\"gpus\":\\[0\\],\"id\":1,\"num_gpus\":1,\"pid\":([0-9]+),"
                    + "\"status\":\"running\"},\\{\"gpus\":\\[0\\],\"id\":2,\"num_gpus\":1,\"status\":\"ok\"}]\\n$").matcher(jobs);
            assertTrue(m.find(), jobs);
            String uid = Files.readAllLines(Path.of("/proc", m.group(1), "status")).stream()
                    .filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow().split("\\s+")[1];
            assertEquals(UnixUsers.output("id", "-u", ADA), uid, "the pid is her running job's");

            assertEquals("401\ngpusched dashboard: this needs your token; run gpusched dashboard for your URL\n",
                    fetch(BOB, base + "status"));
            String t = token(url);
            String mangled = t.substring(0, t.length() - 1) + (t.endsWith("x") ? "y" : "x");
            assertTrue(fetch(BOB, base + "jobs?token=" + mangled).startsWith("403\n"));
        } finally {
            stop(daemon);
        }
    }

    /**
     * Opens {@code /events} at a user's URL over a socket of its own, as a browser's page does.
     *
     * @return what it read, once that holds {@code expected} (the socket left open, in {@code open}); fails if it never does
     */
    private static String events(String url, String expected, List<java.net.Socket> open) throws Exception {
        java.net.URI u = java.net.URI.create(DashboardEndToEndTest.at(url, "events"));
        java.net.Socket s = new java.net.Socket(u.getHost(), u.getPort());
        open.add(s);
        s.getOutputStream().write(("GET " + u.getRawPath() + "?" + u.getRawQuery() + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + u.getPort() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        StringBuilder read = new StringBuilder();
        byte[] buf = new byte[8192];
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); !read.toString().contains(expected); ) {
            // A stream sends a keepalive each 15 s: the deadline is for the whole wait, not each read.
            long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            assertTrue(left > 0, "no '" + expected + "' in 20 s: " + read);
            s.setSoTimeout((int) left);
            int n;
            try {
                n = s.getInputStream().read(buf);
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError("no '" + expected + "' in 20 s: " + read, e);
            }
            assertTrue(n > 0, "the stream ended before '" + expected + "': " + read);
            read.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
        return read.toString();
    }

    @Test
    void oneUserWithTheirShareOfLivePagesOpen_isRefusedOneMore_whileAnotherUserStillGetsAStream() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        Path socket = dir.resolve("run/gpusched.sock");
        Process daemon = serve("root", System.getProperty("java.class.path"), socket, dir.resolve("logs"),
                dir.resolve("daemon.log"));
        List<java.net.Socket> open = new java.util.ArrayList<>();
        try {
            UnixUsers.Result ada = asUser(ADA, cp, dir, "dashboard", "--socket", socket.toString());
            UnixUsers.Result bob = asUser(BOB, cp, dir, "dashboard", "--socket", socket.toString());
            assertEquals(0, ada.code(), ada.err());
            assertEquals(0, bob.code(), bob.err());
            // Bob opens live pages with his own URL (the token is who he is) until he is refused: four of them
            // (EventStream.MAX_STREAMS_PER_USER), each a stream that gets the state.
            for (int i = 0; i < 4; i++) {
                assertTrue(events(bob.out().strip(), "event: state", open).startsWith("HTTP/1.1 200 OK\r\n"));
            }
            String refused = events(bob.out().strip(), "close one\"}", open);
            assertTrue(refused.startsWith("HTTP/1.1 503 Service Unavailable\r\n") && refused.endsWith(
                    "\r\n\r\n{\"error\":\"busy\",\"message\":\"you have 4 pages open already; close one\"}"), refused);
            // Ada's page is answered as ever.
            assertTrue(events(ada.out().strip(), "event: state", open).startsWith("HTTP/1.1 200 OK\r\n"));
        } finally {
            for (java.net.Socket s : open) {
                s.close();
            }
            stop(daemon);
        }
    }
}

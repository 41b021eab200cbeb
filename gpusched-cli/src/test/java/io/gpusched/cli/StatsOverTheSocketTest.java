package io.gpusched.cli;

import static io.gpusched.cli.UnixUsers.ownDir;
import static io.gpusched.cli.UnixUsers.userClasspath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.UnixUsers.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched stats} for the users of a root daemon, whose journal (root's, 0600) they cannot read:
 * the daemon reads it and answers each with what they may see. Real Unix users the test creates, against
 * a real root daemon; needs root, useradd, setpriv and python3 (skipped, saying why, otherwise).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class StatsOverTheSocketTest {
    private static final String ALICE = "gs-st-alice";
    private static final String BOB = "gs-st-bob";
    /** A member of the daemon's --admin-group: her own group, which useradd --user-group made. */
    private static final String CAROL = "gs-st-carol";
    /** What alice's jobs run: nobody else may read it in any figure. */
    private static final String SECRET = "secret-alpha";

    @TempDir
    Path dir;
    private Process daemon;

    @RegisterExtension
    static final UnixUsers.ForClass USERS = UnixUsers.ForClass.created(ALICE, BOB, CAROL);

    @AfterEach
    void stop() {
        if (daemon != null && daemon.isAlive()) {
            // Nothing of the test's users may outlive it (userdel refuses a user with processes).
            ServeDaemon.stopLeavingNoJob(daemon, java.time.Duration.ofSeconds(30));
        }
    }

    private Path socket() {
        return dir.resolve("run/gpusched.sock");
    }

    private Path logs() {
        return dir.resolve("logs");
    }

    private void serve() throws Exception {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        daemon = new ProcessBuilder(ServeDaemon.java(), "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "serve", "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--socket", socket().toString(),
                "--log-dir", logs().toString(), "--admin-group", CAROL)
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             ServeDaemon.cli("queue", "--socket", socket().toString()).code() != 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && daemon.isAlive(), Files.readString(dir.resolve("daemon.log")));
        }
    }

    private void awaitQueue(java.util.function.Predicate<String> test) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
             !test.test(ServeDaemon.cli("queue", "--socket", socket().toString()).out()); Thread.sleep(100)) {
            assertTrue(System.nanoTime() < end, ServeDaemon.cli("queue", "--socket", socket().toString()).out()
                    + Files.readString(dir.resolve("daemon.log")));
        }
    }

    /** {@code gpusched ARGS} as {@code user}, with GPUSCHED_SOCKET naming the test's daemon and TZ=UTC. */
    private Result cliAs(String user, String cp, Path cwd, String... args) throws Exception {
        List<String> argv = UnixUsers.setpriv(user, "/usr/bin/env", "GPUSCHED_SOCKET=" + socket(), "TZ=UTC",
                ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-cp", cp,
                Main.class.getName());
        argv.addAll(List.of(args));
        return UnixUsers.toResult(ServeDaemon.result(new ProcessBuilder(argv).directory(cwd.toFile()).start()));
    }

    @Test
    void aUsersStatsOverARootDaemonsSocket_holdNoneOfAnotherUsersJobs_anotherUsersAreRefused_andRootSeesBoth() throws Exception {
        serve();
        String cp = userClasspath(Files.createDirectories(dir.resolve("classpath")));
        String s = socket().toString();
        Path aliceHome = ownDir(ALICE, dir.resolve(ALICE));
        Path bobHome = ownDir(BOB, dir.resolve(BOB));
        for (int i = 0; i < 2; i++) {
            Result r = cliAs(ALICE, cp, aliceHome, "submit", "--socket", s, "--vram", "1G", "--", "echo " + SECRET);
            assertEquals(0, r.code(), r.toString());
        }
        Result b = cliAs(BOB, cp, bobHome, "submit", "--socket", s, "--vram", "1G", "--", "echo bob-beta");
        assertEquals(0, b.code(), b.toString());
        awaitQueue(q -> q.contains("✓ job 1 ok") && q.contains("✓ job 2 ok") && q.contains("✓ job 3 ok"));

        // The journal is root's: bob cannot read it, so stats asks the daemon (GPUSCHED_SOCKET), as --socket does.
        Result local = cliAs(BOB, cp, bobHome, "stats", "--log-dir", logs().toString());
        Result viaSocket = cliAs(BOB, cp, bobHome, "stats", "--socket", s);
        assertEquals(0, local.code(), local.toString());
        assertEquals(0, viaSocket.code(), viaSocket.toString());
        for (Result r : List.of(local, viaSocket)) {
            assertFalse(r.out().contains(ALICE) || r.err().contains(ALICE), "alice's name: " + r);
            assertFalse(r.out().contains(SECRET) || r.err().contains(SECRET), "alice's command: " + r);
            assertTrue(r.out().contains("users         only " + BOB + "\n"), r.out());
            assertTrue(r.out().contains("jobs          1: 1 ok\n"), "his count alone, not alice's two: " + r.out());
            assertTrue(r.out().lines().filter(l -> l.startsWith(BOB + " ")).count() == 1
                    && r.out().lines().noneMatch(l -> l.startsWith("gs-")  && !l.startsWith(BOB + " ")), r.out());
        }
        Result json = cliAs(BOB, cp, bobHome, "stats", "--json", "--log-dir", logs().toString());
        assertEquals(0, json.code(), json.toString());
        assertFalse(json.out().contains(ALICE) || json.out().contains(SECRET), json.out());
        assertTrue(json.out().contains("\"user\":\"" + BOB + "\"") && json.out().contains("\"total\":{\"jobs\":1,"), json.out());

        String refused = "gpusched stats: only " + ALICE + " or an admin (root, group " + CAROL + ") may see " + ALICE
                + "'s stats\n";
        assertEquals(new Result(1, "", refused), cliAs(BOB, cp, bobHome, "stats", "--user", ALICE, "--socket", s));
        assertEquals(new Result(1, "", refused), cliAs(BOB, cp, bobHome, "stats", "--json", "--user", ALICE, "--log-dir",
                logs().toString()));
        Result plot = cliAs(BOB, cp, bobHome, "stats", "--plot", "p.svg", "--log-dir", logs().toString());
        assertEquals(1, plot.code(), plot.toString());
        assertTrue(plot.err().contains("--plot is not served by the daemon"), plot.toString());
        assertFalse(Files.exists(bobHome.resolve("p.svg")) || Files.exists(logs().resolve("p.svg")));

        // An admin (root, or a member of --admin-group) sees both users, or the one asked for.
        Result carol = cliAs(CAROL, cp, dir, "stats", "--log-dir", logs().toString());
        assertEquals(0, carol.code(), carol.toString());
        assertTrue(carol.out().contains("jobs          3: 3 ok\n") && carol.out().contains("\n" + ALICE + " ")
                && carol.out().contains("\n" + BOB + " "), carol.out());
        Result carolAlice = cliAs(CAROL, cp, dir, "stats", "--socket", s, "--user", ALICE);
        assertTrue(carolAlice.code() == 0 && carolAlice.out().contains("jobs          2: 2 ok\n")
                && !carolAlice.out().contains(BOB), carolAlice.toString());
        ServeDaemon.Result root = ServeDaemon.cli("stats", "--socket", s);
        assertEquals(0, root.code(), root.toString());
        assertTrue(root.out().contains("jobs          3: 3 ok\n") && root.out().contains("\n" + ALICE + " ")
                && root.out().contains("\n" + BOB + " "), root.out());
        ServeDaemon.Result rootAlice = ServeDaemon.cli("stats", "--socket", s, "--user", ALICE, "--json");
        assertEquals(0, rootAlice.code(), rootAlice.toString());
        assertTrue(rootAlice.out().contains("\"total\":{\"jobs\":2,") && !rootAlice.out().contains(BOB), rootAlice.out());
    }

    /**
     * Bob floods the daemon with stats requests, 32 connections at a time, while alice submits and reads
     * the queue: each of his is answered or refused with the stated limit (one at a time per user), and
     * alice's every answer comes within 5 s.
     */
    @Test
    void aFloodOfStatsRequestsFromOneUser_isRefusedPastOneAtATime_andHoldsUpNoOtherUsersSubmitOrQueue() throws Exception {
        serve();
        String s = socket().toString();
        Path aliceHome = ownDir(ALICE, dir.resolve(ALICE));
        String flood = String.join("\n",
                "import socket, sys, json",
                "ok = refused = 0; other = []",
                "for r in range(int(sys.argv[2])):",
                "    socks = []",
                "    for i in range(32):",
                "        c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); socks.append(c)",
                "    for c in socks:",
                "        c.sendall(b'{\"v\":1,\"op\":\"stats\",\"json\":true}\\n')",
                "    for c in socks:",
                "        f = c.makefile('rb'); head = json.loads(f.readline())",
                "        if head.get('ok'):",
                "            ok += 1",
                "            for i in range(head['parts']): f.readline()",
                "        elif 'one stats request at a time per user' in head['error']['message']: refused += 1",
                "        else: other.append(head)",
                "        c.close()",
                "print(ok, refused, json.dumps(other))");
        String timed = String.join("\n",
                "import socket, sys, json, time",
                "worst = 0; bad = []",
                "end = time.time() + float(sys.argv[3])",
                "n = 0",
                "while time.time() < end or n < 5:",
                "    n += 1",
                "    for req in ('{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=1G] true\",\"cwd\":\"' + sys.argv[2] + '\"}',",
                "                '{\"v\":1,\"op\":\"queue\"}'):",
                "        t = time.time(); c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])",
                "        c.sendall(req.encode() + b'\\n'); line = c.makefile('rb').readline(); c.close()",
                "        worst = max(worst, time.time() - t)",
                "        if b'\"ok\":true' not in line: bad.append(line.decode()[:200])",
                "    time.sleep(0.05)",
                "print('%.3f' % worst, n, json.dumps(bad))");
        Process bob = new ProcessBuilder(UnixUsers.setpriv(BOB, "/usr/bin/python3", "-c", flood, s, "10"))
                .redirectErrorStream(true).start();
        Process alice = new ProcessBuilder(UnixUsers.setpriv(ALICE, "/usr/bin/python3", "-c", timed, s,
                aliceHome.toString(), "4")).redirectErrorStream(true).start();
        try {
            String bobs = new String(bob.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            String alices = new String(alice.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertTrue(bob.waitFor(60, TimeUnit.SECONDS) && alice.waitFor(60, TimeUnit.SECONDS));
            String[] b = bobs.split(" ", 3);
            assertEquals(3, b.length, bobs);
            assertEquals("[]", b[2], "each of bob's is answered or refused with the stated limit: " + bobs);
            assertTrue(Integer.parseInt(b[1]) > 0, "his concurrent requests past one are refused: " + bobs);
            assertTrue(Integer.parseInt(b[0]) > 0, "and his one at a time answered: " + bobs);
            String[] a = alices.split(" ", 3);
            assertEquals(3, a.length, alices);
            assertEquals("[]", a[2], "alice's submissions and queue answered ok: " + alices);
            assertTrue(Double.parseDouble(a[0]) < 5.0, "alice's slowest answer during bob's flood: " + alices + " s; bob: " + bobs);
        } finally {
            for (Process p : new ArrayList<>(List.of(bob, alice))) {
                p.destroyForcibly();
            }
        }
    }
}

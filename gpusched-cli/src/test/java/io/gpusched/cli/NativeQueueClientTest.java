package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched-queue}, {@code gpusched queue}'s native client (issue #27), as a real process on real
 * sockets: against a real daemon it prints the very bytes the Java client prints; its request line is
 * byte for byte the Java codec's (with {@code "chunks": true}) over generated command lines; it reads
 * both framings of the text; whatever it does not take it hands to the Java client (exit 100, nothing
 * printed), so the launcher's output is the Java client's; and a daemon that breaks the framing or goes
 * away midway gets one line and exit 1, never a crash.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NativeQueueClientTest {
    /** The native client's cue to the launcher (bin/gpusched): run the Java client instead. */
    private static final int HAND_OVER = 100;
    /** The environment each client here runs without, but for what a test gives it. */
    private static final List<String> CLEARED = List.of("LC_ALL", "LC_CTYPE", "LANG", "COLUMNS", "GPUSCHED_SOCKET",
            "XDG_RUNTIME_DIR", "GPUSCHED_NO_NATIVE_CLIENT");

    @TempDir
    Path dir;

    private ServeDaemon daemon;

    /** The client as the build made it: target/classes/io/gpusched/cli/gpusched-queue. */
    private static Path nativeClient() throws Exception {
        java.net.URL url = Main.class.getResource("gpusched-queue");
        assertTrue(url != null && url.getProtocol().equals("file"), "gpusched-queue is not built beside Main: " + url);
        return Path.of(url.toURI());
    }

    /** {@code gpusched-queue queue ARGS} with only {@code env} of the locale, width and socket variables. */
    private Result nativeQueue(Map<String, String> env, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(nativeClient().toString(), "queue"));
        argv.addAll(List.of(args));
        return run(new ProcessBuilder(argv), env);
    }

    /** The Java client, {@code gpusched queue ARGS}, as a JVM of its own with the same environment. */
    private Result javaQueue(Map<String, String> env, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "queue"));
        argv.addAll(List.of(args));
        return run(new ProcessBuilder(argv), env);
    }

    /** What the launcher does: the native client, then the Java client when it hands over. */
    private Result launched(Map<String, String> env, String... args) throws Exception {
        Result n = nativeQueue(env, args);
        if (n.code() != HAND_OVER) {
            return n;
        }
        assertEquals("", n.out() + n.err(), "a hand-over prints nothing");
        return javaQueue(env, args);
    }

    private Result run(ProcessBuilder pb, Map<String, String> env) throws Exception {
        pb.directory(dir.toFile());
        CLEARED.forEach(pb.environment()::remove);
        pb.environment().putAll(env);
        return ServeDaemon.result(pb.start());
    }

    /** A real daemon with finished, failed, UTF-8 and long-commanded jobs, pending on paused GPUs. */
    private ServeDaemon realDaemon() throws Exception {
        daemon = ServeDaemon.withSettledQueue(dir);
        return daemon;
    }

    @Test
    void againstARealDaemon_itPrintsTheJavaClientsBytes_listAllUserAndTablesWithAWidth() throws Exception {
        ServeDaemon d = realDaemon();
        String socket = d.socket().toString();
        String me = System.getProperty("user.name");
        List<Map<String, String>> envs = List.of(Map.of("LANG", "en_US.UTF-8"), Map.of("LANG", "C"),
                Map.of("LC_ALL", "POSIX", "LANG", "C.UTF-8", "COLUMNS", "70"), Map.of("COLUMNS", " 123 "));
        List<String[]> lines = List.of(new String[] {"--socket", socket},
                new String[] {"--socket", socket, "--all"},
                new String[] {"--socket=" + socket, "--user", me, "--all"},
                new String[] {"--user", "nobody-here", "--socket", socket},
                new String[] {"--socket", socket, "--format", "%i %t %.p %k %20c %r"},
                new String[] {"--format=job,state:.8,command:12,reason", "--socket", socket, "--all"},
                new String[] {"--log-dir", d.socket().getParent().toString(), "--format", "%.0010x %i %b %m"});
        int compared = 0;
        for (Map<String, String> env : envs) {
            for (String[] args : lines) {
                Result n = nativeQueue(env, args);
                Result j = javaQueue(env, args);
                String what = env + " " + String.join(" ", args);
                assertEquals(0, n.code(), "the native client took it (" + what + "): " + n.err());
                assertEquals(j, n, what);
                compared++;
            }
        }
        // The socket from the environment, as the Java client finds it.
        Result n = nativeQueue(Map.of("GPUSCHED_SOCKET", socket, "LANG", "C.UTF-8"));
        assertEquals(0, n.code(), n.err());
        assertEquals(javaQueue(Map.of("GPUSCHED_SOCKET", socket, "LANG", "C.UTF-8")), n);
        assertTrue(n.out().contains("echo héllo ✓ wörld") && n.out().startsWith("0 running, 4 pending, 2 done"), n.out());
        assertEquals(lines.size() * envs.size(), compared);
    }

    @Test
    void againstARealDaemon_whatItDoesNotTake_isTheJavaClientsOutputAndExitCode() throws Exception {
        ServeDaemon d = realDaemon();
        String socket = d.socket().toString();
        String missing = dir.resolve("none/gpusched.sock").toString();
        List<String[]> handedOver = List.of(new String[] {"--socket", socket, "--json"},
                new String[] {"--socket", socket, "--help"},
                new String[] {"--socket", socket, "--bogus"},
                new String[] {"--socket", socket, "--user", "me"},
                new String[] {"--socket", socket, "--format", "%i %Z"},
                new String[] {"--socket", socket, "--format", "job,nonsense"},
                new String[] {"--socket", socket, "--user"},
                new String[] {"--socket", socket, "--all=yes"},
                new String[] {"--socket", socket, "--user", "ada", "--user=bob"},
                new String[] {"--format", "%i", "--socket", socket, "--format", "%c"},
                new String[] {"--socket", missing},
                new String[] {"--log-dir", dir.resolve("none").toString()});
        for (String[] args : handedOver) {
            Map<String, String> env = Map.of("LANG", "C.UTF-8");
            Result n = nativeQueue(env, args);
            assertEquals(new Result(HAND_OVER, "", ""), n, String.join(" ", args));
            // --json's snapshot is stamped with the time it was taken: the one thing that differs.
            assertEquals(stampless(javaQueue(env, args)), stampless(launched(env, args)), String.join(" ", args));
        }
        Result twice = launched(Map.of(), "--socket", socket, "--user", "ada", "--user=bob");
        assertEquals(new Result(2, "", "gpusched: --user given twice (ada, bob): give it once\n"), twice);
        Result noDaemon = launched(Map.of(), "--socket", missing);
        assertEquals(1, noDaemon.code());
        assertTrue(noDaemon.err().startsWith("gpusched: no gpusched service at " + missing), noDaemon.err());
        Result json = launched(Map.of(), "--socket", socket, "--json");
        assertEquals(0, json.code(), json.err());
        assertTrue(json.out().startsWith("{"), json.out());
    }

    private static Result stampless(Result r) {
        return new Result(r.code(), r.out().replaceFirst("\\{\"snapshot\":\\{\"at\":\"[^\"]*\"", "{\"snapshot\":{\"at\":T"),
                r.err());
    }

    /** A daemon on a real UNIX socket that records each request line and answers it as told. */
    private static final class FakeDaemon implements AutoCloseable {
        final Path socket;
        final List<String> requests = new CopyOnWriteArrayList<>();
        private final ServerSocketChannel server;
        private final Thread thread;
        private volatile Function<String, List<byte[]>> answer;

        /** @param answer the pieces written for a request line, each flushed on its own; then the connection closes */
        FakeDaemon(Path socket, Function<String, List<byte[]>> answer) throws IOException {
            this.socket = socket;
            this.answer = answer;
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            thread = new Thread(this::serve, "fake-daemon");
            thread.setDaemon(true);
            thread.start();
        }

        void answer(Function<String, List<byte[]>> a) {
            answer = a;
        }

        private void serve() {
            while (server.isOpen()) {
                try (SocketChannel c = server.accept()) {
                    ByteArrayOutputStream line = new ByteArrayOutputStream();
                    ByteBuffer b = ByteBuffer.allocate(1);
                    while (c.read(b) > 0 && b.get(0) != '\n') {
                        line.write(b.get(0));
                        b.clear();
                    }
                    String request = line.toString(StandardCharsets.UTF_8);
                    requests.add(request);
                    for (byte[] piece : answer.apply(request)) {
                        ByteBuffer out = ByteBuffer.wrap(piece);
                        while (out.hasRemaining()) {
                            c.write(out);
                        }
                        Thread.sleep(2);
                    }
                } catch (IOException | InterruptedException e) {
                    // the next connection, or closed
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            Files.deleteIfExists(socket);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Today's framing: the head with text_bytes, then the text. */
    private static List<byte[]> counted(String text) {
        byte[] t = ascii(text);
        return List.of(ascii("{\"v\":1,\"ok\":true,\"text_bytes\":" + t.length + "}\n"), t);
    }

    /** The chunked framing: the head, then each piece as a chunk, then 0. */
    private static List<byte[]> chunked(String... pieces) {
        List<byte[]> out = new ArrayList<>(List.of(ascii("{\"v\":1,\"ok\":true,\"text_chunks\":true}\n")));
        for (String p : pieces) {
            byte[] t = ascii(p);
            out.add(ascii(t.length + "\n"));
            out.add(t);
        }
        out.add(ascii("0\n"));
        return out;
    }

    /** The Java client's quick path in this JVM (its environment is this JVM's): @return code, out, err */
    private static Result quickQueue(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> all = new ArrayList<>(List.of("queue"));
        all.addAll(List.of(argv));
        int code = QuickQueue.run(all.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The native client with this JVM's own environment, as {@link #quickQueue} reads it. */
    private Result nativeAsThisJvm(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(nativeClient().toString(), "queue"));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        return ServeDaemon.result(pb.start());
    }

    /** The Java codec's line with "chunks": true last in "text", unless the codec writes it already. */
    private static String withChunks(String javaLine) {
        if (javaLine.contains("\"chunks\":")) {
            return javaLine;
        }
        assertTrue(javaLine.endsWith("}}"), javaLine);
        return javaLine.substring(0, javaLine.length() - 2) + ",\"chunks\":true}}";
    }

    @Test
    void itsRequestLine_isTheJavaCodecs_forGeneratedCommandLines() throws Exception {
        Path sock = dir.resolve("fake.sock");
        try (FakeDaemon fake = new FakeDaemon(sock, r -> counted("the text\n"))) {
            Random random = new Random(27);
            int taken = 0;
            int declined = 0;
            for (int round = 0; round < 300; round++) {
                String[] args = generated(random, sock.toString());
                fake.requests.clear();
                Result j = quickQueue(args);
                List<String> javaSent = List.copyOf(fake.requests);
                fake.requests.clear();
                Result n = nativeAsThisJvm(args);
                List<String> nativeSent = List.copyOf(fake.requests);
                String what = String.join(" ", args);
                if (j.code() == QuickQueue.DECLINED) {
                    assertEquals(new Result(HAND_OVER, "", ""), n, what);
                    assertEquals(List.of(), nativeSent, "declined before anything was sent: " + what);
                    declined++;
                    continue;
                }
                assertEquals(1, javaSent.size(), what);
                assertEquals(List.of(withChunks(javaSent.get(0))), nativeSent, what);
                assertEquals(j, n, what);
                assertEquals("the text\n", n.out());
                taken++;
            }
            assertTrue(taken > 150 && declined > 30, taken + " taken, " + declined + " declined");
        }
    }

    /** A {@code queue} command line of the options the quick path takes, now and then one it does not. */
    private static String[] generated(Random random, String socket) {
        List<String> args = new ArrayList<>();
        List<Runnable> options = new ArrayList<>();
        options.add(() -> args.add("--all"));
        options.add(() -> valued(random, args, "--user", randomUser(random)));
        options.add(() -> valued(random, args, "--format", randomFormat(random)));
        options.add(() -> valued(random, args, "--socket", socket));
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
            options.get(random.nextInt(options.size())).run();
        }
        if (!args.contains("--socket") && args.stream().noneMatch(a -> a.startsWith("--socket="))) {
            valued(random, args, "--socket", socket);
        }
        if (random.nextInt(12) == 0) {
            args.add(random.nextInt(args.size() + 1), List.of("--json", "-h", "--bogus", "--user=me", "--all=1", "x",
                    "--format=", "--us").get(random.nextInt(8)));
        }
        return args.toArray(String[]::new);
    }

    private static void valued(Random random, List<String> args, String name, String value) {
        if (random.nextBoolean()) {
            args.add(name + "=" + value);
        } else {
            args.add(name);
            args.add(value);
        }
    }

    /** ASCII, control characters, quotes and backslashes included; now and then too long or starting with '-'. */
    private static String randomUser(Random random) {
        String alphabet = "abcxyz_.09\"\\/ \t\n\r\b\f\u0001\u001f\u007f{}:,=-";
        int len = random.nextInt(20) == 0 ? 257 : 1 + random.nextInt(12);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < len; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    /** %-fields or names, with widths, alignment and leading zeros; now and then a bad one. */
    private static String randomFormat(Random random) {
        String letters = "iutybmMprxck";
        String[] names = {"job", "USER", "State", "tty", "gpus", "memory", "time", "priority", "reason", "exit",
            "command", "note"};
        int columns = random.nextInt(30) == 0 ? 25 : 1 + random.nextInt(6);
        StringBuilder b = new StringBuilder();
        boolean percent = random.nextBoolean();
        for (int c = 0; c < columns; c++) {
            String width = switch (random.nextInt(6)) {
                case 0 -> String.valueOf(1 + random.nextInt(1000));
                case 1 -> "00" + (1 + random.nextInt(99));
                case 2 -> random.nextInt(10) == 0 ? "0" : random.nextInt(10) == 0 ? "1001" : "";
                default -> "";
            };
            boolean right = random.nextInt(4) == 0;
            if (percent) {
                b.append(List.of(" ", "  ", "|", " x ", "").get(random.nextInt(5))).append('%').append(right ? "." : "")
                        .append(width).append(random.nextInt(40) == 0 ? 'Z' : letters.charAt(random.nextInt(letters.length())));
            } else {
                b.append(c == 0 ? "" : List.of(",", ", ", " ,\t").get(random.nextInt(3)))
                        .append(random.nextInt(40) == 0 ? "bogus" : names[random.nextInt(names.length)]);
                if (right || !width.isEmpty()) {
                    b.append(':').append(right ? "." : "").append(width);
                }
            }
        }
        if (!percent && random.nextInt(20) == 0) {
            b.append(',');
        }
        return b.toString();
    }

    @Test
    void theLocaleAndTheWidth_asTheJavaClientReadsThem_inTheRequest() throws Exception {
        Path sock = dir.resolve("fake.sock");
        try (FakeDaemon fake = new FakeDaemon(sock, r -> counted("x\n"))) {
            List<Map<String, String>> envs = List.of(Map.of(), Map.of("LANG", "C"), Map.of("LANG", "de_DE.UTF8"),
                    Map.of("LC_ALL", "", "LC_CTYPE", "en_US.ISO-8859-1", "LANG", "C.UTF-8"),
                    Map.of("LC_ALL", "C.utf-8", "LANG", "C"), Map.of("COLUMNS", " 80\t"), Map.of("COLUMNS", "0"),
                    Map.of("COLUMNS", "123456"), Map.of("COLUMNS", "99999"), Map.of("COLUMNS", "-5"));
            for (Map<String, String> env : envs) {
                for (String[] args : List.of(new String[] {"--socket", sock.toString()},
                        new String[] {"--socket", sock.toString(), "--format", "%i %c"})) {
                    fake.requests.clear();
                    Result j = javaQueue(env, args);
                    Result n = nativeQueue(env, args);
                    assertEquals(2, fake.requests.size(), env + " " + fake.requests);
                    assertEquals(withChunks(fake.requests.get(0)), fake.requests.get(1), env.toString());
                    assertEquals(j, n, env.toString());
                }
            }
        }
    }

    @Test
    void bothFramings_areCopiedWhole_chunksAcrossWritesIncluded() throws Exception {
        Path sock = dir.resolve("fake.sock");
        String big = ("ü".repeat(99) + "\n").repeat(7000); // 1.4 MB: more than one chunk's bound
        try (FakeDaemon fake = new FakeDaemon(sock, r -> counted("today's\n"))) {
            assertEquals(new Result(0, "today's\n", ""), nativeQueue(Map.of(), "--socket", sock.toString()));
            fake.answer(r -> counted(big));
            assertEquals(new Result(0, big, ""), nativeQueue(Map.of(), "--socket", sock.toString()));
            fake.answer(r -> chunked("1 running, 0 pending\n", "▶ job 1 — sleep 9\n✓ job 2 ok\n"));
            assertEquals(new Result(0, "1 running, 0 pending\n▶ job 1 — sleep 9\n✓ job 2 ok\n", ""),
                    nativeQueue(Map.of(), "--socket", sock.toString()));
            fake.answer(r -> {
                List<byte[]> pieces = new ArrayList<>(List.of(ascii("{\"v\":1,\"ok\":true,\"text_chunks\":true}\n")));
                byte[] text = ascii(big);
                int line = ascii("ü".repeat(99) + "\n").length;
                int perChunk = (1 << 20) / line * line; // whole lines, at most 1 MiB
                for (int at = 0; at < text.length; at += perChunk) {
                    byte[] chunk = java.util.Arrays.copyOfRange(text, at, Math.min(text.length, at + perChunk));
                    // its length line in two writes, then its bytes in two more
                    pieces.add(ascii(String.valueOf(chunk.length).substring(0, 2)));
                    pieces.add(ascii(String.valueOf(chunk.length).substring(2) + "\n"));
                    pieces.add(java.util.Arrays.copyOfRange(chunk, 0, chunk.length / 3));
                    pieces.add(java.util.Arrays.copyOfRange(chunk, chunk.length / 3, chunk.length));
                }
                pieces.add(ascii("0"));
                pieces.add(ascii("\n"));
                return pieces;
            });
            assertEquals(new Result(0, big, ""), nativeQueue(Map.of(), "--socket", sock.toString()));
        }
    }

    /**
     * The Java client's words for chunks out of form ({@code GpuschedClient.copyText}, {@code
     * LineChannel.copyChunks}), and what precedes them; the head, then {@code after} it.
     */
    @Test
    void aMalformedOrOversizedChunk_isOneClearLine_exit1_noCrash() throws Exception {
        Path sock = dir.resolve("fake.sock");
        String head = "{\"v\":1,\"ok\":true,\"text_chunks\":true}\n";
        String form = "gpusched: the gpusched service at " + sock + " sent a queue text out of its form (PROTOCOL.md,"
                + " text_chunks): ";
        Map<String, String> bad = new java.util.LinkedHashMap<>();
        bad.put("1048577\nxx", "a chunk's length is not 0 to 1048576 in decimal digits: '1048577'");
        bad.put("99999999999999999999\n", "a chunk's length line is longer than 7 digits: '99999999...'");
        bad.put("12\u0001\u00ff456789", "a chunk's length line is longer than 7 digits: '12??4567...'");
        bad.put("abc\n", "a chunk's length is not 0 to 1048576 in decimal digits: 'abc'");
        bad.put("01\nx0\n", "a chunk's length is not 0 to 1048576 in decimal digits: '01'");
        bad.put("-1\n", "a chunk's length is not 0 to 1048576 in decimal digits: '-1'");
        bad.put("\n", "a chunk's length is not 0 to 1048576 in decimal digits: ''");
        bad.put("4\nabc\n4 \n", "a chunk's length is not 0 to 1048576 in decimal digits: '4 '");
        bad.put("3\nabc0\n", "a chunk of 3 bytes does not end a line");
        try (FakeDaemon fake = new FakeDaemon(sock, r -> List.of())) {
            for (Map.Entry<String, String> e : bad.entrySet()) {
                fake.answer(r -> List.of(head.getBytes(StandardCharsets.UTF_8), e.getKey().getBytes(StandardCharsets.ISO_8859_1)));
                Result n = nativeQueue(Map.of(), "--socket", sock.toString());
                assertEquals(1, n.code(), e.getKey());
                assertEquals(form + e.getValue() + "\n", n.err(), e.getKey());
                assertFalse(n.out().contains("x"), "nothing after the bad length is printed: " + n.out());
            }
            // Gone between chunks and inside one.
            fake.answer(r -> List.of(ascii(head + "4\nabc\n")));
            assertEquals(new Result(1, "abc\n", "gpusched: the gpusched service at " + sock + " went away in the middle of"
                    + " an answer: the stream ended inside the text, at a chunk's length\n"),
                    nativeQueue(Map.of(), "--socket", sock.toString()));
            fake.answer(r -> List.of(ascii(head + "10\nabc")));
            assertEquals(new Result(1, "abc", "gpusched: the gpusched service at " + sock + " went away in the middle of"
                    + " an answer: the stream ended 7 bytes before a chunk's end\n"),
                    nativeQueue(Map.of(), "--socket", sock.toString()));
        }
    }

    @Test
    void aDaemonGoneMidText_isTheJavaClientsLineAndExitCode() throws Exception {
        Path sock = dir.resolve("fake.sock");
        // As typed, with slashes doubled: both name it as java.nio's Path writes it.
        String typed = dir + "//fake.sock";
        try (FakeDaemon fake = new FakeDaemon(sock,
                r -> List.of(ascii("{\"v\":1,\"ok\":true,\"text_bytes\":100}\n"), ascii("only this")))) {
            Result j = quickQueue("--socket", typed);
            Result n = nativeAsThisJvm("--socket", typed);
            assertEquals(1, j.code());
            assertEquals("gpusched: the gpusched service at " + sock + " went away in the middle of an answer: the stream"
                    + " ended 91 bytes before the text's end\n", j.err());
            assertEquals(j.err(), n.err());
            assertEquals(j.code(), n.code());
            assertEquals("only this", n.out(), "printed as it came");
            assertEquals(2, fake.requests.size());
        }
    }

    @Test
    void anyOtherHead_isHandedOver_printingNothing() throws Exception {
        Path sock = dir.resolve("fake.sock");
        List<String> heads = List.of("{\"v\":1,\"ok\":false,\"error\":\"bad_request\",\"message\":\"no\"}\n",
                "{\"v\":1,\"ok\":true,\"snapshot\":{}}\n", "{\"v\":1,\"ok\":true,\"text_bytes\":01}\n",
                "{\"v\":1,\"ok\":true,\"text_bytes\":-1}\n", "{\"v\":1,\"ok\":true,\"text_bytes\":1234567890123456789}\n",
                "{\"v\":1,\"ok\":true,\"text_chunks\":true }\n", "{\"v\":1,\"ok\":true,\"text_bytes\":5}\r\n",
                "x".repeat(200) + "\n", "{\"v\":1,\"ok\":true,\"text_bytes\":5}");
        try (FakeDaemon fake = new FakeDaemon(sock, r -> List.of())) {
            for (String head : heads) {
                fake.answer(r -> List.of(ascii(head), ascii("hello")));
                assertEquals(new Result(HAND_OVER, "", ""), nativeQueue(Map.of(), "--socket", sock.toString()), head);
            }
        }
    }

    @Test
    void aDaemonThatRefusesChunks_isHandedOver_andTheLauncherPrintsWhatTheJavaClientPrints() throws Exception {
        Path sock = dir.resolve("fake.sock");
        try (FakeDaemon fake = new FakeDaemon(sock, r -> r.contains("\"chunks\"")
                ? List.of(ascii("{\"v\":1,\"ok\":false,\"error\":\"bad_request\",\"message\":\"unknown field chunks\"}\n"))
                : counted("from the Java client\n"))) {
            Result n = nativeQueue(Map.of(), "--socket", sock.toString());
            assertEquals(new Result(HAND_OVER, "", ""), n);
            Result l = launched(Map.of(), "--socket", sock.toString());
            assertEquals(javaQueue(Map.of(), "--socket", sock.toString()), l);
            // The Java client asks for chunks too (the launcher's third request: the native client's two come
            // first), so it hears the same refusal and says it in its words, as the launcher does.
            assertTrue(fake.requests.get(2).contains("\"chunks\":true"), fake.requests.toString());
            assertEquals(1, l.code(), "the Java client says the refusal: " + l);
        }
    }

    /**
     * A listener run by another user (as one could plant in a directory they made): the native client
     * sends it nothing and hands over, and the Java client refuses it with its words. Run as root, the
     * listener as {@code nobody}.
     */
    @Test
    void aSocketServedByAnotherUser_getsNothing_andTheJavaClientSaysWhy() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name"))
                && Files.isExecutable(Path.of("/usr/bin/setpriv")) && Files.isExecutable(Path.of("/usr/bin/python3")),
                "needs root, setpriv and /usr/bin/python3 to listen as nobody");
        Path shared = Files.createDirectories(dir.resolve("shared"));
        Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        Path sock = shared.resolve("planted.sock");
        Path got = shared.resolve("got");
        String listener = "import socket,sys\n"
                + "s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(5); print('up', flush=True)\n"
                + "while True:\n"
                + "  c,_=s.accept()\n"
                + "  try:\n"
                + "    d=c.recv(65536); open(sys.argv[2],'ab').write(d)\n"
                + "    c.sendall(b'{\"v\":1,\"ok\":true,\"text_bytes\":7}\\nplanted')\n"
                + "  except OSError: pass\n"
                + "  c.close()\n";
        Process p = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", listener, sock.toString(), got.toString()).redirectErrorStream(true).start();
        try {
            assertEquals("up", new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine());
            assertEquals(new Result(HAND_OVER, "", ""), nativeQueue(Map.of(), "--socket", sock.toString()));
            assertFalse(Files.exists(got) && Files.size(got) > 0, "nothing was sent to it");
            Result j = launched(Map.of(), "--socket", sock.toString());
            assertEquals(1, j.code());
            assertTrue(j.err().startsWith("gpusched: " + sock + " is served by user nobody, not by you (root) or root;"),
                    j.err());
            assertFalse(j.out().contains("planted"));
        } finally {
            p.destroyForcibly().waitFor();
        }
    }
}

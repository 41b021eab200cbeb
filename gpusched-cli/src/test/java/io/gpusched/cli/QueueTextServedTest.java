package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import io.gpusched.service.GpuschedClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched queue}'s text printed by the daemon (issue #27): the real CLI, as a process with its
 * own locale and terminal width, against a real {@code gpusched serve}, prints byte for byte what the
 * client printed itself from the rows before (the code it still runs against a daemon that prints no
 * text); and a hostile {@code text} field is refused with the parser's words while the daemon goes on.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class QueueTextServedTest {
    /** A test's own directory: the clients' working directory, class-load logs, the fake and relaying daemons' sockets. */
    @TempDir
    Path dir;

    /** The daemon's directory (its socket, logs and jobs' directory), the class's. */
    @TempDir
    static Path daemonDir;

    /**
     * One daemon for the class's tests, as none changes its queue: they read it, or send it requests it refuses
     * (and then check it still answers), or do not use it. Starting it with its settled queue took most of
     * each test's time when every test had its own.
     */
    private static ServeDaemon daemon;

    /** Two finished jobs (one failed), then, on a paused GPU, pending ones: nothing in the queue moves. */
    @BeforeAll
    static void serve() throws Exception {
        daemon = ServeDaemon.withSettledQueue(daemonDir);
    }

    @AfterAll
    static void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    /** {@code gpusched queue ARGS} as a process with {@code env} added (and no other locale variable). */
    private Result queue(Map<String, String> env, String... args) throws Exception {
        return ServeDaemon.queueProcess(daemon.socket(), dir, env, args);
    }

    /**
     * {@code gpusched queue ARGS} as {@link #queue} runs it, the JVM writing each class it loads to
     * {@code log}; @return what it printed and returned
     */
    private Result queueLogged(Path log, Map<String, String> env, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Xlog:class+load=info:file=" + log, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "queue"));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        for (String v : List.of("LC_ALL", "LC_CTYPE", "LANG", "COLUMNS")) {
            pb.environment().remove(v);
        }
        pb.environment().putAll(env);
        return ServeDaemon.result(pb.start());
    }

    /** @return the classes a class-load log names whose names start with one of {@code prefixes} */
    private static List<String> loaded(Path log, String... prefixes) throws Exception {
        return Files.readAllLines(log).stream().map(l -> l.replaceFirst("^.*\\[class,load\\] ", "").split(" ")[0])
                .filter(c -> List.of(prefixes).stream().anyMatch(c::startsWith)).toList();
    }

    /**
     * Every verb prints UTF-8 under no locale, as {@code queue} does: Java 17 wrote '?' there for each
     * character not ASCII, so {@code show 4 --json} gave a script the command {@code echo h?llo ? w?rld},
     * and the text the {@code ≥} of a reason as '?'.
     */
    @Test
    void showAndItsJson_keepAUtf8CommandUnderNoLocale() throws Exception {
        for (List<String> args : List.of(List.of("--json"), List.<String>of())) {
            List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), Main.class.getName(), "show", "4", "--socket",
                    daemon.socket().toString()));
            argv.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
            for (String v : List.of("LC_ALL", "LC_CTYPE", "LANG")) {
                pb.environment().remove(v);
            }
            Result r = ServeDaemon.result(pb.start());
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().contains("echo héllo ✓ wörld"), r.out());
            assertFalse(r.out().contains("?"), r.out());
        }
        ProcessBuilder typed = new ProcessBuilder(ServeDaemon.java(), "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "queu").directory(dir.toFile());
        for (String v : List.of("LC_ALL", "LC_CTYPE", "LANG")) {
            typed.environment().remove(v);
        }
        Result typo = ServeDaemon.result(typed.start());
        assertTrue(typo.err().contains("is not a verb — did you mean queue?"), typo.err());
    }

    /**
     * {@code show}, {@code info} and {@code top --once} follow {@code queue}'s rule under a locale that
     * names another charset (C, POSIX, Latin-1): plain ASCII, the command's {@code é} as {@code ?} and
     * its {@code ✓} as {@code +}, as {@code queue} spells them; their JSON stays UTF-8 for the script.
     */
    @Test
    void showInfoAndTop_underALocaleThatIsNotUtf8_printQueuesAscii() throws Exception {
        for (Map<String, String> locale : List.of(Map.of("LANG", "C"), Map.of("LC_ALL", "en_US.ISO-8859-1", "LANG", "C.UTF-8"),
                Map.of("LC_ALL", "POSIX"))) {
            Result queue = queue(locale);
            assertTrue(queue.out().contains("echo h?llo + w?rld"), queue.out());
            for (List<String> verb : List.of(List.of("show", "4"), List.of("info"), List.of("top", "--once", "--width", "300"))) {
                Result r = verb(locale, verb);
                assertEquals(0, r.code(), locale + " " + verb + ": " + r.err());
                assertTrue(r.out().chars().allMatch(c -> c < 0x80), locale + " " + verb + ": " + r.out());
                if (!verb.get(0).equals("info")) {
                    assertTrue(r.out().contains("echo h?llo + w?rld"), locale + " " + verb + ": " + r.out());
                }
            }
            Result json = verb(locale, List.of("show", "4", "--json"));
            assertTrue(json.out().contains("echo héllo ✓ wörld"), json.out());
        }
        Result utf8 = verb(Map.of("LANG", "en_US.UTF-8"), List.of("show", "4"));
        assertTrue(utf8.out().contains("echo héllo ✓ wörld"), utf8.out());
    }

    /** {@code gpusched VERB ARGS --socket S} as a process with no locale variable but those of {@code env}. */
    private Result verb(Map<String, String> env, List<String> args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        argv.addAll(args);
        argv.addAll(List.of("--socket", daemon.socket().toString()));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        for (String v : List.of("LC_ALL", "LC_CTYPE", "LANG", "COLUMNS")) {
            pb.environment().remove(v);
        }
        pb.environment().putAll(env);
        return ServeDaemon.result(pb.start());
    }

    /** What the client printed before the daemon printed it: the rows, read and printed in this process. */
    private String printedFromRows(Optional<String> format, boolean table, OptionalInt width, boolean ascii,
                                   Optional<String> user, boolean all) {
        try (GpuschedClient c = GpuschedClient.connect(daemon.socket())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream page = new PrintStream(out, false, StandardCharsets.UTF_8);
            QueueTable.printQueue(page, new QueueView(user, all).apply(c.queue()), format.map(QueueFormat::parse), table,
                    width, ascii);
            page.flush();
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void theListToAPipe_isTheTextTheClientPrintedFromRows() throws Exception {
        Result q = queue(Map.of("LANG", "en_US.UTF-8"));
        assertEquals(0, q.code(), q.err());
        String before = printedFromRows(Optional.empty(), false, OptionalInt.empty(), false, Optional.empty(), false);
        assertEquals(before, q.out());
        assertTrue(q.out().startsWith("0 running, 4 pending, 2 done; paused gpus"), q.out());
        assertTrue(q.out().contains("echo héllo ✓ wörld"), "UTF-8 as it was");
        assertTrue(q.out().contains("(commands over 200 characters are shortened"), q.out());
    }

    @Test
    void aFormatCutToTheTerminalsWidth_isTheTableTheClientPrintedFromRows() throws Exception {
        String format = "%i %t %.p %k %20c %r";
        Result q = queue(Map.of("LANG", "C.UTF-8", "COLUMNS", "70"), "--format", format);
        assertEquals(0, q.code(), q.err());
        assertEquals(printedFromRows(Optional.of(format), true, OptionalInt.of(70), false, Optional.empty(), false), q.out());
        assertTrue(q.out().lines().allMatch(l -> DisplayWidth.of(l) <= 70), q.out());
        assertTrue(q.out().lines().anyMatch(l -> l.endsWith("…")), "the last column is cut: " + q.out());

        Result names = queue(Map.of("LANG", "C.UTF-8"), "--format", "job,state,command:12,reason:.20");
        assertEquals(0, names.code(), names.err());
        assertEquals(printedFromRows(Optional.of("job,state,command:12,reason:.20"), true, OptionalInt.empty(), false,
                Optional.empty(), false), names.out());
    }

    @Test
    void aLocaleThatIsNotUtf8_getsTheSameAsciiAsBefore_inTheListAndTheTable() throws Exception {
        Result list = queue(Map.of("LANG", "C"));
        assertEquals(0, list.code(), list.err());
        assertEquals(printedFromRows(Optional.empty(), false, OptionalInt.empty(), true, Optional.empty(), false), list.out());
        assertTrue(list.out().chars().allMatch(c -> c < 0x80), list.out());
        assertTrue(list.out().contains("echo h?llo + w?rld"), list.out());

        Result table = queue(Map.of("LC_ALL", "POSIX", "COLUMNS", "50"), "--format", "%i %t %c %r");
        assertEquals(0, table.code(), table.err());
        assertEquals(printedFromRows(Optional.of("%i %t %c %r"), true, OptionalInt.of(50), true, Optional.empty(), false),
                table.out());
        assertTrue(table.out().chars().allMatch(c -> c < 0x80), table.out());
    }

    @Test
    void userAndAll_filterAsTheClientDid() throws Exception {
        String me = System.getProperty("user.name");
        Result mine = queue(Map.of("LANG", "C.UTF-8"), "--user", "me", "--all");
        assertEquals(0, mine.code(), mine.err());
        assertEquals(printedFromRows(Optional.empty(), false, OptionalInt.empty(), false, Optional.of(me), true), mine.out());
        Result nobodys = queue(Map.of("LANG", "C.UTF-8"), "--user", "nobody-here", "--format", "%i %c");
        assertEquals(new Result(0, "JOB  COMMAND\n", ""), nobodys);
    }

    @Test
    void hostileTextFields_areRefusedWithTheParsersWords_andTheDaemonGoesOn() throws Exception {
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(daemon.socket()))) {
            List<String> answers = ask(ch,
                    "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"table\",\"format\":\""
                            + "%i".repeat(30) + "\"}}",
                    "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"table\",\"format\":\"%i %Z\"}}",
                    "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"table\",\"format\":\"%9999999c\"}}",
                    "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"table\",\"format\":\""
                            + "%c".repeat(600) + "\"}}",
                    "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"table\",\"width\":-1}}",
                    "{\"v\":1,\"op\":\"hello\"}");
            assertTrue(answers.get(0).contains("\"bad_request\"") && answers.get(0).contains("--format names 30 fields; at most"
                    + " 24 are taken"), answers.get(0));
            assertTrue(answers.get(1).contains("\"bad_request\"") && answers.get(1).contains("unknown field %Z"), answers.get(1));
            assertTrue(answers.get(2).contains("\"bad_request\"") && answers.get(2).contains("a width is 1 to 1000"),
                    answers.get(2));
            assertTrue(answers.get(3).contains("\"bad_request\"") && answers.get(3).contains("\\\"format\\\" is 1200 characters"),
                    answers.get(3));
            assertTrue(answers.get(4).contains("\"bad_request\""), answers.get(4));
            assertTrue(answers.get(5).contains("\"server\":\"gpusched\""), "the connection goes on: " + answers.get(5));
        }
        Result tooMany = daemon.verb("queue", "--format", "%i ".repeat(25));
        assertEquals(2, tooMany.code(), "the client's own parser refuses it first");
        assertTrue(tooMany.err().contains("at most 24"), tooMany.err());
        Result q = queue(Map.of("LANG", "C.UTF-8"));
        assertEquals(0, q.code(), q.err());
        assertTrue(q.out().startsWith("0 running, 4 pending, 2 done; paused gpus"), "the daemon still answers: " + q.out());
    }

    @Test
    void theCommonLines_printTheSameText_loadingNoPicocliNoJsonLibraryAndNotTheFullCli() throws Exception {
        String me = System.getProperty("user.name");
        List<Object[]> lines = List.of(
                new Object[] {new String[] {}, printedFromRows(Optional.empty(), false, OptionalInt.empty(), false,
                        Optional.empty(), false)},
                new Object[] {new String[] {"--user", "me", "--all"}, printedFromRows(Optional.empty(), false,
                        OptionalInt.empty(), false, Optional.of(me), true)},
                new Object[] {new String[] {"--format=%i %t %c", "--user", "nobody-here"}, "JOB  STATE  COMMAND\n"},
                new Object[] {new String[] {"--format", "%i %.p %20c"}, printedFromRows(Optional.of("%i %.p %20c"), true,
                        OptionalInt.of(60), false, Optional.empty(), false)});
        for (Object[] line : lines) {
            String[] args = (String[]) line[0];
            List<String> argv = new ArrayList<>(List.of(args));
            argv.addAll(List.of("--socket", daemon.socket().toString()));
            Path log = dir.resolve("classes-" + Math.abs(String.join(" ", args).hashCode()) + ".log");
            Result q = queueLogged(log, Map.of("LANG", "C.UTF-8", "COLUMNS", "60"), argv.toArray(String[]::new));
            assertEquals(new Result(0, (String) line[1], ""), q, String.join(" ", args));
            assertTrue(loaded(log, "io.gpusched.cli.QuickQueue").contains("io.gpusched.cli.QuickQueue"),
                    "the quick path ran: " + String.join(" ", args));
            assertEquals(List.of(), loaded(log, "picocli.", "com.fasterxml.jackson.", "io.gpusched.cli.Cli",
                    "io.gpusched.cli.ClientCommand", "io.gpusched.protocol.ProtocolCodec", "io.gpusched.protocol.Answer"),
                    String.join(" ", args));
        }
    }

    @Test
    void jsonAndHelp_takeTheFullCli_asBefore() throws Exception {
        Path log = dir.resolve("json.log");
        Result json = queueLogged(log, Map.of(), "--json", "--socket", daemon.socket().toString());
        assertEquals(0, json.code(), json.err());
        assertTrue(json.out().startsWith("{\"snapshot\":{"), json.out());
        assertTrue(json.out().contains("\"pending\":[{"), json.out());
        assertTrue(loaded(log, "io.gpusched.cli.ClientCommand").contains("io.gpusched.cli.ClientCommand"), "the full CLI ran");
        Result help = queueLogged(dir.resolve("help.log"), Map.of(), "--help");
        assertEquals(0, help.code(), help.err());
        assertTrue(help.out().startsWith("Usage: gpusched queue"), help.out());
    }

    @Test
    void noDaemon_isTheErrorEveryVerbGives() throws Exception {
        String none = dir.resolve("none.sock").toString();
        Result quick = queue(Map.of(), "--socket", none);
        Result full = ServeDaemon.cli("info", "--socket", none);
        assertEquals(1, quick.code());
        assertEquals("", quick.out());
        assertEquals(full.err(), quick.err());
        assertTrue(quick.err().startsWith("gpusched: no gpusched service at " + none), quick.err());
        assertEquals(1, quick.err().lines().count(), quick.err());
    }

    @Test
    void aDaemonOlderThanText_getsItsRowsPrintedHere_theSameText() throws Exception {
        String before = printedFromRows(Optional.empty(), false, OptionalInt.empty(), false, Optional.empty(), false);
        try (OlderDaemon older = new OlderDaemon(dir.resolve("older.sock"), daemon.socket(), false)) {
            Result q = queue(Map.of("LANG", "C.UTF-8"), "--socket", older.socket.toString());
            assertEquals(new Result(0, before, ""), q);
            String asked = "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\",\"chunks\":true}}";
            assertEquals(List.of(asked, "{\"v\":1,\"op\":\"hello\"}", asked), older.requests,
                    "asked first without hello; given rows, asked again as the full client asks");
            Result mine = queue(Map.of("LANG", "C.UTF-8"), "--socket", older.socket.toString(), "--user", "me");
            assertEquals(new Result(0, printedFromRows(Optional.empty(), false, OptionalInt.empty(), false,
                    Optional.of(System.getProperty("user.name")), false), ""), mine);
        }
    }

    @Test
    void aRefusedQueue_isSaidAsTheDaemonSaidIt_exit1() throws Exception {
        try (OlderDaemon refusing = new OlderDaemon(dir.resolve("refusing.sock"), daemon.socket(), true)) {
            Result q = queue(Map.of("LANG", "C.UTF-8"), "--socket", refusing.socket.toString());
            assertEquals(new Result(1, "", "gpusched: the queue is refused \"here\"\n"), q);
        }
    }

    @Test
    void aDaemonOlderThanChunks_answersTextBytes_whichIsPrintedAsBefore() throws Exception {
        Result chunked = queue(Map.of("LANG", "C.UTF-8"));
        assertEquals(0, chunked.code(), chunked.err());
        try (OlderDaemon older = new OlderDaemon(dir.resolve("older.sock"), daemon.socket(), false, true)) {
            Result q = queue(Map.of("LANG", "C.UTF-8"), "--socket", older.socket.toString());
            assertEquals(chunked, q);
            assertEquals(List.of("{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\",\"chunks\":true}}"),
                    older.requests, "asked once, in chunks, and given text_bytes: no second asking");
        }
    }

    @Test
    void aDaemonWhoseChunksBreakTheirForm_orThatEndsMidText_isAOneLineError_exit1() throws Exception {
        String head = "{\"v\":1,\"ok\":true,\"text_chunks\":true}\n";
        Map<String, String> answers = new java.util.LinkedHashMap<>();
        answers.put(head + "6\nfirst\n12x\nabc", "a chunk's length is not 0 to 1048576 in decimal digits: '12x'");
        answers.put(head + "1048577\n", "a chunk's length is not 0 to 1048576 in decimal digits: '1048577'");
        answers.put(head + "05\nabcd\n0\n", "'05'");
        answers.put(head + "123456789012\n", "a chunk's length line is longer than 7 digits");
        answers.put(head + "4\nabcd0\n", "a chunk of 4 bytes does not end a line");
        answers.put(head + "6\nfirst\n20\nonly part", "went away in the middle of an answer");
        answers.put(head + "6\nfirst\n", "went away in the middle of an answer");
        for (Map.Entry<String, String> a : answers.entrySet()) {
            try (FakeDaemon fake = new FakeDaemon(dir.resolve("fake.sock"), a.getKey())) {
                Result q = queue(Map.of("LANG", "C.UTF-8"), "--socket", fake.socket.toString());
                assertEquals(1, q.code(), a.getKey() + " → " + q);
                assertEquals(1, q.err().lines().count(), "one line: " + q.err());
                assertTrue(q.err().startsWith("gpusched: the gpusched service at " + fake.socket) && q.err().contains(a.getValue()),
                        q.err());
                assertTrue(!q.err().contains("Exception") && !q.err().contains("\tat "), q.err());
            }
        }
    }

    /** A daemon that answers the first line it reads with {@code answer}, then ends the connection. */
    private static final class FakeDaemon implements AutoCloseable {
        final Path socket;
        private final java.nio.channels.ServerSocketChannel server;

        FakeDaemon(Path socket, String answer) throws Exception {
            this.socket = socket;
            server = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread accept = new Thread(() -> {
                while (server.isOpen()) {
                    try (SocketChannel client = server.accept()) {
                        ByteBuffer in = ByteBuffer.allocate(1 << 16);
                        while (client.read(in) >= 0 && new String(in.array(), 0, in.position(), StandardCharsets.UTF_8)
                                .indexOf('\n') < 0) {
                            // the request's line
                        }
                        ByteBuffer out = ByteBuffer.wrap(answer.getBytes(StandardCharsets.UTF_8));
                        while (out.hasRemaining()) {
                            client.write(out);
                        }
                        client.shutdownOutput();
                        in.clear();
                        while (client.read(in) > 0) {
                            in.clear(); // until the client closes
                        }
                    } catch (java.io.IOException e) {
                        // the client went away, or the server closed
                    }
                }
            });
            accept.setDaemon(true);
            accept.start();
        }

        @Override
        public void close() throws java.io.IOException {
            server.close();
            Files.deleteIfExists(socket);
        }
    }

    /**
     * A daemon from before {@code text}, made of the real one: a relay on a socket of its own that takes
     * {@code text} out of each {@code queue} request (such a daemon ignores it and answers rows), or,
     * {@code refusing}, answers each {@code queue} with an error itself. It notes each request line.
     */
    private static final class OlderDaemon implements AutoCloseable {
        final Path socket;
        final List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
        private final java.nio.channels.ServerSocketChannel server;

        /** Whether it is older than {@code chunks} only: it takes that field out, and leaves {@code text}. */
        private final boolean beforeChunksOnly;

        OlderDaemon(Path socket, Path real, boolean refusing) throws Exception {
            this(socket, real, refusing, false);
        }

        OlderDaemon(Path socket, Path real, boolean refusing, boolean beforeChunksOnly) throws Exception {
            this.beforeChunksOnly = beforeChunksOnly;
            this.socket = socket;
            server = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
            Thread accept = new Thread(() -> {
                while (server.isOpen()) {
                    try {
                        SocketChannel client = server.accept();
                        SocketChannel daemon = SocketChannel.open(UnixDomainSocketAddress.of(real));
                        Thread back = new Thread(() -> relay(daemon, client));
                        back.setDaemon(true);
                        back.start();
                        Thread forth = new Thread(() -> requests(client, daemon, refusing));
                        forth.setDaemon(true);
                        forth.start();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            accept.setDaemon(true);
            accept.start();
        }

        private void requests(SocketChannel client, SocketChannel daemon, boolean refusing) {
            try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(
                    java.nio.channels.Channels.newInputStream(client), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    requests.add(line);
                    boolean queue = line.contains("\"op\":\"queue\"");
                    if (queue && refusing) {
                        write(client, "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"failed\",\"message\":"
                                + "\"the queue is refused \\\"here\\\"\"}}");
                        continue;
                    }
                    write(daemon, !queue ? line : beforeChunksOnly ? line.replace(",\"chunks\":true", "")
                            : line.replaceFirst(",\"text\":\\{[^}]*\\}", ""));
                }
            } catch (java.io.IOException e) {
                // the client went away
            } finally {
                close(daemon);
            }
        }

        private static synchronized void write(SocketChannel to, String line) throws java.io.IOException {
            ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) {
                to.write(b);
            }
        }

        private static void relay(SocketChannel from, SocketChannel to) {
            ByteBuffer b = ByteBuffer.allocate(1 << 16);
            try {
                while (from.read(b) >= 0) {
                    b.flip();
                    synchronized (OlderDaemon.class) {
                        while (b.hasRemaining()) {
                            to.write(b);
                        }
                    }
                    b.clear();
                }
            } catch (java.io.IOException e) {
                // either side went away
            } finally {
                close(to);
            }
        }

        private static void close(SocketChannel c) {
            try {
                c.close();
            } catch (java.io.IOException e) {
                // closed already
            }
        }

        @Override
        public void close() throws java.io.IOException {
            server.close();
            Files.deleteIfExists(socket);
        }
    }

    /** Each request line on one connection, and the one-line answer to each (after hello's). */
    private static List<String> ask(SocketChannel ch, String... requests) throws Exception {
        List<String> answers = new ArrayList<>();
        ByteBuffer in = ByteBuffer.allocate(1 << 16);
        StringBuilder pending = new StringBuilder();
        for (String r : requests) {
            ByteBuffer out = ByteBuffer.wrap((r + "\n").getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining()) {
                ch.write(out);
            }
            while (pending.indexOf("\n") < 0) {
                in.clear();
                assertTrue(ch.read(in) > 0, "the daemon closed the connection after " + answers);
                pending.append(new String(in.array(), 0, in.position(), StandardCharsets.UTF_8));
            }
            int nl = pending.indexOf("\n");
            answers.add(pending.substring(0, nl));
            pending.delete(0, nl + 1);
        }
        return answers;
    }
}

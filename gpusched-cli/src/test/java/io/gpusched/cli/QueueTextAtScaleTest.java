package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import io.gpusched.service.GpuschedClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched queue}'s text printed by the daemon past 20,000 jobs (issue #27), where the daemon
 * used to answer rows for the client to print: the real CLI against a real {@code gpusched serve}
 * holding 25,000 pending jobs gets the text from the daemon and prints byte for byte what the client
 * prints from the rows, in the list, its ASCII and a table cut to a terminal.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class QueueTextAtScaleTest {
    private static final int PENDING = 25_000;

    @TempDir
    Path dir;

    private ServeDaemon daemon;

    /** One job holds the only GPU; 25,000 wait behind it, some with non-ASCII text, a few over 200 characters. */
    @BeforeEach
    void serve() throws Exception {
        List<String> lines = new ArrayList<>(List.of("[vram=20G] sleep 3600"));
        for (int i = 1; i <= PENDING; i++) {
            lines.add("[vram=20G] echo queued " + i + (i % 7 == 0 ? " héllo ✓ wörld" : "")
                    + (i % 5000 == 0 ? " " + "x".repeat(300) : ""));
        }
        Path jobs = Files.write(dir.resolve("jobs.txt"), lines);
        daemon = new ServeDaemon(dir, "--jobs", jobs.toString(), "--sim", "1").start();
        daemon.awaitQueue("1 running, " + PENDING + " pending");
    }

    /** {@code gpusched queue ARGS} as a process with {@code env} added (and no other locale variable). */
    private Result queue(Map<String, String> env, String... args) throws Exception {
        return ServeDaemon.queueProcess(daemon.socket(), dir, env, args);
    }

    /** What the client prints from the rows (a daemon without a printer, or one from before it printed past 20,000 jobs). */
    private String printedFromRows(Optional<String> format, boolean table, OptionalInt width, boolean ascii) {
        try (GpuschedClient c = GpuschedClient.connect(daemon.socket())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream page = new PrintStream(out, false, StandardCharsets.UTF_8);
            QueueTable.printQueue(page, new QueueView(Optional.empty(), false).apply(c.queue()),
                    format.map(QueueFormat::parse), table, width, ascii);
            page.flush();
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * The text with the running job's time left out: the one figure that moves between the daemon's
     * printing and the rows read a moment later (the list's {@code ▶ job 1 gpu[0] 12s,}).
     */
    private static String runningFor(String text) {
        String out = text.replaceFirst("(?m)^(. job 1 gpu\\[0\\]) [0-9a-z]+,", "$1 (time),");
        assertTrue(!out.equals(text), "the running job's line: " + text.substring(0, Math.min(300, text.length())));
        return out;
    }

    /** The first line of the daemon's answer to a {@code queue} asking for the list's text. */
    private String textHead() throws Exception {
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(
                java.net.UnixDomainSocketAddress.of(daemon.socket()))) {
            ch.write(java.nio.ByteBuffer.wrap("{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\"}}\n"
                    .getBytes(StandardCharsets.UTF_8)));
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
            while (ch.read(one.clear()) > 0 && one.get(0) != '\n') {
                head.write(one.get(0));
            }
            return head.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void theTextOfMoreThanTwentyThousandJobs_isWhatTheRowsPathPrinted_byteForByte() throws Exception {
        String head = textHead();
        assertTrue(head.matches("\\{\"v\":1,\"ok\":true,\"text_bytes\":[0-9]{7,}}"), "the daemon prints it: " + head);
        Result list = queue(Map.of("LANG", "C.UTF-8"));
        assertEquals(0, list.code(), list.err());
        assertEquals(PENDING + 3, list.out().lines().count(), "a count line, a row a job, the note on long commands");
        assertTrue(list.out().contains("echo queued 24997 héllo ✓ wörld"), "UTF-8 as it was");
        assertEquals(runningFor(printedFromRows(Optional.empty(), false, OptionalInt.empty(), false)), runningFor(list.out()));

        Result ascii = queue(Map.of("LANG", "C"));
        assertEquals(0, ascii.code(), ascii.err());
        assertTrue(ascii.out().chars().allMatch(c -> c < 0x80) && ascii.out().contains("echo queued 7 h?llo + w?rld"));
        assertEquals(runningFor(printedFromRows(Optional.empty(), false, OptionalInt.empty(), true)), runningFor(ascii.out()));

        String format = "%i %t %.p %c %r"; // no time: the rows are read a moment later
        Result table = queue(Map.of("LANG", "C.UTF-8", "COLUMNS", "90"), "--format", format);
        assertEquals(0, table.code(), table.err());
        assertEquals(PENDING + 2, table.out().lines().count(), "a title, a row a job");
        assertEquals(printedFromRows(Optional.of(format), true, OptionalInt.of(90), false), table.out());
    }
}

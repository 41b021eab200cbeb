package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched queue}'s text in chunks (issue #27: rendered once, where {@code text_bytes} renders it
 * twice) from a real {@code gpusched serve} holding 100,000 pending jobs: byte for byte the text the
 * {@code text_bytes} answer sends, on the same connection, in the list and a table, each chunk whole
 * lines within 1 MiB; and what the real CLI prints.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class QueueTextChunksAtScaleTest {
    private static final int PENDING = 100_000;

    @TempDir
    Path dir;

    /** A raw client's connection: requests written, answers read as bytes. */
    private static final class Raw implements AutoCloseable {
        private final SocketChannel ch;
        private final ByteBuffer in = ByteBuffer.allocate(1 << 16).flip();

        Raw(Path socket) throws IOException {
            ch = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        }

        void send(String line) throws IOException {
            ByteBuffer b = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }

        int next() throws IOException {
            if (!in.hasRemaining()) {
                in.clear();
                int n = ch.read(in);
                in.flip();
                assertTrue(n > 0, "the daemon ended the answer");
            }
            return in.get() & 0xFF;
        }

        String line() throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int c = next(); c != '\n'; c = next()) {
                b.write(c);
            }
            return b.toString(StandardCharsets.UTF_8);
        }

        byte[] bytes(long n) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (long i = 0; i < n; i++) {
                b.write(next());
            }
            return b.toByteArray();
        }

        @Override
        public void close() throws IOException {
            ch.close();
        }
    }

    /** The text after a {@code text_bytes} head. */
    private static String counted(Raw raw, String text) throws IOException {
        raw.send("{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":" + text + "}");
        String head = raw.line();
        assertTrue(head.matches("\\{\"v\":1,\"ok\":true,\"text_bytes\":[0-9]+}"), head);
        long n = Long.parseLong(head.replaceFirst(".*\"text_bytes\":([0-9]+)}", "$1"));
        return new String(raw.bytes(n), StandardCharsets.UTF_8);
    }

    /** The text of a {@code text_chunks} answer, each chunk checked against its form; @return the chunks */
    private static List<String> chunked(Raw raw, String text) throws IOException {
        raw.send("{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":" + text.replaceFirst("}$", ",\"chunks\":true}") + "}");
        assertEquals("{\"v\":1,\"ok\":true,\"text_chunks\":true}", raw.line());
        List<String> chunks = new ArrayList<>();
        while (true) {
            String length = raw.line();
            assertTrue(length.matches("0|[1-9][0-9]{0,6}"), "a length line: " + length);
            int n = Integer.parseInt(length);
            if (n == 0) {
                return chunks;
            }
            assertTrue(n <= 1 << 20, "within 1 MiB: " + n);
            byte[] b = raw.bytes(n);
            assertEquals('\n', b[n - 1], "whole lines");
            chunks.add(new String(b, StandardCharsets.UTF_8));
        }
    }

    /** The text with the running job's time left out: the one figure that moves between two answers. */
    private static String runningFor(String text) {
        return text.replaceFirst("(?m)^(. job 1 gpu\\[0\\]) [0-9a-z]+,", "$1 (time),");
    }

    @Test
    void aHundredThousandJobText_inChunks_isTheCountedTextByteForByte_andWhatTheCliPrints() throws Exception {
        List<String> lines = new ArrayList<>(List.of("[vram=20G] sleep 3600"));
        for (int i = 1; i <= PENDING; i++) {
            lines.add("[vram=20G] echo queued " + i + (i % 7 == 0 ? " héllo ✓ wörld 😀" : "")
                    + (i % 5000 == 0 ? " " + "x".repeat(300) : ""));
        }
        Path jobs = Files.write(dir.resolve("jobs.txt"), lines);
        // Closed here: a local daemon is not the field ClosedAfterEach stops, and one left running keeps
        // re-rendering its 100,000-job board every poll for as long as the machine runs (it was, at 26% of a core).
        try (ServeDaemon daemon = new ServeDaemon(dir, "--jobs", jobs.toString(), "--sim", "1").start();
             Raw raw = new Raw(daemon.socket())) {
            daemon.awaitQueue("1 running, " + PENDING + " pending");
            for (String text : List.of("{\"layout\":\"list\"}", "{\"layout\":\"table\",\"format\":\"%i %u %c %r\",\"width\":120}",
                    "{\"layout\":\"list\",\"ascii\":true}")) {
                String whole = counted(raw, text);
                List<String> chunks = chunked(raw, text);
                assertTrue(whole.length() > 10_000_000 || text.contains("table"), "a text of megabytes: " + whole.length());
                assertEquals(runningFor(whole), runningFor(String.join("", chunks)), text);
                int bytes = whole.getBytes(StandardCharsets.UTF_8).length;
                assertTrue(chunks.size() > 40 && chunks.size() <= bytes / (64 * 1024) + 1, "in chunks of about 64 KiB: "
                        + chunks.size() + " for " + bytes + " bytes");
            }
            raw.send("{\"v\":1,\"op\":\"hello\"}");
            assertTrue(raw.line().contains("\"ok\":true"), "the connection goes on after the 0");
            String list = counted(raw, "{\"layout\":\"list\"}");
            Result cli = ServeDaemon.queueProcess(daemon.socket(), dir, Map.of("LANG", "C.UTF-8"));
            assertEquals(0, cli.code(), cli.err());
            assertEquals(runningFor(list), runningFor(cli.out()));
            assertTrue(cli.out().contains("… job 100001 20480 MiB, waits: "), "the last pending job");
        }
    }
}

package io.gpusched.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.AllocationMeter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Journal lines that are not events, read from real files: each is skipped with one warning, and nothing else is lost. */
class JournalHostileInputTest {
    private static final int MIB = 1024 * 1024;
    private static final String SEEN = "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"seen\", \"no\": 1, \"command\": \"python a.py\"}";
    private static final String DONE = "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, "
            + "\"peak_mib\": {\"0\": 7800}, \"avg_util\": 84.0}";

    private static final String SUBMITTED = "{\"key\": \"s1\", \"event\": \"submitted\", \"no\": 1, \"command\": \"c\", "
            + "\"vram\": null, \"gpus\": 1, \"timeout_ns\": null, \"retries\": 0, \"source\": \"api\", \"owner\": \"u\", "
            + "\"cwd\": \"/\", \"submitted_at_ms\": 0, ENV}";

    @TempDir
    Path dir;

    private final JournalCodec codec = new JournalCodec();

    /** Lines that parse as JSON, or nearly, but are not events of this version: wrong types, ranges, shapes. */
    private static final List<String> NOT_EVENTS = List.of(
            // seen
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": \"x\", \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1e30, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1.0, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 0, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": -1, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 2147483648, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1000000001, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 99999999999999999999999999999999999999, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1, \"command\": 5}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": null, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": true, \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": [1], \"command\": \"c\"}",
            "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1, \"no\": 2, \"command\": \"c\"}",
            // submitted: an environment that is not an object of strings
            SUBMITTED.replace("ENV", "\"env\": [\"A=1\"]"),
            SUBMITTED.replace("ENV", "\"env\": {\"A\": 1}"),
            SUBMITTED.replace("ENV", "\"env\": {\"A\": null}"),
            SUBMITTED.replace("ENV", "\"env\": \"A=1\""),
            SUBMITTED.replace("ENV", "\"env\": null"),
            // submitted: an output that is not an absolute path
            SUBMITTED.replace("ENV", "\"output\": \"out.log\""),
            SUBMITTED.replace("ENV", "\"output\": \"\""),
            SUBMITTED.replace("ENV", "\"output\": 5"),
            SUBMITTED.replace("ENV", "\"output\": null"),
            // started
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 1e30, \"gpus\": [0]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 1, \"gpus\": [0]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 0, \"gpus\": [0]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": -4242, \"gpus\": [0]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 2147483648, \"gpus\": [0]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": [-1]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": [0.5]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": [4294967296]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": [\"0\"]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": [[0]]}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": 0}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 4242}",
            "{\"key\": \"k#0\", \"event\": \"started\", \"gpus\": [0]}",
            // oom
            "{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 0, \"next_vram\": 9750}",
            "{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 1000001, \"next_vram\": 9750}",
            "{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 1, \"next_vram\": 0}",
            "{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 1, \"next_vram\": 2147483648}",
            "{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 1, \"next_vram\": 9750.5}",
            "{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 1, \"next_vram\": \"9750\"}",
            "{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 1}",
            // done
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"x\": 1}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"0\": {\"x\": 1}}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"0\": -1}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"01\": 5}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"-1\": 5}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"2147483648\": 5}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"0\": 1e3}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"0\": 9223372036854775808}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {\"0\": 1, \"0\": 2}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": [7800], \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {}, \"avg_util\": \"84\"}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {}, \"avg_util\": 1e400}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0, \"peak_mib\": {}}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 2147483648, \"peak_mib\": {}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"ok\", \"returncode\": 0.0, \"peak_mib\": {}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"running\", \"returncode\": 0, \"peak_mib\": {}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"status\": 0, \"returncode\": 0, \"peak_mib\": {}, \"avg_util\": null}",
            "{\"key\": \"k#0\", \"event\": \"done\", \"returncode\": 0, \"peak_mib\": {}, \"avg_util\": null}",
            // any event
            "{\"key\": \"\", \"event\": \"interrupted\"}",
            "{\"key\": 5, \"event\": \"interrupted\"}",
            "{\"key\": null, \"event\": \"interrupted\"}",
            "{\"event\": \"interrupted\"}",
            "{\"key\": \"k#0\"}",
            "{\"key\": \"k#0\", \"event\": 7}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\", \"event\": \"interrupted\"}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\"} {\"key\": \"k#0\", \"event\": \"interrupted\"}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\"}x",
            "[{\"key\": \"k#0\", \"event\": \"interrupted\"}]",
            "\"key\"",
            "null",
            "42",
            "{",
            "}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\", \"x\": [[[[[[[[[[1]]]]]]]]]]}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\", \"x\": " + "[".repeat(200_000) + "}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\", \"x\": " + "{\"a\":".repeat(200_000) + "1}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\", \"x\": 1" + "0".repeat(100) + "}",
            "{\"key\": \"k\u0000#0\", \"event\": \"interrupted\"}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\"\u0000}",
            "{'key': 'k#0', 'event': 'interrupted'}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\", \"x\": NaN}",
            "{\"key\": \"k#0\", \"event\": \"interrupted\", /* c */ \"x\": 1}");

    @Test
    void everyLineThatIsNotAnEventIsRefusedByTheCodecWithIllegalArgumentException() {
        for (String line : NOT_EVENTS) {
            assertThrows(IllegalArgumentException.class, () -> codec.decode(line), abbreviated(line));
        }
    }

    @Test
    void eachSuchLineInAJournalIsSkippedWithOneWarning_andTheEventsAroundItAreKept() throws IOException {
        for (String bad : NOT_EVENTS) {
            Path f = Files.writeString(dir.resolve("journal.jsonl"), SEEN + "\n" + bad + "\n" + DONE + "\n");
            try (Journal j = Journal.open(f, false)) {
                assertGoodEventsKept(j, abbreviated(bad));
                // A done line is kept as an end unless it is no JSON object (a key given twice).
                boolean end = bad.contains("\"event\": \"done\"") && !bad.contains("\"0\": 1, \"0\": 2");
                String warning = end ? SALVAGED.formatted(f, 2)
                        : "journal " + f + ": skipped 1 unreadable line (first at line 2), kept every other event";
                assertEquals(List.of(warning), j.loadWarnings(), abbreviated(bad));
            }
        }
    }

    private static final String SALVAGED = "journal %s: 1 job-end line with a bad field (first at line %d): kept as ended,"
            + " not run again (exit code -1 where its own was unreadable; status failed where its was, which"
            + " --retry-failed runs again)";

    /** A damaged end still ends its job: skipped, it left the job started, and a restart ran it again. */
    @Test
    void aJobEndLineWithAnAbsurdOrUnknownValueStillEndsItsJob_onceAndSaidInOneLine() throws IOException {
        String started = "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"started\", \"pgid\": 4242, \"gpus\": [0]}";
        Map<String, List<Object>> cases = Map.of(
                DONE.replace("\"returncode\": 0", "\"returncode\": 99999999999999999999999"), List.of("ok", -1),
                DONE.replace("\"status\": \"ok\"", "\"status\": \"weird\""), List.of("failed", 0),
                DONE.replace("\"status\": \"ok\"", "\"status\": 5").replace("\"returncode\": 0", "\"returncode\": -1e9"),
                List.of("failed", -1));
        for (Map.Entry<String, List<Object>> c : cases.entrySet()) {
            Path f = Files.writeString(dir.resolve("journal.jsonl"), SEEN + "\n" + started + "\n" + c.getKey() + "\n");
            try (Journal j = Journal.open(f, false)) {
                JobRecord r = j.state().record("aaaaaaaaaaaa#0");
                assertEquals(c.getValue().get(0), r.status(), c.getKey());
                assertEquals(List.of(SALVAGED.formatted(f, 3)), j.loadWarnings(), c.getKey());
                assertEquals(OptionalInt.of((Integer) c.getValue().get(1)), r.returncode(), c.getKey());
            }
        }
    }

    @Test
    void bytesThatAreNotUtf8MakeTheirLineUnreadable() throws IOException {
        byte[][] bad = {
            {(byte) 0xC3, '('}, {(byte) 0x80}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xFF},
        };
        for (byte[] b : bad) {
            // Inside a string, where a lenient decoder would have turned it into U+FFFD and kept the event.
            byte[] line = concat("{\"key\": \"bbbbbbbbbbbb#0\", \"event\": \"seen\", \"no\": 2, \"command\": \"echo ".getBytes(StandardCharsets.UTF_8),
                    b, "\"}".getBytes(StandardCharsets.UTF_8));
            Path f = Files.write(dir.resolve("journal.jsonl"), concat((SEEN + "\n").getBytes(StandardCharsets.UTF_8), line,
                    ("\n" + DONE + "\n").getBytes(StandardCharsets.UTF_8)));
            try (Journal j = Journal.open(f, false)) {
                assertGoodEventsKept(j, Arrays.toString(b));
                assertEquals(JobRecord.unseen(), j.state().record("bbbbbbbbbbbb#0"), Arrays.toString(b));
                assertEquals(1, j.loadWarnings().size());
            }
        }
        // U+FFFD itself, and any escaped code point, is text like any other.
        Path f = Files.writeString(dir.resolve("journal.jsonl"),
                "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 3, \"command\": \"\uFFFD \\ud83d\\ude80 \\u0000\"}\n");
        try (Journal j = Journal.open(f, false)) {
            assertEquals("\uFFFD \ud83d\ude80 \u0000", j.state().record("k#0").command());
            assertEquals(List.of(), j.loadWarnings());
        }
    }

    @Test
    void aSubmissionsEnvironmentIsReadWhenPresentAndAbsentWhenNot() {
        JournalEvent.Submitted with = (JournalEvent.Submitted) codec.decode(
                SUBMITTED.replace("ENV", "\"env\": {\"B\": \"\", \"A\": \"x=y\"}")).orElseThrow();
        assertEquals(java.util.Optional.of(Map.of("A", "x=y", "B", "")), with.env());
        JournalEvent.Submitted without = (JournalEvent.Submitted) codec.decode(
                SUBMITTED.replace(", ENV", "")).orElseThrow();
        assertEquals(java.util.Optional.empty(), without.env());
        assertEquals(with, codec.decode(codec.encode(with)).orElseThrow());
    }

    @Test
    void aSubmissionsOutputIsReadWhenPresent_andALineWithoutItHasTheDefault() {
        JournalEvent.Submitted with = (JournalEvent.Submitted) codec.decode(
                SUBMITTED.replace("ENV", "\"output\": \"/home/a/run.log\"")).orElseThrow();
        assertEquals(java.util.Optional.of("/home/a/run.log"), with.output());
        assertEquals(with, codec.decode(codec.encode(with)).orElseThrow());
        assertEquals(java.util.Optional.empty(),
                ((JournalEvent.Submitted) codec.decode(SUBMITTED.replace(", ENV", "")).orElseThrow()).output());
    }

    @Test
    void valuesAtTheEdgesOfTheirRangesAreReadExactly() {
        assertEquals(new JournalEvent.Seen("k#0", 1_000_000_000, ""),
                codec.decode("{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 1000000000, \"command\": \"\"}").orElseThrow());
        assertEquals(new JournalEvent.Started("k#0", Integer.MAX_VALUE, List.of(0, Integer.MAX_VALUE)),
                codec.decode("{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 2147483647, \"gpus\": [0, 2147483647]}").orElseThrow());
        assertEquals(new JournalEvent.Started("k#0", 2, List.of()),
                codec.decode("{\"key\": \"k#0\", \"event\": \"started\", \"pgid\": 2, \"gpus\": []}").orElseThrow());
        assertEquals(new JournalEvent.Oom("k#0", 1_000_000, OptionalLong.of(Integer.MAX_VALUE)),
                codec.decode("{\"key\": \"k#0\", \"event\": \"oom\", \"attempts\": 1000000, \"next_vram\": 2147483647}").orElseThrow());
        assertEquals(new JournalEvent.Oom("k#0", 1, OptionalLong.empty()),
                codec.decode("{\"next_vram\": null, \"attempts\": 1, \"event\": \"oom\", \"key\": \"k#0\"}").orElseThrow());
        assertEquals(new JournalEvent.Done("k#0", "failed", Integer.MIN_VALUE, Map.of(0, Long.MAX_VALUE, 2147483647, 0L), OptionalDouble.of(-0.5)),
                codec.decode("{\"key\": \"k#0\", \"event\": \"done\", \"status\": \"failed\", \"returncode\": -2147483648, "
                        + "\"peak_mib\": {\"0\": 9223372036854775807, \"2147483647\": 0}, \"avg_util\": -0.5}").orElseThrow());
        // Fields a newer version adds are ignored, whatever they hold (within the nesting limit).
        assertEquals(new JournalEvent.Interrupted("k#0"),
                codec.decode("{\"key\": \"k#0\", \"event\": \"interrupted\", \"by\": {\"who\": [1, 2.5, null, true, \"x\"]}, \"n\": 1e400}").orElseThrow());
    }

    @Test
    void unknownEventTypesAreCountedApart_whateverTheirOtherFields() throws IOException {
        Path f = Files.writeString(dir.resolve("journal.jsonl"), SEEN + "\n"
                + "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"paused\", \"no\": \"x\", \"pgid\": 1e30}\n"
                + "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"Started\", \"pgid\": 5}\n"
                + "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"\"}\n"
                + "{\"key\": \"aaaaaaaaaaaa#0\", \"event\": \"seen\", \"no\": 0, \"command\": \"\"}\n"
                + DONE + "\n");
        try (Journal j = Journal.open(f, false)) {
            assertGoodEventsKept(j, "unknown types");
            assertEquals(List.of(
                    "journal " + f + ": skipped 1 unreadable line (first at line 5), kept every other event",
                    "journal " + f + ": ignored 3 events of a type this version does not know (written by a newer gpusched?)"),
                    j.loadWarnings());
        }
    }

    @Test
    void everyPrefixOfAJournalLoads_keepingEveryCompleteEvent_withAtMostOneWarning() throws IOException {
        List<JournalEvent> events = List.of(
                new JournalEvent.Seen("aaaaaaaaaaaa#0", 1, "echo héllo 🚀 \"q\" \\ \t"),
                new JournalEvent.Started("aaaaaaaaaaaa#0", 4242, List.of(0, 1)),
                new JournalEvent.Oom("aaaaaaaaaaaa#0", 1, OptionalLong.of(9750)),
                new JournalEvent.Seen("bbbbbbbbbbbb#0", 2, "中文"),
                new JournalEvent.Interrupted("aaaaaaaaaaaa#0"),
                new JournalEvent.Done("aaaaaaaaaaaa#0", "failed_oom", -9, Map.of(1, 12000L), OptionalDouble.of(12.5)));
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        int[] ends = new int[events.size()];
        for (int i = 0; i < events.size(); i++) {
            whole.writeBytes(codec.encode(events.get(i)).getBytes(StandardCharsets.UTF_8));
            ends[i] = whole.size();
            whole.write('\n');
        }
        byte[] bytes = whole.toByteArray();
        Path f = dir.resolve("journal.jsonl");
        for (int cut = 0; cut <= bytes.length; cut++) {
            Files.write(f, Arrays.copyOf(bytes, cut));
            JournalState expected = new JournalState();
            int complete = 0;
            while (complete < ends.length && ends[complete] <= cut) {
                expected.apply(events.get(complete++));
            }
            boolean partial = complete < ends.length && cut > (complete == 0 ? 0 : ends[complete - 1] + 1);
            try (Journal j = Journal.open(f, false)) {
                assertEquals(expected.records(), j.state().records(), "cut at " + cut);
                assertEquals(expected.nextNo(), j.state().nextNo(), "cut at " + cut);
                assertEquals(partial ? 1 : 0, j.loadWarnings().size(), "cut at " + cut + ": " + j.loadWarnings());
                // Appending after any cut starts a fresh line, so the appended event is never lost.
                j.append(new JournalEvent.Seen("cccccccccccc#0", 99, "after the cut"));
            }
            try (Journal again = Journal.open(f, false)) {
                assertEquals(OptionalInt.of(99), again.state().record("cccccccccccc#0").no(), "cut at " + cut);
            }
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS) // a hang guard only
    void hundredMegabyteLinesAreSkippedInBoundedMemory_andTheEventsAroundThemKept() throws IOException {
        Path f = dir.resolve("journal.jsonl");
        byte[] garbage = new byte[MIB];
        Arrays.fill(garbage, (byte) '[');
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap((SEEN + "\n").getBytes(StandardCharsets.UTF_8)));
            for (int i = 0; i < 50; i++) {
                ch.write(ByteBuffer.wrap(garbage));
            }
            ch.write(ByteBuffer.wrap(("\n" + DONE + "\n").getBytes(StandardCharsets.UTF_8)));
            // A torn last line, as long again: a crash while writing a huge line.
            for (int i = 0; i < 50; i++) {
                ch.write(ByteBuffer.wrap(garbage));
            }
        }
        Journal[] opened = new Journal[1];
        long allocated = AllocationMeter.allocatedBy(() -> opened[0] = Journal.open(f, false));
        try (Journal j = opened[0]) {
            assertGoodEventsKept(j, "100 MiB of lines");
            assertEquals(List.of("journal " + f + ": skipped 2 lines longer than 1048576 bytes (first at line 2), kept every other event"),
                    j.loadWarnings());
            // Reading it whole (as a String too) would take at least 200 MiB; the reader keeps at most one 1 MiB line.
            assertTrue(allocated < 16L * MIB, "allocated " + allocated / MIB + " MiB to load a 100 MiB journal");
            j.append(new JournalEvent.Interrupted("aaaaaaaaaaaa#0"));
        }
        try (Journal again = Journal.open(f, false)) {
            assertEquals("pending", again.state().record("aaaaaaaaaaaa#0").status(), "the append after the torn line is read back");
        }
    }

    @Test
    void aLineJustUnderTheLimitIsRead_justOverIsSkipped() throws IOException {
        String head = "{\"key\": \"k#0\", \"event\": \"seen\", \"no\": 5, \"command\": \"";
        String tail = "\"}";
        String fits = head + "x".repeat(JournalReader.MAX_LINE_BYTES - head.length() - tail.length()) + tail;
        assertEquals(JournalReader.MAX_LINE_BYTES, fits.length());
        Path f = Files.writeString(dir.resolve("journal.jsonl"), fits + "\r\n");
        try (Journal j = Journal.open(f, false)) {
            assertEquals(OptionalInt.of(5), j.state().record("k#0").no());
        }
        Files.writeString(f, fits.replace("\"x", "\"xx") + "\n");
        try (Journal j = Journal.open(f, false)) {
            assertEquals(OptionalInt.empty(), j.state().record("k#0").no());
            assertTrue(j.loadWarnings().get(0).contains("skipped 1 line longer than 1048576 bytes (first at line 1)"), j.loadWarnings().toString());
        }
    }

    @Test
    void aJournalThatIsADirectoryIsAJournalExceptionNamingIt() throws IOException {
        Path d = Files.createDirectories(dir.resolve("journal.jsonl"));
        JournalException e = assertThrows(JournalException.class, () -> Journal.open(d, false));
        assertTrue(e.getMessage().startsWith("cannot open journal " + d), e.getMessage());
    }

    private static void assertGoodEventsKept(Journal j, String what) {
        JobRecord r = j.state().record("aaaaaaaaaaaa#0");
        assertEquals(OptionalInt.of(1), r.no(), what);
        assertEquals("python a.py", r.command(), what);
        assertEquals("ok", r.status(), what);
        assertEquals(Map.of(0, 7800L), r.peakMib(), what);
        assertEquals(2, j.state().nextNo(), what);
    }

    private static String abbreviated(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}

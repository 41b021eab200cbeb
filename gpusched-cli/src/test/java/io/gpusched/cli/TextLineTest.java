package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.Notes;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import io.gpusched.protocol.ListText;
import io.gpusched.protocol.Row;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link TextLine} writes the bytes {@code String.getBytes(UTF_8)} writes (issue #27: the daemon makes a
 * 100,000-job list's lines straight into UTF-8), and the list {@code gpusched queue} prints is, byte for
 * byte, the lines it printed as strings: each row's words joined, then encoded.
 */
class TextLineTest {
    private static byte[] line(TextLine t) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        t.writeLineTo(out);
        return out.toByteArray();
    }

    @Test
    void everyKindOfCharacter_isEncodedAsTheJdkEncodesIt_loneSurrogatesAsQuestionMarks() throws Exception {
        List<String> texts = List.of("", "plain ascii", "héllo ✓ wörld", "… job — ≥ 20992 MiB", "😀 and 𝄞", "lone \uD83D end",
                "\uDE00 low first", "high at the end \uD83D", "\uD83D\uD83D\uDE00", "\u0000\u007f\u0080\u07ff\u0800\uffff");
        for (String s : texts) {
            assertArrayEquals((s + "\n").getBytes(StandardCharsets.UTF_8), line(new TextLine().add(s)), s);
            assertEquals(new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8), new TextLine().add(s).toString());
        }
        Random random = new Random(27);
        for (int i = 0; i < 2_000; i++) {
            char[] cs = new char[random.nextInt(40)];
            for (int k = 0; k < cs.length; k++) {
                // Mostly surrogates and the edges of each encoding's length, where an encoder goes wrong.
                int pick = random.nextInt(6);
                cs[k] = (char) switch (pick) {
                    case 0 -> 0xD800 + random.nextInt(0x800);
                    case 1 -> random.nextInt(0x80);
                    case 2 -> 0x80 + random.nextInt(0x780);
                    default -> random.nextInt(0x10000);
                };
            }
            String s = new String(cs);
            assertArrayEquals((s + "\n").getBytes(StandardCharsets.UTF_8), line(new TextLine().add(s)), () -> s.chars()
                    .mapToObj(Integer::toHexString).toList().toString());
        }
    }

    @Test
    void numbers_areWrittenAsStringValueOfWritesThem_andALineIsReusedAfterClear() throws Exception {
        TextLine t = new TextLine();
        for (long n : new long[] {0, 7, 10, 99, 100, 20_480, -1, -10, Integer.MAX_VALUE, Long.MAX_VALUE, Long.MIN_VALUE}) {
            assertArrayEquals((n + "\n").getBytes(StandardCharsets.UTF_8), line(t.clear().add(n)), String.valueOf(n));
        }
        String longer = "x".repeat(5_000) + "✓";
        assertArrayEquals(("job " + 12 + longer + "\n").getBytes(StandardCharsets.UTF_8), line(t.clear().add("job ").add(12)
                .add(longer)));
        assertArrayEquals("short\n".getBytes(StandardCharsets.UTF_8), line(t.clear().add("short")));
    }

    @Test
    void aRepeatedPart_isTheSameBytesWhetherTheSameStringAnEqualOneOrAnother() throws Exception {
        TextLine t = new TextLine();
        String reason = "needs 1 GPU with ≥ 20992 MiB headroom; best is gpu0 with 3520 MiB";
        for (String s : List.of(reason, reason, new String(reason.toCharArray()), "other ✓", reason, "lone \uD83D", "",
                "x".repeat(3_000) + "…", reason)) {
            assertArrayEquals(("a " + s + " b\n").getBytes(StandardCharsets.UTF_8), line(t.clear().add("a ").addRepeated(s)
                    .add(" b")), s);
        }
    }

    @Test
    void fixedWords_areTheBytesOfTheSameTextAddedAsAString() throws Exception {
        TextLine t = new TextLine();
        for (String w : List.of("… job ", " — ", "   [", "", "▶ 😀 lone \uD83D")) {
            assertArrayEquals(("x" + w + 7 + w + "\n").getBytes(StandardCharsets.UTF_8),
                    line(t.clear().add("x").add(new TextLine.Words(w)).add(7).add(new TextLine.Words(w))), w);
        }
    }

    private static ListText t(String s) {
        return ListText.whole(s);
    }

    @Test
    void theList_isTheLinesItPrintedAsStrings_byteForByte() {
        Notes<ListText> note = new Notes<>(List.of(new Notes.Note<>(Attribute.COMMENT, t("nightly\tsweep ✓"))));
        List<Row.Running> running = List.of(
                new Row.Running(6, t("python train.py"), List.of(1, 3), 1843.2, Map.of(1, 17_650L), 17_650, Optional.empty(),
                        Optional.of(t("ada")), OptionalLong.of(20_480), 0, Optional.empty(), note,
                        Optional.of(t("slurm job 41 RUNNING")), true),
                new Row.Running(9, t("echo 😀 lone \uD83D"), List.of(0), 5, Map.of(), 0, Optional.empty(), Optional.empty(),
                        OptionalLong.empty(), 0, Optional.empty(), Notes.none(), Optional.empty(), false));
        List<Row.Pending> pending = List.of(
                new Row.Pending(7, t("python sweep.py --seed 1"), OptionalLong.of(8192), 0,
                        t("gpu0 is paused; needs 1 GPU with ≥ 8704 MiB headroom"), Optional.of(t("bob")), false, 1,
                        Optional.empty(), note, Optional.empty(), Optional.of(Instant.parse("2024-11-24T09:00:00Z")), true),
                new Row.Pending(8, new ListText("echo " + "y".repeat(194) + "…", java.util.OptionalInt.of(400)),
                        OptionalLong.empty(), 2, t("waits for \uDE00"), Optional.of(t("höst\uD83D")), true, 0, Optional.empty(),
                        Notes.none(), Optional.empty(), Optional.empty(), false));
        List<Row.Ended> done = List.of(
                new Row.Ended(t("s5"), 5, t("python eval.py"), List.of(1), JobStatus.OK, 0, OptionalLong.of(4096),
                        Map.of(1, 3_900L), Verdict.WITHIN, OptionalDouble.of(71.5), 95.25, Measurement.MEASURED,
                        Optional.empty(), Optional.of(t("ada")), Optional.empty()),
                new Row.Ended(t("s4"), 4, t("exit 3 ✗"), List.of(), JobStatus.FAILED, 3, OptionalLong.empty(), Map.of(),
                        Verdict.NOT_JUDGED, OptionalDouble.empty(), 1, Measurement.NOT_RUN, Optional.empty(), Optional.empty(),
                        Optional.empty()));
        io.gpusched.protocol.QueueView head = new io.gpusched.protocol.QueueView(Instant.parse("2024-11-24T09:30:00Z"),
                io.gpusched.protocol.QueueView.Board.EMPTY, List.of(0), List.of(), List.of(), List.of());
        QueueView.Shown shown = new QueueView.Shown(head, running, pending, done, List.of(), List.of(), 14, 12);
        String expected = String.join("\n",
                "2 running, 2 pending, 14 done; paused gpus [0]",
                "▶ job 6 [tty] (slurm job 41 RUNNING) gpu[1, 3] 30m43s, peak 17650 MiB — python train.py   [ada]   # nightly sweep ✓",
                // An unpaired surrogate in a user's text is escaped, as every character a terminal cannot show is.
                "▶ job 9 gpu[0] 5s, peak 0 MiB — echo 😀 lone \\ud83d",
                "… job 7 [tty] 8192 MiB, waits: gpu0 is paused; needs 1 GPU with ≥ 8704 MiB headroom — python sweep.py --seed 1"
                        + "   [bob]   # nightly sweep ✓",
                "… job 8 undeclared, waits: waits for \\ude00 — echo " + "y".repeat(194) + "…   [höst\\ud83d]",
                "  (12 earlier finished jobs not shown: gpusched queue --all)",
                "✓ job 5 ok — python eval.py   [ada]",
                "✗ job 4 failed, exit 3 — exit 3 ✗",
                "  (commands over 200 characters are shortened, ending in …: gpusched show N prints one whole)", "");
        for (int round = 0; round < 2; round++) { // a second writing of the same text: the same bytes
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream page = new PrintStream(out, true, StandardCharsets.UTF_8);
            QueueText.printQueue(page, shown);
            assertArrayEquals(expected.getBytes(StandardCharsets.UTF_8), out.toByteArray(), out.toString(StandardCharsets.UTF_8));
        }
        ByteArrayOutputStream ascii = new ByteArrayOutputStream();
        QueueText.list(shown, true).printTo(new PrintStream(ascii, true, StandardCharsets.UTF_8));
        assertEquals(QueueTable.ascii(expected.replace("\n", "\u0000")).replace("\u0000", "\n"),
                ascii.toString(StandardCharsets.UTF_8), "ASCII, converted line by line as before");
    }
}

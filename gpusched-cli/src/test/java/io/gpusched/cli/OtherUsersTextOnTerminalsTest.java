package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.TerminalText;
import io.gpusched.jobs.Notes;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.RunSummary;
import io.gpusched.model.Verdict;
import io.gpusched.protocol.ListText;
import io.gpusched.protocol.Row;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every user's command, and the other text users choose (an {@code after=} name in a reason, a path in a
 * failure's cause, a warning's message), is shown to other users and to root: in {@code gpusched queue}
 * piped to {@code grep} or {@code less -R} (the list form, which no terminal check guards), in the
 * daemon's log on root's terminal and in journald, on the status board. None of it may reach a terminal
 * as something the terminal acts on: no escape sequence (an OSC 52 clipboard write, a title, a screen
 * clear), no carriage return or line separator to forge a line, no bidi override to reorder one. It is
 * shown escaped, still readable; ordinary text is shown exactly as written.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OtherUsersTextOnTerminalsTest {
    /**
     * What an attacker submits: a title change, {@code rm -rf ~} written to the viewer's clipboard (OSC 52),
     * a screen clear and a line erase, a carriage return and a forged line, a concealing SGR, a bidi
     * override, a line separator, DEL, a C1 CSI and a backspace.
     */
    static final String HOSTILE = "sleep 30 # \u001b]0;PWNED\u0007\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[2J\u001b[2K\r"
            + "fake: all your jobs were cancelled by root\u001b[8m \u202Egnp.exe\u2028[00:00:00] forged\u007f\u009b31m\b";
    /** {@link #HOSTILE} as it is shown. */
    static final String SHOWN = "sleep 30 # \\e]0;PWNED\\x07\\e]52;c;cm0gLXJmIH4K\\x07\\e[2J\\e[2K\\r"
            + "fake: all your jobs were cancelled by root\\e[8m \\u202egnp.exe\\u2028[00:00:00] forged\\x7f\\x9b31m\\x08";
    /**
     * What a submission may still carry past the parser, which refuses C0 controls in a new command: an
     * 8-bit CSI (a screen clear where a terminal takes C1), a bidi override, a line separator, DEL.
     */
    static final String SUBMITTABLE = "sleep 30 # \u009b2J\u009b]0;PWNED \u202Egnp.exe\u2028[00:00:00] forged\u007f";
    /** {@link #SUBMITTABLE} as it is shown. */
    static final String SUBMITTABLE_SHOWN = "sleep 30 # \\x9b2J\\x9b]0;PWNED \\u202egnp.exe\\u2028[00:00:00] forged\\x7f";
    /** Ordinary text of many kinds, which must come out as it went in. */
    static final String ORDINARY = "python train.py --name 'run 1' \"x y\" C:\\data\\set\\ printf '%s\\n' 日本語 한국어 "
            + "😀 👨\u200D👩\u200D👧 ✓ — e\u0301 עברית";

    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    /**
     * Whether a terminal would act on {@code c}, or it hides or reorders text: C0 (a line's own end is
     * split off before), DEL, C1, bidi embeddings, overrides, isolates and marks, line and paragraph
     * separators, invisible format characters (Cf; zero-width joiners excepted), an unpaired surrogate.
     */
    static boolean forbidden(int c) {
        int type = Character.getType(c);
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
                || c == 0x200e || c == 0x200f || c == 0x061c || c == 0x2028 || c == 0x2029
                || (type == Character.FORMAT && c != 0x200c && c != 0x200d) || type == Character.SURROGATE;
    }

    /** Asserts that no line of {@code text} holds a {@link #forbidden} character. */
    static void assertNothingATerminalActsOn(String text) {
        for (String line : text.split("\n", -1)) {
            line.codePoints().filter(OtherUsersTextOnTerminalsTest::forbidden).findFirst().ifPresent(c -> {
                throw new AssertionError("U+" + Integer.toHexString(c) + " reaches the terminal in: "
                        + TerminalText.escape(line));
            });
        }
    }

    private static ListText t(String s) {
        return ListText.whole(s);
    }

    private static Row.Running running(int no, String command, String owner) {
        return new Row.Running(no, t(command), List.of(0), 65, Map.of(0, 1000L), 1000, Optional.empty(), Optional.of(t(owner)),
                OptionalLong.of(1024), 0, Optional.empty(), Notes.none(), Optional.empty(), false);
    }

    private static Row.Pending pending(int no, String command, String reason, String owner) {
        return new Row.Pending(no, t(command), OptionalLong.of(2048), 0, t(reason), Optional.of(t(owner)), false, 0,
                Optional.empty(), Notes.none(), Optional.empty(), Optional.empty(), false);
    }

    private static Row.Ended ended(int no, String command, String owner) {
        return new Row.Ended(t("k" + no), no, t(command), List.of(0), JobStatus.FAILED, 1, OptionalLong.empty(), Map.of(),
                Verdict.NOT_JUDGED, OptionalDouble.empty(), 1, Measurement.NONE_SEEN, Optional.empty(), Optional.of(t(owner)),
                Optional.empty());
    }

    /** {@code gpusched queue} as it prints when its stdout is not a terminal: the list form. */
    private static String list(List<Row.Running> running, List<Row.Pending> pending, List<Row.Ended> done, boolean ascii) {
        io.gpusched.protocol.QueueView head = new io.gpusched.protocol.QueueView(AT,
                io.gpusched.protocol.QueueView.Board.EMPTY, List.of(), List.of(), List.of(), List.of());
        QueueView.Shown shown = new QueueView.Shown(head, running, pending, done, List.of(), List.of(), done.size(), 0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        QueueText.list(shown, ascii).printTo(new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    private static List<String> lines(String text) {
        return List.of(text.split("\n"));
    }

    @Test
    void anotherUsersCommandCannotWriteToTheClipboardOfWhoeverPipesTheQueue() {
        String out = list(List.of(running(6, HOSTILE, "mallory")), List.of(), List.of(), false);
        assertNothingATerminalActsOn(out);
        // Readable: the whole command, escaped, and its owner at the end of its own line, not concealed.
        assertEquals(List.of("1 running, 0 pending, 0 done", "▶ job 6 gpu[0] 1m05s, peak 1000 MiB — " + SHOWN + "   [mallory]"),
                lines(out));
    }

    @Test
    void aCarriageReturnLineSeparatorOrBidiOverrideCannotForgeOrReorderAQueueLine_pendingReasonsIncluded() {
        // A reason holds the user's own words where it names what the job waits for (after=NAME).
        String out = list(List.of(), List.of(pending(7, HOSTILE, "after job 3 (" + HOSTILE + ")", "mallory")),
                List.of(ended(5, HOSTILE, "mallory")), false);
        assertNothingATerminalActsOn(out);
        assertEquals(List.of("0 running, 1 pending, 1 done",
                "… job 7 2048 MiB, waits: after job 3 (" + SHOWN + ") — " + SHOWN + "   [mallory]",
                "✗ job 5 failed, exit 1 — " + SHOWN + "   [mallory]"), lines(out));
        String ascii = list(List.of(), List.of(pending(7, HOSTILE, HOSTILE, "mallory")), List.of(), true);
        assertNothingATerminalActsOn(ascii);
        assertTrue(ascii.contains("... job 7 2048 MiB, waits: " + SHOWN + " - " + SHOWN + "   [mallory]"), ascii);
    }

    @Test
    void ordinaryCommandsInTheQueueListAreShownAsTheyWereWritten() {
        String out = list(List.of(running(6, ORDINARY, "ada")), List.of(pending(7, ORDINARY, "gpu0 is paused", "bob")),
                List.of(), false);
        assertEquals(List.of("1 running, 1 pending, 0 done", "▶ job 6 gpu[0] 1m05s, peak 1000 MiB — " + ORDINARY + "   [ada]",
                "… job 7 2048 MiB, waits: gpu0 is paused — " + ORDINARY + "   [bob]"), lines(out));
    }

    private static JobResult result(int no, String command, JobStatus status, List<Integer> gpus, Optional<String> cause) {
        return new JobResult("k" + no + "#0", no, command, gpus, status, status == JobStatus.OK ? 0 : 1, OptionalLong.empty(),
                Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ofSeconds(2),
                gpus.isEmpty() ? Measurement.NOT_RUN : Measurement.NONE_SEEN, cause, Optional.of("mallory"));
    }

    private static SchedulerEvent.JobStarted started(String command, Optional<String> rule) {
        return new SchedulerEvent.JobStarted(AT, 4, "k4#0", command, List.of(0), OptionalLong.of(1024), 1, 1, 123,
                Path.of("/tmp/4.log"), 1, Duration.ZERO, Optional.empty(), rule, Optional.empty());
    }

    @Test
    void anotherUsersCommandCannotClearRootsTerminalThroughTheDaemonsLog() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new LogRenderer(new PrintStream(out, true, StandardCharsets.UTF_8), 0.1, false).accept(started(HOSTILE, Optional.empty()));
        String log = out.toString(StandardCharsets.UTF_8);
        assertNothingATerminalActsOn(log);
        assertTrue(log.endsWith("] job 4 started on gpu [0] (1/1 dispatched, declared 1024 MiB/gpu) — " + SHOWN
                + System.lineSeparator()), log);
        assertEquals(1, lines(log.strip()).size(), log);
    }

    @Test
    void everyLogLineThatCarriesAUsersTextShowsItEscaped_commandsReasonsCausesNamesAndPaths() {
        LogRenderer r = new LogRenderer(new PrintStream(OutputStream.nullOutputStream()), 0.1, false);
        List<SchedulerEvent> events = List.of(
                started(HOSTILE, Optional.of(HOSTILE)),
                new SchedulerEvent.DependencyFailed(AT, 4, HOSTILE, "after=" + HOSTILE + ": no job of that name is known"),
                new SchedulerEvent.JobInfeasible(AT, 4, HOSTILE, "needs " + HOSTILE),
                new SchedulerEvent.AlreadyCompleted(AT, 4, HOSTILE),
                new SchedulerEvent.AlreadyEnded(AT, 4, "k4#0", HOSTILE, JobStatus.FAILED, 1, true),
                new SchedulerEvent.AlreadyEnded(AT, 4, "k4#0", HOSTILE, JobStatus.FAILED, 1, false),
                new SchedulerEvent.EndedJobEdited(AT, 4, HOSTILE, JobStatus.FAILED),
                new SchedulerEvent.JobFinished(AT, result(4, HOSTILE, JobStatus.CANCELLED, List.of(), Optional.empty()), 0.1),
                new SchedulerEvent.JobFinished(AT, result(4, HOSTILE, JobStatus.FAILED, List.of(0),
                        Optional.of("cannot enter its directory /home/mallory/" + HOSTILE)), 0.1),
                new SchedulerEvent.Warning(AT, "job 4: cannot open " + HOSTILE + " — it fails"),
                new SchedulerEvent.JobsFileRejected(AT, "line 1: " + HOSTILE + " — keeping the previous queue"));
        for (SchedulerEvent e : events) {
            String line = r.render(e);
            assertNotNull(line, e.toString());
            assertNothingATerminalActsOn(line);
            assertTrue(line.contains(SHOWN), line);
        }
        String summary = r.render(new SchedulerEvent.RunFinished(AT, new RunSummary(List.of(
                result(4, HOSTILE, JobStatus.FAILED, List.of(0), Optional.of("cannot enter " + HOSTILE)),
                result(5, "true", JobStatus.OK, List.of(0), Optional.empty())), false)));
        assertNothingATerminalActsOn(summary.replace(System.lineSeparator(), "\n"));
        assertEquals(List.of("all 2 jobs done — 1 ok, 1 failed, 0 cancelled, 0 under-declared vram, 0 over-declared vram",
                "  failed: job 4 (failed, exit 1, cannot enter " + SHOWN + ") — " + SHOWN),
                List.of(summary.split(System.lineSeparator())));
    }

    @Test
    void ordinaryLogLinesKeepTheOriginalToolsFormat() {
        LogRenderer r = new LogRenderer(new PrintStream(OutputStream.nullOutputStream()), 0.1, false);
        assertEquals("job 4 started on gpu [0] (1/1 dispatched, declared 1024 MiB/gpu) — " + ORDINARY,
                r.render(started(ORDINARY, Optional.empty())));
        assertEquals("WARN  job 4 DEPENDENCY FAILED — after=prep: no job of that name is known; not run: " + ORDINARY,
                r.render(new SchedulerEvent.DependencyFailed(AT, 4, ORDINARY, "after=prep: no job of that name is known")));
        assertEquals("job 4 cancelled before start: " + ORDINARY, r.render(new SchedulerEvent.JobFinished(AT,
                result(4, ORDINARY, JobStatus.CANCELLED, List.of(), Optional.empty()), 0.1)));
    }

    @Test
    void gpuschedStatusShowsABoardsCommandsEscaped_evenOneAnOlderSchedulerWroteRaw() throws Exception {
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Files.writeString(logs.resolve("status.txt"), "gpusched status @ 00:00:00 — 1 running, 0 pending, 0 done\n"
                + "▶ job 6   gpu[0]     5s  gpu0:10 MiB (peak 10) — " + HOSTILE + "\n", StandardCharsets.UTF_8);
        ServeDaemon.Result status = ServeDaemon.cli("status", "--log-dir", logs.toString());
        assertEquals(0, status.code(), status.err());
        assertNothingATerminalActsOn(status.out());
        assertTrue(status.out().contains("\n▶ job 6   gpu[0]     5s  gpu0:10 MiB (peak 10) — " + SHOWN + "\n"), status.out());
    }

    /** Random text: hostile pieces, ordinary ones and any code point at all, one after another. */
    private static final List<String> PIECES = List.of("a", " ", "python train.py", "日本語", "😀", "👨\u200D👩", "e\u0301",
            "\\", "\\e", "\u001b", "\u001b]52;c;", "\u0007", "\r", "\n", "\t", "\u007f", "\u0085", "\u009b", "\u202E",
            "\u2066", "\u200F", "\u2028", "\u2029", "\uFEFF", "\u00AD", "\uD800", "\uDFFF", new String(Character.toChars(0xE0041)));

    private static final Gen<String> TEXT = (random, size) -> {
        StringBuilder b = new StringBuilder();
        for (int i = random.nextInt(1 + Math.min(30, size)); i > 0; i--) {
            if (random.nextInt(3) == 0) {
                int c = random.nextInt(4) == 0 ? random.nextInt(0x300) : random.nextInt(Character.MAX_CODE_POINT + 1);
                b.appendCodePoint(c);
            } else {
                b.append(PIECES.get(random.nextInt(PIECES.size())));
            }
        }
        return b.toString();
    };

    @Test
    void noTextAnyUserChoosesReachesATerminalAsSomethingItActsOn() {
        LogRenderer r = new LogRenderer(new PrintStream(OutputStream.nullOutputStream()), 0.1, false);
        Property.forAll(TEXT).check(s -> {
            String escaped = TerminalText.escape(s);
            assertTrue(escaped.codePoints().noneMatch(OtherUsersTextOnTerminalsTest::forbidden), escaped);
            assertSame(escaped, TerminalText.escape(escaped), "escaped already");
            if (s.codePoints().noneMatch(OtherUsersTextOnTerminalsTest::forbidden)) {
                assertSame(s, escaped, "ordinary text is left as it is");
            }
            String out = list(List.of(running(6, s, s)), List.of(pending(7, s, s, s)), List.of(ended(5, s, s)), false);
            assertNothingATerminalActsOn(out);
            assertEquals(4, lines(out).size(), out); // the count line and one line a row: none forged
            assertNothingATerminalActsOn(r.render(started(s, Optional.of(s))));
            assertNothingATerminalActsOn(r.render(new SchedulerEvent.Warning(AT, s)));
        });
    }

    @Test
    void endToEnd_aHostileSubmissionReachesNeitherTheDaemonsLogNorAPipedQueueNorTheStatusBoardRaw() throws Exception {
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start()) {
            // A new command may hold no C0 control but TAB (the parser refuses it: bad_job); what is left
            // to send is C1, DEL and the format characters, and older journals and other fields may hold any.
            ServeDaemon.Result refused = daemon.verb("submit", "--vram", "1G", "--", HOSTILE);
            assertEquals(2, refused.code(), refused.toString());
            assertNothingATerminalActsOn(refused.err());
            String ran = "true # " + SUBMITTABLE;
            assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", ran).code());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); !daemon.verb("queue").out().contains("job 1 ok");
                 Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, daemon.log());
            }
            assertEquals(0, daemon.verb("pause", "0").code());
            ServeDaemon.Result submitted = daemon.verb("submit", "--vram", "1G", "--", SUBMITTABLE);
            assertEquals(0, submitted.code(), submitted.err());
            ServeDaemon.Result queue = daemon.verb("queue");
            assertNothingATerminalActsOn(queue.out());
            assertTrue(queue.out().contains("— " + SUBMITTABLE_SHOWN), queue.out());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                 !Files.exists(daemon.logs().resolve("status.txt")) || !Files.readString(daemon.logs().resolve("status.txt"))
                         .contains("job 2"); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, daemon.log());
            }
            String board = Files.readString(daemon.logs().resolve("status.txt"));
            assertNothingATerminalActsOn(board);
            assertTrue(board.contains(SUBMITTABLE_SHOWN), board);
            String log = daemon.log();
            assertNothingATerminalActsOn(log);
            assertTrue(log.contains("] job 1 started on gpu [0] (1/1 dispatched, declared 1024 MiB/gpu) — true # " + SUBMITTABLE_SHOWN), log);
            daemon.verb("cancel", "2");
        }
    }
}

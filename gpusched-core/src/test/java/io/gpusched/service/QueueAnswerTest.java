package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.Verdict;
import io.gpusched.protocol.Answer;
import io.gpusched.protocol.BoardList;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.Request;
import io.gpusched.protocol.ProtocolCodec.Expect;
import io.gpusched.protocol.Row;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every line of a queue or job answer stays far under the line limit, whatever the queue holds. */
class QueueAnswerTest {
    private static final int QUARTER = Protocol.MAX_LINE_BYTES / 4;
    private static final ProtocolCodec CODEC = new ProtocolCodec();

    /** A line as the client reads it, when it expects {@code expect}. */
    @SuppressWarnings("unchecked")
    private static <A extends Answer> A read(String line, Expect expect) {
        return (A) CODEC.decode(line, expect);
    }

    private static QueueSnapshot queue(int pending, String command, int done) {
        List<StatusBoard.Pending> p = new ArrayList<>();
        for (int i = 1; i <= pending; i++) {
            p.add(StatusBoard.Pending.builder(i, command).declaredMib(OptionalLong.of(1024))
                    .reason("needs 1 GPU with ≥ 1536 MiB headroom").owner(Optional.of("gs-qu-a")).build());
        }
        List<JobResult> d = new ArrayList<>();
        for (int i = 1; i <= done; i++) {
            d.add(new JobResult("s" + (pending + i), pending + i, command, List.of(0), JobStatus.OK, 0, OptionalLong.empty(),
                    Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ofSeconds(1)));
        }
        return new QueueSnapshot(Instant.EPOCH, new StatusBoard(List.of(), p, d), Set.of(), List.of());
    }

    private static int bytes(String line) {
        return line.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void aStreamOf100000JobsWith64KiBCommands_comesInLinesUnderAQuarterOfTheLimit_everyRowOnce() {
        QueueAnswer a = new QueueAnswer(queue(100_000, "x".repeat(64 * 1024), 0));
        List<String> lines = a.streamed();
        Answer.Queue head = read(lines.get(0), Expect.QUEUE);
        assertEquals(java.util.OptionalInt.of(lines.size() - 1), head.lines());
        assertEquals(100_000, head.rows().get(BoardList.PENDING));
        long rows = 0;
        long next = 1;
        for (String line : lines.subList(1, lines.size())) {
            assertTrue(bytes(line) < QUARTER, "a line of " + bytes(line) + " bytes");
            Answer.Rows m = read(line, Expect.ROWS);
            assertEquals(BoardList.PENDING, m.list());
            for (Row row : m.rows()) {
                assertEquals(next++, row.no(), "in queue order");
                assertEquals(java.util.OptionalInt.of(65536), row.command().wholeChars());
                String command = row.command().text();
                assertEquals(Protocol.LIST_COMMAND_CHARS, command.codePointCount(0, command.length()));
                rows++;
            }
        }
        assertEquals(100_000, rows);
        assertTrue(bytes(lines.get(0)) < QUARTER);
    }

    @Test
    void commandsOfCharactersThatNeedEscapesStillFit() {
        QueueAnswer a = new QueueAnswer(queue(2_000, "\u0001".repeat(60_000), 2_000));
        for (String line : a.streamed()) {
            assertTrue(bytes(line) < QUARTER, "a line of " + bytes(line) + " bytes");
        }
        assertTrue(bytes(a.oneLine()) < QUARTER);
        for (String line : a.job(1).orElseThrow()) {
            assertTrue(bytes(line) < QUARTER, "a line of " + bytes(line) + " bytes");
        }
    }

    @Test
    void theOneLineAnswer_keepsTheHeadOfTheQueueAndTheNewestFinished_andSaysHowManyItLeftOut() {
        QueueAnswer a = new QueueAnswer(queue(100_000, "python sweep.py --seed 1", 50_000));
        String line = a.oneLine();
        assertTrue(bytes(line) <= Protocol.ONE_LINE_ROWS_BYTES + 4096, bytes(line) + " bytes");
        Answer.Queue m = read(line, Expect.QUEUE);
        List<Row.Pending> pending = m.snapshot().board().pending();
        List<Row.Ended> done = m.snapshot().board().done();
        assertEquals(1, pending.get(0).no());
        assertEquals(150_000, done.get(done.size() - 1).no(), "the newest finished job");
        Map<BoardList, Integer> leftOut = m.leftOut();
        assertEquals(100_000 - pending.size(), leftOut.get(BoardList.PENDING));
        assertEquals(50_000 - done.size(), leftOut.get(BoardList.DONE));
        assertFalse(leftOut.containsKey(BoardList.RUNNING), "only the lists it cut");
    }

    @Test
    void aSmallQueueIsWholeInOneLine_withNothingLeftOut() {
        String line = new QueueAnswer(queue(3, "true", 2)).oneLine();
        Answer.Queue m = read(line, Expect.QUEUE);
        assertFalse(line.contains("\"left_out\""), line);
        assertTrue(m.leftOut().isEmpty());
        assertEquals(3, m.snapshot().board().pending().size());
    }

    @Test
    void theNextSnapshotsAnswer_reusesTheCutsOfAListThatDidNotChange() {
        QueueSnapshot first = queue(10_000, "python sweep.py", 0);
        QueueAnswer a = new QueueAnswer(first);
        List<String> before = a.streamed();
        QueueSnapshot next = new QueueSnapshot(Instant.EPOCH.plusSeconds(5), first.board(), Set.of(0), List.of());
        QueueAnswer b = new QueueAnswer(next, a.rendered());
        List<String> after = b.streamed();
        assertTrue(b.cutsSameAs(a, BoardList.PENDING), "the same cuts, not measured again");
        assertEquals(before.subList(1, before.size()), after.subList(1, after.size()));
        assertEquals(List.of(0), QueueAnswerTest.<Answer.Queue>read(after.get(0), Expect.QUEUE).snapshot().pausedGpus(), after.get(0));
        QueueSnapshot changed = queue(10_001, "python sweep.py", 0);
        List<String> third = new QueueAnswer(changed, b.rendered()).streamed();
        assertEquals(10_001, QueueAnswerTest.<Answer.Queue>read(third.get(0), Expect.QUEUE).rows().get(BoardList.PENDING));
    }

    @Test
    void aStreamedAnswerKeepsNoLineOfRows_eachIsRenderedWhenAskedFor() {
        QueueAnswer a = new QueueAnswer(queue(10_000, "python sweep.py", 0));
        List<String> lines = a.streamed();
        assertTrue(lines.size() > 2, "several lines of rows: " + lines.size());
        String once = lines.get(1);
        assertEquals(once, lines.get(1));
        assertTrue(once != lines.get(1), "rendered again, so the answer held no line between");
        assertTrue(lines.get(0) == lines.get(0), "the head line is kept: it is one line whatever the queue");
    }

    /** A printer of a header line, then a line for each pending row, each made when its slice is written. */
    private static QueuePrinter lines(java.util.function.Function<QueuePrinter.Rows, String> header) {
        return (rows, text) -> new QueuePrinter.Text() {
            @Override
            public int slices() {
                return 1 + rows.pending().size();
            }

            @Override
            public void write(int slice, java.io.OutputStream out) throws java.io.IOException {
                String line = slice == 0 ? header.apply(rows) : "… job " + rows.pending().get(slice - 1).no() + " — "
                        + rows.pending().get(slice - 1).command().text();
                out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            }
        };
    }

    /** Every piece of a text answer as its writer takes them, joined: the text the client reads. */
    private static String written(List<String> answer) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.util.Iterator<java.nio.ByteBuffer> chunks = ((QueueAnswer.TextAnswer) answer).chunks();
        chunks.next(); // the head line
        while (chunks.hasNext()) {
            java.nio.ByteBuffer b = chunks.next();
            out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aTextAnswer_isAHeadCountingTheTextsBytes_thenTheTextInPiecesCutAfterASlice() {
        Request.Text options = new Request.Text(false, Optional.empty(), java.util.OptionalInt.empty(), false,
                Optional.of("ada"), false);
        TextBudget budget = new TextBudget();
        List<String> lines = new QueueAnswer(queue(20_000, "python sweep.py ✓", 0))
                .text(options, lines(rows -> rows.pending().size() + " pending"), budget).orElseThrow();
        StringBuilder expected = new StringBuilder("20000 pending\n");
        for (int i = 1; i <= 20_000; i++) {
            expected.append("… job ").append(i).append(" — python sweep.py ✓\n");
        }
        Answer.QueueText head = read(lines.get(0), Expect.QUEUE_TEXT);
        assertEquals(bytes(expected.toString()), head.bytes());
        StringBuilder text = new StringBuilder();
        for (int i = 1; i < lines.size(); i++) {
            String piece = lines.get(i) + "\n"; // the writer's bytes end each piece's last line
            assertTrue(i == lines.size() - 1 || bytes(piece) >= Protocol.TEXT_LINE_BYTES, "cut at the size: " + bytes(piece));
            assertTrue(bytes(piece) < Protocol.TEXT_LINE_BYTES + 200, "cut at the first slice's end past it: " + bytes(piece));
            text.append(piece);
        }
        assertTrue(lines.size() > 3, "several pieces: " + lines.size());
        assertEquals(expected.toString(), text.toString());
        assertTrue(lines.get(1) != lines.get(1) && lines.get(1).equals(lines.get(1)), "a piece is rendered when asked for,"
                + " the same text each time, and not kept");
        assertTrue(budget.held() > 0 && budget.held() < Protocol.TEXT_LINE_BYTES + 200, "one piece's share: " + budget.held());
        assertEquals(expected.toString(), written(lines));
        assertEquals(0, budget.held(), "every piece written: nothing held");
    }

    @Test
    void aTextOfAHundredThousandJobs_isAnsweredWithText_takingOnePiecesShareNotItsLength() {
        TextBudget budget = new TextBudget(1 << 20);
        // 100,000 rows of about 230 bytes: a 23 MB text, more than 20 times the budget.
        List<String> answer = new QueueAnswer(queue(100_000, "x".repeat(200), 0))
                .text(LIST, lines(rows -> "head"), budget).orElseThrow();
        long bytes = ((Answer.QueueText) read(answer.get(0), Expect.QUEUE_TEXT)).bytes();
        assertTrue(bytes > 20_000_000, "the whole text is counted: " + bytes);
        assertTrue(budget.held() < Protocol.TEXT_LINE_BYTES + 300, "held: " + budget.held());
        assertTrue(answer.size() > 300, "in pieces: " + answer.size());
        String last = answer.get(answer.size() - 1);
        assertTrue(last.endsWith("… job 100000 — " + "x".repeat(200)), last.substring(Math.max(0, last.length() - 300)));
        ((HeldAnswer) answer).release();
        assertEquals(0, budget.held());
    }

    private static final QueuePrinter EVERY_PENDING_ROW = lines(rows -> "queue");

    private static final Request.Text LIST = new Request.Text(false, Optional.empty(), java.util.OptionalInt.empty(),
            false, Optional.empty(), false);

    @Test
    void connectionsThatAskAndNeverRead_holdAtMostTheBudget_andAClosedOneGivesItsShareBack() {
        // Three answers' shares (a piece of 64 KiB and a slice), not three texts.
        TextBudget budget = new TextBudget(3 * (Protocol.TEXT_LINE_BYTES + 400));
        QueueAnswer a = new QueueAnswer(queue(5_000, "y".repeat(180), 0)); // about 1 MiB of text
        List<List<String>> unread = new ArrayList<>();
        for (int i = 0; i < 100; i++) { // a hostile user's connections, each asking and never reading
            a.text(LIST, EVERY_PENDING_ROW, budget).ifPresent(unread::add);
        }
        assertEquals(3, unread.size(), "answers held");
        assertTrue(budget.held() <= budget.total(), "held " + budget.held());
        assertTrue(a.text(LIST, EVERY_PENDING_ROW, budget).isEmpty(), "the next asker gets rows");
        ((HeldAnswer) unread.get(0)).release(); // its connection closed
        ((HeldAnswer) unread.get(0)).release(); // twice is once
        assertTrue(a.text(LIST, EVERY_PENDING_ROW, budget).isPresent(), "room again once one let go");
        unread.forEach(l -> ((HeldAnswer) l).release());
    }

    private static final Request.Text CHUNKS = LIST.withChunks(true);

    /** A printer whose text is {@code lines}, written a slice each, counting the slices written. */
    private static QueuePrinter slices(List<String> lines, java.util.concurrent.atomic.AtomicInteger written) {
        return (rows, text) -> new QueuePrinter.Text() {
            @Override
            public int slices() {
                return lines.size();
            }

            @Override
            public void write(int slice, java.io.OutputStream out) throws java.io.IOException {
                written.incrementAndGet();
                out.write(lines.get(slice).getBytes(StandardCharsets.UTF_8));
            }
        };
    }

    /** Reads a chunked answer's bytes as a client does: @return each chunk's text, checking its frame; the head is checked */
    private static List<String> chunks(List<String> answer) {
        java.util.Iterator<java.nio.ByteBuffer> it = ((QueueAnswer.ChunkedText) answer).chunks();
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        while (it.hasNext()) {
            java.nio.ByteBuffer b = it.next();
            all.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
        }
        byte[] bytes = all.toByteArray();
        String head = "{\"v\":1,\"ok\":true,\"text_chunks\":true}\n";
        assertEquals(head, new String(bytes, 0, head.length(), StandardCharsets.UTF_8));
        List<String> chunks = new ArrayList<>();
        int at = head.length();
        while (true) {
            int nl = at;
            while (bytes[nl] != '\n') {
                nl++;
            }
            int length = io.gpusched.protocol.QueueTextLines.chunkBytes(new String(bytes, at, nl - at, StandardCharsets.US_ASCII));
            assertTrue(length >= 0, "a length line");
            at = nl + 1;
            if (length == 0) {
                break;
            }
            assertEquals('\n', bytes[at + length - 1], "a chunk ends a line");
            chunks.add(new String(bytes, at, length, StandardCharsets.UTF_8));
            at += length;
        }
        assertEquals(bytes.length, at, "nothing after the 0");
        return chunks;
    }

    @Test
    void aTextInChunks_isTheTextTheCountedAnswerSends_renderedOnce_inPiecesOfAbout64KiB() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            lines.add("… job " + i + " — python sweep.py ✓ " + "z".repeat(i % 300) + "\n");
        }
        java.util.concurrent.atomic.AtomicInteger counted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger once = new java.util.concurrent.atomic.AtomicInteger();
        QueueAnswer a = new QueueAnswer(queue(3, "true", 0));
        TextBudget budget = new TextBudget();
        String whole = written(a.text(LIST, slices(lines, counted), budget).orElseThrow());
        List<String> answer = a.text(CHUNKS, slices(lines, once), budget).orElseThrow();
        assertEquals(QueueAnswer.ChunkedText.SHARE, budget.held(), "its share, taken before its head");
        List<String> chunks = chunks(answer);
        assertEquals(whole, String.join("", chunks));
        assertEquals(String.join("", lines), whole);
        assertEquals(2 * lines.size(), counted.get(), "the counted answer renders each slice twice");
        assertEquals(lines.size(), once.get(), "the chunked one once");
        for (int i = 0; i < chunks.size(); i++) {
            int b = bytes(chunks.get(i));
            assertTrue(i == chunks.size() - 1 || b >= Protocol.TEXT_LINE_BYTES, "a piece takes lines up to 64 KiB: " + b);
            assertTrue(b < Protocol.TEXT_LINE_BYTES + 400, "and one line more at most: " + b);
        }
        assertTrue(chunks.size() > 10, "chunks: " + chunks.size());
        assertEquals(0, budget.held(), "every chunk taken: its share given back");
    }

    @Test
    void anEmptyText_isTheZeroLineAlone_andATextOfOneLineOneChunk() {
        TextBudget budget = new TextBudget();
        QueueAnswer a = new QueueAnswer(queue(3, "true", 0));
        assertEquals(List.of(), chunks(a.text(CHUNKS, slices(List.of("", ""), new java.util.concurrent.atomic.AtomicInteger()),
                budget).orElseThrow()));
        assertEquals(List.of("one ✓\n"), chunks(a.text(CHUNKS, slices(List.of("", "one ✓\n", ""),
                new java.util.concurrent.atomic.AtomicInteger()), budget).orElseThrow()));
        assertEquals(0, budget.held());
    }

    @Test
    void aLineLongerThanAPiecesRoom_growsTheShareWhileTheBudgetHasIt_andOver1MiBIsCutAtALineEnd() {
        // Lines of 300 KiB: a piece of 64 KiB and one of them passes the share taken before the head.
        String big = "w".repeat(300 * 1024) + "\n";
        List<String> lines = List.of("first\n", big, big, big, big, "last\n");
        TextBudget budget = new TextBudget();
        List<String> answer = new QueueAnswer(queue(3, "true", 0)).text(CHUNKS, slices(lines,
                new java.util.concurrent.atomic.AtomicInteger()), budget).orElseThrow();
        java.util.Iterator<java.nio.ByteBuffer> it = ((QueueAnswer.ChunkedText) answer).chunks();
        it.next();
        it.next();
        assertTrue(((QueueAnswer.ChunkedText) answer).share() > QueueAnswer.ChunkedText.SHARE, "grown for the long line");
        assertEquals(((QueueAnswer.ChunkedText) answer).share(), budget.held());
        ((HeldAnswer) answer).release();
        assertEquals(0, budget.held());
        List<String> chunks = chunks(new QueueAnswer(queue(3, "true", 0)).text(CHUNKS, slices(lines,
                new java.util.concurrent.atomic.AtomicInteger()), budget).orElseThrow());
        assertEquals(String.join("", lines), String.join("", chunks));
        assertTrue(chunks.stream().allMatch(c -> bytes(c) <= io.gpusched.protocol.Answer.QueueTextChunks.MAX_CHUNK_BYTES),
                "each within 1 MiB");
        assertEquals(0, budget.held());
    }

    @Test
    void linesOfTensOfKiB_keepTheShareTakenBeforeTheHead() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            lines.add("t".repeat(20 * 1024 + i * 997) + "\n");
        }
        TextBudget budget = new TextBudget();
        List<String> answer = new QueueAnswer(queue(3, "true", 0)).text(CHUNKS, slices(lines,
                new java.util.concurrent.atomic.AtomicInteger()), budget).orElseThrow();
        java.util.Iterator<java.nio.ByteBuffer> it = ((QueueAnswer.ChunkedText) answer).chunks();
        StringBuilder text = new StringBuilder();
        it.next();
        while (it.hasNext()) {
            assertEquals(QueueAnswer.ChunkedText.SHARE, ((QueueAnswer.ChunkedText) answer).share(), "not grown");
            java.nio.ByteBuffer b = it.next();
            text.append(new String(b.array(), b.arrayOffset() + b.position(), b.remaining(), StandardCharsets.UTF_8));
        }
        assertTrue(text.toString().endsWith("\n0\n") && text.length() > 40 * 20 * 1024, "all of it: " + text.length());
        assertEquals(0, budget.held());
    }

    @Test
    void aChunkedTextThatCannotGoOn_throwsFromItsNextChunk_holdingNothingOnceReleased() {
        // A budget of one share: a line over the share's room cannot be held, so the text cannot go on.
        TextBudget budget = new TextBudget(QueueAnswer.ChunkedText.SHARE);
        List<String> answer = new QueueAnswer(queue(3, "true", 0)).text(CHUNKS, slices(List.of("a\n", "v".repeat(200_000)
                + "\n"), new java.util.concurrent.atomic.AtomicInteger()), budget).orElseThrow();
        assertTrue(new QueueAnswer(queue(3, "true", 0)).text(CHUNKS, EVERY_PENDING_ROW, budget).isEmpty(),
                "the next asker gets rows: the budget holds one share");
        java.util.Iterator<java.nio.ByteBuffer> it = ((QueueAnswer.ChunkedText) answer).chunks();
        it.next();
        assertThrows(IllegalStateException.class, it::next);
        ((HeldAnswer) answer).release();
        assertEquals(0, budget.held());
        // A line over 1 MiB is over any chunk's bound, whatever the budget.
        List<String> huge = new QueueAnswer(queue(3, "true", 0)).text(CHUNKS, slices(List.of("u".repeat(1 << 20) + "\n"),
                new java.util.concurrent.atomic.AtomicInteger()), new TextBudget()).orElseThrow();
        java.util.Iterator<java.nio.ByteBuffer> h = ((QueueAnswer.ChunkedText) huge).chunks();
        h.next();
        IllegalStateException e = assertThrows(IllegalStateException.class, h::next);
        assertTrue(e.getMessage().contains("1048576"), e.getMessage());
    }

    @Test
    void aTextAnswerWhosePrinterRefusesTheOptions_throwsItsWords() {
        QueuePrinter refusing = (rows, text) -> {
            throw new IllegalArgumentException("--format: unknown field %Z");
        };
        Request.Text options = new Request.Text(true, Optional.of("%Z"), java.util.OptionalInt.empty(), false,
                Optional.empty(), false);
        TextBudget budget = new TextBudget();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new QueueAnswer(queue(3, "true", 0)).text(options, refusing, budget));
        assertEquals("--format: unknown field %Z", e.getMessage());
        assertEquals(0, budget.held(), "nothing taken");
    }

    @Test
    void aJobsWholeCommandComesInPartsThatJoinToIt() {
        String command = "echo " + "😀ab".repeat(30_000);
        QueueAnswer a = new QueueAnswer(queue(5, command, 0));
        List<String> lines = a.job(4).orElseThrow();
        Answer.Job head = read(lines.get(0), Expect.JOB);
        assertEquals(BoardList.PENDING, head.list());
        assertEquals(4, head.job().no());
        assertEquals(lines.size() - 1, head.parts());
        StringBuilder joined = new StringBuilder();
        lines.subList(1, lines.size()).forEach(l -> joined.append(QueueAnswerTest.<Answer.Part>read(l, Expect.PART).part()));
        assertEquals(command, joined.toString());
        assertTrue(a.job(99).isEmpty());
    }
}

package io.gpusched.service;

import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.protocol.Answer;
import io.gpusched.protocol.BoardList;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Request;
import io.gpusched.protocol.Row;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code queue} and {@code job} answers for one snapshot ({@code PROTOCOL.md}), every line far under
 * {@link Protocol#MAX_LINE_BYTES} whatever the queue holds: rows with their texts cut ({@link Row#listed}),
 * written by the {@link ProtocolCodec}, streamed over as many lines as they need, or as many as fit in one
 * line for a client that does not ask for a stream. Immutable once made. The one-line form is
 * rendered the first time it is asked for and kept, since every {@code gpusched top} and {@code queue}
 * between two rounds asks for the same snapshot; of the streamed form only where its lines are cut is
 * kept, and each line is rendered as it is written, so a 100,000-row answer never sits whole in the
 * daemon's heap (issue #27).
 */
final class QueueAnswer {
    /**
     * The most jobs a queue may hold for its {@code text} answer to be printed here: 20,000. The text is
     * rendered whole before its length is sent, so a larger queue would hold its text and a list view of
     * every row at once (at 100,000 queued that raised the daemon's resident memory from 253 to 308 MiB
     * over two {@code queue}s, bench/queue/queue_rss.sh 100000); a larger one is answered with its rows,
     * streamed, which the client prints itself, as it does for a daemon without a printer.
     */
    static final int TEXT_MOST_ROWS = 20_000;

    private static final ProtocolCodec CODEC = new ProtocolCodec();

    private final QueueSnapshot snapshot;
    /** The answer before, whose cuts this one reuses for the lists that did not change. */
    private volatile Optional<QueueAnswer> before;
    private volatile List<String> streamed;
    /** Each list's cuts as {@link #streamed} measured them. */
    private volatile Map<BoardList, Cuts> cuts;
    private volatile String oneLine;

    /**
     * Where a list's rows are cut into lines: line {@code k} holds rows {@code [starts[k], starts[k+1])}
     * ({@code rows.size()} for the last). Kept instead of the lines themselves: four bytes a line, where
     * the lines were the answer's whole text (about 200 bytes a row, 20 MB at 100,000 queued) kept
     * between rounds and never given back to the system by the daemon's heap (issue #27).
     */
    private record Cuts(List<?> rows, int[] starts) {
    }

    /**
     * @param snapshot what it answers
     * @param before the answer for the snapshot before: the scheduler hands out the same list object
     *     while a list does not change (the pending queue of a busy GPU), and its rows are not measured
     *     again; empty for none
     */
    QueueAnswer(QueueSnapshot snapshot, Optional<QueueAnswer> before) {
        this.snapshot = snapshot;
        this.before = before;
    }

    QueueAnswer(QueueSnapshot snapshot) {
        this(snapshot, Optional.empty());
    }

    /** @return whether this answers that very snapshot (the scheduler publishes a new object when it changes) */
    boolean answers(QueueSnapshot s) {
        return snapshot == s;
    }

    /**
     * The streamed answer: a head line with the snapshot's fields and every list empty, {@code rows}
     * (each list's length) and {@code lines} (how many lines of rows follow), then those lines, each
     * {@code {"v":1,"list":"pending","rows":[...]}}, the lists in {@link BoardList} order and each list's
     * rows in its order. Each line of rows is rendered when it is asked for ({@link List#get} or an
     * iterator) and not kept, so a writer that takes one line at a time holds one line's text, not the
     * answer's; asking twice renders twice (the same text).
     */
    List<String> streamed() {
        List<String> s = streamed;
        if (s == null) {
            s = measureStreamed();
            streamed = s;
        }
        return s;
    }

    private List<String> measureStreamed() {
        Map<BoardList, Integer> counts = new EnumMap<>(BoardList.class);
        Map<BoardList, Cuts> byList = new EnumMap<>(BoardList.class);
        Optional<QueueAnswer> prior = before;
        before = Optional.empty(); // kept only until measured, so answers do not chain back forever
        List<BoardList> lineList = new ArrayList<>();
        List<Integer> lineNo = new ArrayList<>();
        for (BoardList list : BoardList.values()) {
            List<?> rows = rows(snapshot.board(), list);
            counts.put(list, rows.size());
            Cuts c = prior.flatMap(p -> p.cutsIfSame(list, rows)).orElseGet(() -> new Cuts(rows, measure(list, rows)));
            byList.put(list, c);
            for (int k = 0; k < c.starts().length; k++) {
                lineList.add(list);
                lineNo.add(k);
            }
        }
        cuts = byList;
        QueueView head = QueueView.listed(snapshot, QueueView.Board.EMPTY);
        String headLine = CODEC.encode(Answer.Queue.streamedHead(head, counts, lineList.size()));
        BoardList[] lists = lineList.toArray(new BoardList[0]);
        int[] nos = lineNo.stream().mapToInt(Integer::intValue).toArray();
        return new java.util.AbstractList<>() {
            @Override
            public String get(int i) {
                if (i == 0) {
                    return headLine;
                }
                Cuts c = byList.get(lists[i - 1]);
                int k = nos[i - 1];
                int to = k + 1 < c.starts().length ? c.starts()[k + 1] : c.rows().size();
                return renderLine(lists[i - 1], c.rows(), c.starts()[k], to);
            }

            @Override
            public int size() {
                return lists.length + 1;
            }
        };
    }

    /**
     * @return this answer if its rows are measured, else the one it would reuse: what the next
     *     snapshot's answer should reuse, so no chain of unmeasured answers grows
     */
    Optional<QueueAnswer> rendered() {
        return cuts != null ? Optional.of(this) : before;
    }

    /** @return this answer's cuts for {@code list}, when measured and of that very list object */
    private Optional<Cuts> cutsIfSame(BoardList list, List<?> rows) {
        Map<BoardList, Cuts> m = cuts;
        return m != null && m.get(list).rows() == rows ? Optional.of(m.get(list)) : Optional.empty();
    }

    /** @return whether this answer's cuts of {@code list} are {@code other}'s very object (reused, not measured again) */
    boolean cutsSameAs(QueueAnswer other, BoardList list) {
        Map<BoardList, Cuts> mine = cuts;
        Map<BoardList, Cuts> theirs = other.cuts;
        return mine != null && theirs != null && mine.get(list) == theirs.get(list);
    }

    /**
     * Where a list's rows are cut into lines of {@code {"v":1,"list":...,"rows":[...]}}, each about
     * {@link Protocol#ROWS_LINE_CHARS}: a line takes rows while its text stays within that, and at
     * least one. What the codec writes for {@link Answer.Rows}, put together from each row's JSON so a
     * line is cut by its length; {@link #renderLine} writes the lines these cuts say.
     */
    private static int[] measure(BoardList list, List<?> rows) {
        int startChars = CODEC.rowsLineStart(list).length();
        int[] starts = new int[8];
        int lines = 0;
        long length = startChars;
        int inLine = 0;
        for (int i = 0; i < rows.size(); i++) {
            int json = CODEC.encode(Row.listed(rows.get(i))).length();
            if (inLine > 0 && length + json > Protocol.ROWS_LINE_CHARS) {
                inLine = 0;
                length = startChars;
            }
            if (inLine == 0) {
                if (lines == starts.length) {
                    starts = java.util.Arrays.copyOf(starts, lines * 2);
                }
                starts[lines++] = i;
            } else {
                length++; // the comma
            }
            length += json;
            inLine++;
        }
        return java.util.Arrays.copyOf(starts, lines);
    }

    /** @return whether a {@code text} answer is printed here: the queue holds at most {@link #TEXT_MOST_ROWS} jobs */
    boolean printsText() {
        return rows() <= TEXT_MOST_ROWS;
    }

    /** @return how many jobs the snapshot lists, running, pending, done and earlier, interrupted included */
    private int rows() {
        io.gpusched.event.StatusBoard b = snapshot.board();
        return b.running().size() + b.pending().size() + b.done().size() + b.earlier().size() + b.interrupted().size();
    }

    /**
     * The queue as the asking client prints it ({@link Request.Text}), rendered here by {@code printer}:
     * a head line {@code {"v":1,"ok":true,"text_bytes":N}}, then the text itself, N bytes of UTF-8
     * lines each ended by {@code \n}, which the client copies to its output without decoding a byte
     * (issue #27). Returned as the lines the service writes, each with its line end left off: the text
     * in pieces of about {@link Protocol#TEXT_LINE_BYTES}, each cut after a line end. Rendered whole before
     * the head (a table's columns are as wide as their widest cell), held as UTF-8 until written, each
     * piece let go once taken, and never kept for another request: each asks with its own options.
     * Its bytes are counted by {@code budget} until written or released ({@link HeldAnswer}).
     *
     * @return empty when the text is longer than the budget's {@link TextBudget#perAnswer()} or would
     *     pass its {@link TextBudget#total()}: the caller answers rows instead
     * @throws IllegalArgumentException when the printer refuses the options (the client's {@code bad_request})
     */
    Optional<List<String>> text(Request.Text options, QueuePrinter printer, TextBudget budget) {
        TextPieces pieces = new TextPieces(budget.perAnswer());
        try {
            printer.print(QueueView.listed(snapshot), options, pieces);
        } catch (TextPieces.TooLong e) {
            return Optional.empty();
        }
        List<byte[]> texts = pieces.finish();
        long bytes = 0;
        for (byte[] t : texts) {
            bytes += t.length;
        }
        if (!budget.take(bytes)) {
            return Optional.empty();
        }
        return Optional.of(new HeldText(CODEC.encode(new Answer.QueueText(bytes)), texts, budget));
    }

    /** A text answer's head and pieces, each piece's bytes given back to the budget once taken or released. */
    private static final class HeldText extends java.util.AbstractList<String> implements HeldAnswer {
        private final String headLine;
        private final java.util.concurrent.atomic.AtomicReferenceArray<byte[]> held;
        private final TextBudget budget;

        HeldText(String headLine, List<byte[]> texts, TextBudget budget) {
            this.headLine = headLine;
            this.held = new java.util.concurrent.atomic.AtomicReferenceArray<>(texts.toArray(new byte[0][]));
            this.budget = budget;
        }

        @Override
        public String get(int i) {
            if (i == 0) {
                return headLine;
            }
            byte[] text = held.getAndSet(i - 1, null); // let go once taken: the writer takes each once
            if (text == null) {
                throw new IllegalStateException("piece " + i + " of a text answer was taken already");
            }
            budget.giveBack(text.length);
            return new String(text, 0, text.length - 1, StandardCharsets.UTF_8); // its line end is the writer's
        }

        @Override
        public int size() {
            return held.length() + 1;
        }

        @Override
        public void release() {
            for (int i = 0; i < held.length(); i++) {
                byte[] text = held.getAndSet(i, null);
                if (text != null) {
                    budget.giveBack(text.length);
                }
            }
        }
    }

    /**
     * The printer's output cut into pieces after the first line end at or past
     * {@link Protocol#TEXT_LINE_BYTES} (lines of text are short: a list view's cut texts in at most
     * {@code QueueFormat}'s columns), each piece ending in a line end.
     */
    static final class TextPieces extends java.io.OutputStream {
        /** The text passed its cap: rendering stops, and the answer is rows instead. */
        static final class TooLong extends RuntimeException {
            private static final long serialVersionUID = 1L;

            TooLong() {
                super(null, null, false, false);
            }
        }

        private final long cap;
        private long written;
        private final List<byte[]> pieces = new ArrayList<>();

        /** @param cap the most bytes the text may be; past it a write throws {@link TooLong} */
        TextPieces(long cap) {
            this.cap = cap;
        }

        private void count(long n) {
            written += n;
            if (written > cap) {
                throw new TooLong();
            }
        }
        private java.io.ByteArrayOutputStream current = new java.io.ByteArrayOutputStream(Protocol.TEXT_LINE_BYTES + 4096);

        @Override
        public void write(int b) {
            count(1);
            current.write(b);
            if (b == '\n' && current.size() >= Protocol.TEXT_LINE_BYTES) {
                cut();
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count(len);
            int from = off;
            int end = off + len;
            // Whole where no cut falls (a page of short lines at a time); else up to each line end past the size.
            while (from < end) {
                int nl = -1;
                if (current.size() + (end - from) >= Protocol.TEXT_LINE_BYTES) {
                    int at = Math.max(from, from + Protocol.TEXT_LINE_BYTES - current.size() - 1);
                    for (int i = at; i < end; i++) {
                        if (b[i] == '\n') {
                            nl = i;
                            break;
                        }
                    }
                }
                if (nl < 0) {
                    current.write(b, from, end - from);
                    return;
                }
                current.write(b, from, nl + 1 - from);
                cut();
                from = nl + 1;
            }
        }

        private void cut() {
            pieces.add(current.toByteArray());
            current = new java.io.ByteArrayOutputStream(Protocol.TEXT_LINE_BYTES + 4096);
        }

        /** @return the pieces, in order, each ending in a line end (one is added to text that lacks it); none for no text */
        List<byte[]> finish() {
            if (current.size() > 0) {
                byte[] last = current.toByteArray();
                if (last[last.length - 1] != '\n') {
                    current.write('\n');
                }
                cut();
            }
            return pieces;
        }
    }

    /** One line of rows: {@code rows[from, to)} of {@code list}, as {@link #measure} cut them. */
    private static String renderLine(BoardList list, List<?> rows, int from, int to) {
        StringBuilder line = new StringBuilder(Protocol.ROWS_LINE_CHARS + 64).append(CODEC.rowsLineStart(list));
        for (int i = from; i < to; i++) {
            if (i > from) {
                line.append(',');
            }
            line.append(CODEC.encode(Row.listed(rows.get(i))));
        }
        return line.append(ProtocolCodec.ROWS_LINE_END).toString();
    }

    /**
     * The one-line answer: the snapshot with, of each list, the rows that fit in
     * {@link Protocol#ONE_LINE_ROWS_BYTES} all together: the running jobs first, then the newest
     * finished ones (in a quarter of the room at most), then the head of the pending queue, then the
     * interrupted; and {@code left_out}: how many rows of each list did not fit, present only when
     * some did not.
     */
    String oneLine() {
        String s = oneLine;
        if (s == null) {
            s = renderOneLine();
            oneLine = s;
        }
        return s;
    }

    private String renderOneLine() {
        long room = Protocol.ONE_LINE_ROWS_BYTES;
        long finishedRoom = Protocol.ONE_LINE_ROWS_BYTES / 4;
        Map<BoardList, Integer> leftOut = new EnumMap<>(BoardList.class);
        Map<BoardList, List<Row>> kept = new EnumMap<>(BoardList.class);
        for (BoardList list : List.of(BoardList.RUNNING, BoardList.DONE, BoardList.EARLIER, BoardList.PENDING,
                BoardList.INTERRUPTED)) {
            List<?> rows = rows(snapshot.board(), list);
            // Finished jobs: the newest are the ones worth showing.
            boolean finished = list == BoardList.DONE || list == BoardList.EARLIER;
            List<Row> fit = new ArrayList<>();
            for (int i = 0; i < rows.size(); i++) {
                Row row = Row.listed(rows.get(finished ? rows.size() - 1 - i : i));
                long bytes = CODEC.encode(row).getBytes(StandardCharsets.UTF_8).length + 1;
                if (bytes > room || finished && bytes > finishedRoom) {
                    break;
                }
                room -= bytes;
                finishedRoom -= finished ? bytes : 0;
                fit.add(row);
            }
            if (finished) {
                java.util.Collections.reverse(fit);
            }
            kept.put(list, fit);
            if (fit.size() < rows.size()) {
                leftOut.put(list, rows.size() - fit.size());
            }
        }
        QueueView.Board board = new QueueView.Board(cast(kept.get(BoardList.RUNNING)), cast(kept.get(BoardList.PENDING)),
                cast(kept.get(BoardList.DONE)), cast(kept.get(BoardList.EARLIER)), cast(kept.get(BoardList.INTERRUPTED)));
        return CODEC.encode(Answer.Queue.oneLine(QueueView.listed(snapshot, board), leftOut));
    }

    /** The rows of one list, all of the type the list holds ({@link Row#listed} of that list's rows). */
    @SuppressWarnings("unchecked")
    private static <R extends Row> List<R> cast(List<Row> rows) {
        return (List<R>) (List<?>) rows;
    }

    /**
     * The {@code job} answer: the job's row ({@code list} names where it is) with its texts cut as a
     * list view's, and {@code parts}: how many lines follow, each {@code {"v":1,"part":"..."}}, whose
     * parts joined are its whole command.
     *
     * @param no a job's number
     * @return the lines; empty when no list of the snapshot holds the job
     */
    Optional<List<String>> job(int no) {
        for (BoardList list : BoardList.values()) {
            for (Object o : rows(snapshot.board(), list)) {
                if (no(o) == no) {
                    Row row = Row.listed(o);
                    List<String> out = new ArrayList<>();
                    String command = command(o);
                    int part = Protocol.COMMAND_PART_CHARS;
                    for (int at = 0; at < command.length(); ) {
                        int end = Math.min(command.length(), at + part);
                        if (end < command.length() && Character.isHighSurrogate(command.charAt(end - 1))) {
                            end--; // a pair stays in one part
                        }
                        out.add(CODEC.encode(new Answer.Part(command.substring(at, end))));
                        at = end;
                    }
                    out.add(0, CODEC.encode(new Answer.Job(list, row, out.size())));
                    return Optional.of(out);
                }
            }
        }
        return Optional.empty();
    }

    static List<?> rows(StatusBoard b, BoardList list) {
        return switch (list) {
            case RUNNING -> b.running();
            case PENDING -> b.pending();
            case DONE -> b.done();
            case EARLIER -> b.earlier();
            case INTERRUPTED -> b.interrupted();
        };
    }

    /** A board row's number, whichever list it is of. */
    private static int no(Object row) {
        if (row instanceof StatusBoard.Running r) {
            return r.no();
        } else if (row instanceof StatusBoard.Pending p) {
            return p.no();
        } else if (row instanceof io.gpusched.model.JobResult j) {
            return j.no();
        }
        return ((StatusBoard.Interrupted) row).no();
    }

    /** A board row's whole command, whichever list it is of. */
    private static String command(Object row) {
        if (row instanceof StatusBoard.Running r) {
            return r.command();
        } else if (row instanceof StatusBoard.Pending p) {
            return p.command();
        } else if (row instanceof io.gpusched.model.JobResult j) {
            return j.command();
        }
        return ((StatusBoard.Interrupted) row).command();
    }
}

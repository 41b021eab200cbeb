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

    /**
     * The queue as the asking client prints it ({@link Request.Text}), printed here by {@code printer}:
     * a head line {@code {"v":1,"ok":true,"text_bytes":N}}, then the text itself, N bytes of UTF-8
     * lines each ended by {@code \n}, which the client copies to its output without decoding a byte
     * (issue #27). Whatever the queue's length, the text never lies whole in the daemon's heap: the
     * printer measures what its layout needs, then its slices are written once into a counter (N) and
     * once more, in pieces of about {@link Protocol#TEXT_LINE_BYTES}, each rendered when the writer asks
     * for it ({@link TextAnswer}), from the snapshot's immutable rows, each row made as it is read. Each
     * answer takes its {@link #share} of {@code budget} until written or released ({@link HeldAnswer}).
     *
     * @return empty when the answer's share would pass the budget's {@link TextBudget#total()}: the
     *     caller answers rows instead
     * @throws IllegalArgumentException when the printer refuses the options (the client's {@code bad_request})
     */
    Optional<List<String>> text(Request.Text options, QueuePrinter printer, TextBudget budget) {
        QueuePrinter.Text text = printer.print(printed(snapshot), options);
        if (options.chunks()) {
            return ChunkedText.of(text, budget);
        }
        int slices = text.slices();
        // Where each piece starts (a slice index), and the text's length: the counting pass.
        Counter counter = new Counter();
        int[] starts = new int[8];
        int pieces = 0;
        long bytes = 0;
        long piece = 0;
        long longestSlice = 0;
        for (int k = 0; k < slices; k++) {
            counter.n = 0;
            writeSlice(text, k, counter);
            if (counter.n == 0) {
                continue;
            }
            if (pieces == 0 || piece >= Protocol.TEXT_LINE_BYTES) {
                if (pieces == starts.length) {
                    starts = java.util.Arrays.copyOf(starts, pieces * 2);
                }
                starts[pieces++] = k;
                piece = 0;
            }
            piece += counter.n;
            bytes += counter.n;
            longestSlice = Math.max(longestSlice, counter.n);
        }
        long share = share(longestSlice);
        if (!budget.take(share)) {
            return Optional.empty();
        }
        return Optional.of(new TextAnswer(CODEC.encode(new Answer.QueueText(bytes)), text,
                java.util.Arrays.copyOf(starts, pieces), slices, share, budget));
    }

    /**
     * @param longestSlice the longest slice of a text, in bytes
     * @return the most a text answer holds rendered and unwritten at once: one piece, which takes slices
     *     while it is under {@link Protocol#TEXT_LINE_BYTES}, so is at most that and one slice more
     */
    static long share(long longestSlice) {
        return Protocol.TEXT_LINE_BYTES + longestSlice;
    }

    /** The snapshot as a printer reads it: each list a view of the snapshot's rows, each made when read. */
    static QueuePrinter.Rows printed(QueueSnapshot s) {
        StatusBoard b = s.board();
        return new QueuePrinter.Rows(QueueView.listed(s, QueueView.Board.EMPTY), listedView(b.running()),
                listedView(b.pending()), listedView(b.done()), listedView(b.earlier()), listedView(b.interrupted()));
    }

    /**
     * A board list as list-view rows, each made by {@link Row#listed} when read and not kept: a view of
     * an immutable list (the snapshot's), so reading it twice reads the same rows.
     */
    private static <R extends Row> List<R> listedView(List<?> rows) {
        return new java.util.AbstractList<>() {
            @Override
            @SuppressWarnings("unchecked")
            public R get(int i) {
                return (R) Row.listed(rows.get(i));
            }

            @Override
            public int size() {
                return rows.size();
            }
        };
    }

    private static void writeSlice(QueuePrinter.Text text, int k, java.io.OutputStream out) {
        try {
            text.write(k, out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e); // only memory is written here: it cannot fail
        }
    }

    /** Counts what is written, keeps nothing. */
    private static final class Counter extends java.io.OutputStream {
        long n;

        @Override
        public void write(int b) {
            n++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            n += len;
        }
    }

    /**
     * A text answer: its head line, then its pieces, piece {@code i} being slices
     * {@code [starts[i], starts[i+1])} rendered when asked for and not kept. Written through
     * {@link #bytes}, as bytes with their line ends (the pieces' lines are the text's own); as a list
     * of strings (each piece without its last line end, as the writer adds one) for tests. Its
     * {@link QueueAnswer#share} of the budget is given back when its last piece has been taken, or on
     * {@link #release()}, once.
     */
    static final class TextAnswer extends java.util.AbstractList<String> implements HeldAnswer, PiecedAnswer {
        private final String headLine;
        private final QueuePrinter.Text text;
        private final int[] starts;
        private final int slices;
        private final long share;
        private final TextBudget budget;
        private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();

        TextAnswer(String headLine, QueuePrinter.Text text, int[] starts, int slices, long share, TextBudget budget) {
            this.headLine = headLine;
            this.text = text;
            this.starts = starts;
            this.slices = slices;
            this.share = share;
            this.budget = budget;
        }

        /** @return how many pieces follow the head line */
        int pieces() {
            return starts.length;
        }

        /**
         * @param i 0 for the head line, else piece {@code i}
         * @return its bytes, line ends included
         */
        byte[] bytes(int i) {
            if (i == 0) {
                return (headLine + "\n").getBytes(StandardCharsets.UTF_8);
            }
            int to = i < starts.length ? starts[i] : slices;
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(Protocol.TEXT_LINE_BYTES + 4096);
            for (int k = starts[i - 1]; k < to; k++) {
                writeSlice(text, k, out);
            }
            return out.toByteArray();
        }

        @Override
        public String get(int i) {
            if (i == 0) {
                return headLine;
            }
            byte[] b = bytes(i);
            return new String(b, 0, b.length - 1, StandardCharsets.UTF_8);
        }

        @Override
        public int size() {
            return starts.length + 1;
        }

        /** The head line, then each piece rendered as it is taken; the share given back after the last. */
        @Override
        public java.util.Iterator<java.nio.ByteBuffer> chunks() {
            return new java.util.Iterator<>() {
                private int next;

                @Override
                public boolean hasNext() {
                    if (next <= starts.length) {
                        return true;
                    }
                    release(); // the last piece was taken, and is written before this is asked again
                    return false;
                }

                @Override
                public java.nio.ByteBuffer next() {
                    if (next > starts.length) {
                        throw new java.util.NoSuchElementException();
                    }
                    return java.nio.ByteBuffer.wrap(bytes(next++));
                }
            };
        }

        @Override
        public void release() {
            if (released.compareAndSet(false, true)) {
                budget.giveBack(share);
            }
        }
    }

    /**
     * A text answer in chunks ({@link Request.Text#chunks()}, {@link Answer.QueueTextChunks}): its head
     * line, then the text rendered once, a piece at a time as the writer takes them, each piece sent as
     * a chunk: its length in decimal and {@code \n}, then its bytes, whole lines; the line {@code 0}
     * after the last. Nothing is counted first, so the list layout is rendered in one pass (a table's
     * column widths are measured by the printer, before its first slice).
     *
     * <p>A piece takes slices while under {@link Protocol#TEXT_LINE_BYTES}, so is at most that and one
     * slice more; it is cut at a line's end to stay within {@link Answer.QueueTextChunks#MAX_CHUNK_BYTES},
     * the rest going into the next. Its share of the budget is taken before the head
     * ({@link #SHARE}: a piece and a slice of up to as much again) and grown when a piece needs more;
     * when the budget cannot grow it, or a line alone passes the chunk's bound, the answer cannot go on:
     * {@link #chunks()}' {@code next} throws and the connection is closed (its client says the daemon
     * went away in the middle of the text). Not thread-safe but for {@link #release()}: one writer takes
     * its pieces in order, each only after the one before was written.
     */
    static final class ChunkedText extends java.util.AbstractList<String> implements HeldAnswer, PiecedAnswer {
        /** The share an answer takes before its head: a piece, and room for a slice as long again. */
        static final long SHARE = 2L * Protocol.TEXT_LINE_BYTES;
        private static final byte[] END = {'0', '\n'};
        private static final String HEAD_LINE = io.gpusched.protocol.QueueTextLines.TEXT_CHUNKS_HEAD;

        private final QueuePrinter.Text text;
        private final int slices;
        private final TextBudget budget;
        /** The share held now; 0 once given back. Guarded by {@code this}. */
        private long share;
        private boolean released;
        /** The next slice to render. */
        private int next;
        /** The text rendered past the last chunk's cut: the start of the next piece. */
        private byte[] carry = new byte[0];
        private boolean ended;

        private ChunkedText(QueuePrinter.Text text, TextBudget budget) {
            this.text = text;
            this.slices = text.slices();
            this.budget = budget;
            this.share = SHARE;
        }

        /** @return the answer, its {@link #SHARE} taken; empty when the budget cannot give it */
        static Optional<List<String>> of(QueuePrinter.Text text, TextBudget budget) {
            return budget.take(SHARE) ? Optional.of(new ChunkedText(text, budget)) : Optional.empty();
        }

        /** @return its head line; the text is written through {@link #chunks()} */
        @Override
        public String get(int i) {
            java.util.Objects.checkIndex(i, 1);
            return HEAD_LINE;
        }

        /** @return 1: its head line; the chunks after it are rendered as they are written */
        @Override
        public int size() {
            return 1;
        }

        /** @return the share of the budget held now */
        synchronized long share() {
            return share;
        }

        @Override
        public java.util.Iterator<java.nio.ByteBuffer> chunks() {
            return new java.util.Iterator<>() {
                private boolean head = true;

                @Override
                public boolean hasNext() {
                    if (head || !ended) {
                        return true;
                    }
                    release(); // the last chunk was taken, and is written before this is asked again
                    return false;
                }

                @Override
                public java.nio.ByteBuffer next() {
                    if (head) {
                        head = false;
                        return java.nio.ByteBuffer.wrap((HEAD_LINE + "\n").getBytes(StandardCharsets.UTF_8));
                    }
                    if (ended) {
                        throw new java.util.NoSuchElementException();
                    }
                    return nextChunk();
                }
            };
        }

        /** The next chunk, its length line before it; the line {@code 0} after it when it is the last. */
        private java.nio.ByteBuffer nextChunk() {
            Piece piece = new Piece(Piece.ROOM + Math.max(Protocol.TEXT_LINE_BYTES + 4096, carry.length + 4096));
            piece.write(carry, 0, carry.length);
            carry = new byte[0];
            while (piece.textBytes() < Protocol.TEXT_LINE_BYTES && next < slices) {
                writeSlice(text, next++, piece);
            }
            int length = piece.textBytes();
            if (length > Answer.QueueTextChunks.MAX_CHUNK_BYTES) {
                int cut = piece.lastLineEndWithin(Answer.QueueTextChunks.MAX_CHUNK_BYTES);
                if (cut == 0) {
                    throw new IllegalStateException("a line of the queue's text is over "
                            + Answer.QueueTextChunks.MAX_CHUNK_BYTES + " bytes, a chunk's bound");
                }
                carry = piece.tail(cut);
                length = cut;
            }
            hold(piece.capacity() + carry.length);
            boolean last = next == slices && carry.length == 0;
            if (last) {
                ended = true;
                piece.truncate(length);
                if (length > 0) {
                    piece.write(END, 0, END.length);
                }
            }
            if (length == 0) { // a text of no bytes: only its end
                return java.nio.ByteBuffer.wrap(END.clone());
            }
            return piece.framed(length, last ? END.length : 0);
        }

        /** Grows the share to {@code bytes} when it is less. */
        private synchronized void hold(long bytes) {
            if (released || bytes <= share) {
                return;
            }
            if (!budget.take(bytes - share)) {
                throw new IllegalStateException("the queue texts' budget cannot hold a piece of " + bytes + " bytes");
            }
            share = bytes;
        }

        @Override
        public synchronized void release() {
            if (!released) {
                released = true;
                budget.giveBack(share);
                share = 0;
            }
        }
    }

    /**
     * A piece of text rendered into one array, with {@link #ROOM} bytes free before it for its length
     * line (at most 7 digits and {@code \n}), so a chunk is written from the array it was rendered into.
     */
    private static final class Piece extends java.io.OutputStream {
        private static final int ROOM = io.gpusched.protocol.QueueTextLines.MAX_CHUNK_DIGITS + 1;
        private byte[] buf;
        private int end = ROOM;

        Piece(int capacity) {
            buf = new byte[capacity];
        }

        int textBytes() {
            return end - ROOM;
        }

        int capacity() {
            return buf.length;
        }

        @Override
        public void write(int b) {
            room(1);
            buf[end++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            room(len);
            System.arraycopy(b, off, buf, end, len);
            end += len;
        }

        private void room(int len) {
            if (end + len > buf.length) {
                // To what it needs and a little, not twice: the array is what the answer's share counts,
                // and a piece of 64 KiB and a line of a few KiB more stays within it.
                buf = java.util.Arrays.copyOf(buf, end + len + 4096);
            }
        }

        /** @return the length of the text up to and with its last line end within {@code bytes}; 0 for none */
        int lastLineEndWithin(int bytes) {
            for (int i = ROOM + Math.min(bytes, textBytes()) - 1; i >= ROOM; i--) {
                if (buf[i] == '\n') {
                    return i - ROOM + 1;
                }
            }
            return 0;
        }

        /** @return the text after its first {@code bytes}, which stays as it was */
        byte[] tail(int bytes) {
            return java.util.Arrays.copyOfRange(buf, ROOM + bytes, end);
        }

        void truncate(int bytes) {
            end = ROOM + bytes;
        }

        /**
         * @param length the chunk's text, in bytes: the text's first
         * @param after bytes after the chunk's text to send with it (the end's line)
         * @return the chunk: its length line, written into the room before the text, the text, and those bytes
         */
        java.nio.ByteBuffer framed(int length, int after) {
            byte[] digits = Integer.toString(length).getBytes(StandardCharsets.US_ASCII);
            int start = ROOM - digits.length - 1;
            System.arraycopy(digits, 0, buf, start, digits.length);
            buf[ROOM - 1] = '\n';
            return java.nio.ByteBuffer.wrap(buf, start, ROOM - start + length + after);
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

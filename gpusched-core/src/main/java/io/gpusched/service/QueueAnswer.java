package io.gpusched.service;

import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.protocol.Answer;
import io.gpusched.protocol.BoardList;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.QueueView;
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
 * line for a client that does not ask for a stream. Immutable once made; each form is rendered the
 * first time it is asked for and kept, since every {@code gpusched top} and {@code queue} between two
 * rounds asks for the same snapshot.
 */
final class QueueAnswer {
    private static final ProtocolCodec CODEC = new ProtocolCodec();

    private final QueueSnapshot snapshot;
    /** The answer before, whose lines of rows this one reuses for the lists that did not change. */
    private volatile Optional<QueueAnswer> before;
    private volatile List<String> streamed;
    /** Each list's lines of rows as {@link #streamed} rendered them. */
    private volatile Map<BoardList, List<String>> rowLines;
    private volatile String oneLine;

    /**
     * @param snapshot what it answers
     * @param before the answer for the snapshot before: the scheduler hands out the same list object
     *     while a list does not change (the pending queue of a busy GPU), and its rows are not rendered
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
     * rows in its order.
     */
    List<String> streamed() {
        List<String> s = streamed;
        if (s == null) {
            s = renderStreamed();
            streamed = s;
        }
        return s;
    }

    private List<String> renderStreamed() {
        List<String> out = new ArrayList<>();
        out.add(""); // the head, once the lines are counted
        Map<BoardList, Integer> counts = new EnumMap<>(BoardList.class);
        Map<BoardList, List<String>> byList = new EnumMap<>(BoardList.class);
        Optional<QueueAnswer> prior = before;
        before = Optional.empty(); // kept only until rendered, so answers do not chain back forever
        for (BoardList list : BoardList.values()) {
            List<?> rows = rows(snapshot.board(), list);
            counts.put(list, rows.size());
            List<String> lines = prior.flatMap(p -> p.rowLinesIfSame(list, rows)).orElseGet(() -> renderRows(list, rows));
            byList.put(list, lines);
            out.addAll(lines);
        }
        rowLines = byList;
        QueueView head = QueueView.listed(snapshot, QueueView.Board.EMPTY);
        out.set(0, CODEC.encode(Answer.Queue.streamedHead(head, counts, out.size() - 1)));
        return List.copyOf(out);
    }

    /**
     * @return this answer if its rows are rendered, else the one it would reuse: what the next
     *     snapshot's answer should reuse, so no chain of unrendered answers grows
     */
    Optional<QueueAnswer> rendered() {
        return rowLines != null ? Optional.of(this) : before;
    }

    /** @return this answer's lines of rows for {@code list}, when rendered and of that very list object */
    private Optional<List<String>> rowLinesIfSame(BoardList list, List<?> rows) {
        Map<BoardList, List<String>> m = rowLines;
        return m != null && rows(snapshot.board(), list) == rows ? Optional.of(m.get(list)) : Optional.empty();
    }

    /**
     * A list's rows as lines of {@code {"v":1,"list":...,"rows":[...]}}, each about
     * {@link Protocol#ROWS_LINE_CHARS}: what the codec writes for {@link Answer.Rows}, put together here
     * from each row's JSON so a line is cut by its length.
     */
    private static List<String> renderRows(BoardList list, List<?> rows) {
        List<String> out = new ArrayList<>();
        String start = CODEC.rowsLineStart(list);
        StringBuilder line = new StringBuilder(start);
        int inLine = 0;
        for (Object row : rows) {
            String json = CODEC.encode(Row.listed(row));
            if (inLine > 0 && line.length() + json.length() > Protocol.ROWS_LINE_CHARS) {
                out.add(line.append(ProtocolCodec.ROWS_LINE_END).toString());
                line = new StringBuilder(start);
                inLine = 0;
            }
            if (inLine > 0) {
                line.append(',');
            }
            line.append(json);
            inLine++;
        }
        if (inLine > 0) {
            out.add(line.append(ProtocolCodec.ROWS_LINE_END).toString());
        }
        return List.copyOf(out);
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

package io.gpusched.service;

import io.gpusched.model.JobResult;
import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code queue} and {@code job} answers for one snapshot ({@code PROTOCOL.md}), every line far under
 * {@link Protocol#MAX_LINE_BYTES} whatever the queue holds: rows with their texts cut
 * ({@link JsonEventWriter#listJson}), streamed over as many lines as they need, or as many as fit in one
 * line for a client that does not ask for a stream. Immutable once made; each form is rendered the
 * first time it is asked for and kept, since every {@code gpusched top} and {@code queue} between two
 * rounds asks for the same snapshot.
 */
final class QueueAnswer {
    /** The board's lists, in the order a streamed answer sends them. */
    static final List<String> LISTS = List.of("running", "pending", "done", "earlier", "interrupted");

    private final QueueSnapshot snapshot;
    /** The answer before, whose lines of rows this one reuses for the lists that did not change. */
    private volatile Optional<QueueAnswer> before;
    private volatile List<String> streamed;
    /** Each list's lines of rows as {@link #streamed} rendered them, by list name. */
    private volatile Map<String, List<String>> rowLines;
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
     * {@code {"v":1,"list":"pending","rows":[...]}}, the lists in {@link #LISTS} order and each list's
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
        Map<String, Object> counts = new LinkedHashMap<>();
        Map<String, List<String>> byList = new LinkedHashMap<>();
        Optional<QueueAnswer> prior = before;
        before = Optional.empty(); // kept only until rendered, so answers do not chain back forever
        for (String list : LISTS) {
            List<?> rows = rows(snapshot.board(), list);
            counts.put(list, rows.size());
            List<String> lines = prior.flatMap(p -> p.rowLinesIfSame(list, rows)).orElseGet(() -> renderRows(list, rows));
            byList.put(list, lines);
            out.addAll(lines);
        }
        rowLines = byList;
        Map<String, Object> head = head();
        head.put("snapshot", new Json.RawJson(list(withBoard(new StatusBoard(List.of(), List.of(), List.of())))));
        head.put("rows", counts);
        head.put("lines", out.size() - 1);
        out.set(0, Json.write(head));
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
    private Optional<List<String>> rowLinesIfSame(String list, List<?> rows) {
        Map<String, List<String>> m = rowLines;
        return m != null && rows(snapshot.board(), list) == rows ? Optional.of(m.get(list)) : Optional.empty();
    }

    /** A list's rows as lines of {@code {"v":1,"list":...,"rows":[...]}}, each about {@link Protocol#ROWS_LINE_CHARS}. */
    private static List<String> renderRows(String list, List<?> rows) {
        List<String> out = new ArrayList<>();
        String start = "{\"v\":" + Protocol.VERSION + ",\"list\":\"" + list + "\",\"rows\":[";
        StringBuilder line = new StringBuilder(start);
        int inLine = 0;
        for (Object row : rows) {
            String json = list(row);
            if (inLine > 0 && line.length() + json.length() > Protocol.ROWS_LINE_CHARS) {
                out.add(line.append("]}").toString());
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
            out.add(line.append("]}").toString());
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
        Map<String, Object> leftOut = new LinkedHashMap<>();
        Map<String, List<?>> kept = new LinkedHashMap<>();
        for (String list : List.of("running", "done", "earlier", "pending", "interrupted")) {
            List<?> rows = rows(snapshot.board(), list);
            // Finished jobs: the newest are the ones worth showing.
            boolean finished = list.equals("done") || list.equals("earlier");
            int n = 0;
            for (int i = 0; i < rows.size(); i++) {
                Object row = rows.get(finished ? rows.size() - 1 - i : i);
                long bytes = list(row).getBytes(StandardCharsets.UTF_8).length + 1;
                if (bytes > room || finished && bytes > finishedRoom) {
                    break;
                }
                room -= bytes;
                finishedRoom -= finished ? bytes : 0;
                n++;
            }
            kept.put(list, finished ? rows.subList(rows.size() - n, rows.size()) : rows.subList(0, n));
            if (n < rows.size()) {
                leftOut.put(list, rows.size() - n);
            }
        }
        @SuppressWarnings("unchecked")
        StatusBoard board = new StatusBoard((List<StatusBoard.Running>) kept.get("running"),
                (List<StatusBoard.Pending>) kept.get("pending"), (List<JobResult>) kept.get("done"),
                (List<JobResult>) kept.get("earlier"), (List<StatusBoard.Interrupted>) kept.get("interrupted"));
        Map<String, Object> head = head();
        head.put("snapshot", new Json.RawJson(list(withBoard(board))));
        if (!leftOut.isEmpty()) {
            Map<String, Object> ordered = new LinkedHashMap<>();
            LISTS.stream().filter(leftOut::containsKey).forEach(l -> ordered.put(l, leftOut.get(l)));
            head.put("left_out", ordered);
        }
        return Json.write(head);
    }

    /**
     * The {@code job} answer: the job's row ({@code list} names where it is) with its texts cut as a
     * list view's but longer, and {@code parts}: how many lines follow, each {@code {"v":1,"part":"..."}},
     * whose parts joined are its whole command.
     *
     * @param no a job's number
     * @return the lines; empty when no list of the snapshot holds the job
     */
    Optional<List<String>> job(int no) {
        for (String list : LISTS) {
            for (Object row : rows(snapshot.board(), list)) {
                if (Job.of(row).no() == no) {
                    List<String> out = new ArrayList<>();
                    String command = Job.of(row).command();
                    int part = Protocol.COMMAND_PART_CHARS;
                    for (int at = 0; at < command.length(); ) {
                        int end = Math.min(command.length(), at + part);
                        if (end < command.length() && Character.isHighSurrogate(command.charAt(end - 1))) {
                            end--; // a pair stays in one part
                        }
                        out.add(Json.write(Map.of("v", Protocol.VERSION, "part", command.substring(at, end))));
                        at = end;
                    }
                    Map<String, Object> head = head();
                    head.put("list", list);
                    head.put("job", new Json.RawJson(JsonEventWriter.listJson(row, Protocol.LIST_COMMAND_CHARS,
                            Protocol.LIST_TEXT_CHARS)));
                    head.put("parts", out.size());
                    out.add(0, Json.write(head));
                    return Optional.of(out);
                }
            }
        }
        return Optional.empty();
    }

    private static Map<String, Object> head() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", Protocol.VERSION);
        m.put("ok", true);
        return m;
    }

    private QueueSnapshot withBoard(StatusBoard board) {
        return new QueueSnapshot(snapshot.at(), board, snapshot.pausedGpus(), snapshot.orphans(), snapshot.gpus(),
                snapshot.memory());
    }

    private static String list(Object value) {
        return JsonEventWriter.listJson(value, Protocol.LIST_COMMAND_CHARS, Protocol.LIST_TEXT_CHARS);
    }

    static List<?> rows(StatusBoard b, String list) {
        return switch (list) {
            case "running" -> b.running();
            case "pending" -> b.pending();
            case "done" -> b.done();
            case "earlier" -> b.earlier();
            case "interrupted" -> b.interrupted();
            default -> throw new IllegalArgumentException("no list " + list);
        };
    }

    /** A row's number and command, whichever list it is of. */
    private record Job(int no, String command) {
        static Job of(Object row) {
            if (row instanceof StatusBoard.Running r) {
                return new Job(r.no(), r.command());
            } else if (row instanceof StatusBoard.Pending p) {
                return new Job(p.no(), p.command());
            } else if (row instanceof JobResult j) {
                return new Job(j.no(), j.command());
            }
            StatusBoard.Interrupted i = (StatusBoard.Interrupted) row;
            return new Job(i.no(), i.command());
        }
    }
}

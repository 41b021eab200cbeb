package io.gpusched.engine.loop;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.event.TerminalText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Writes {@code status.txt} for each board it is handed (the scheduler hands them through
 * {@link PacedBoardWriter}: at most one every 100 ms), atomically (temp file + rename), so {@code watch cat}
 * never shows a half-written board. Best effort: a failed write is retried on the next round.
 * Next to it, {@code status.json} holds the same board for {@code gpusched status --json}:
 * {@code {"scheduler_pid": N, "finished": false, "interrupted": false, "status": <the status_updated event as
 * JsonEventWriter writes it>}}; {@code finished} turns true when the run ends, and {@code interrupted} too
 * when it was stopped before its queue drained. Both files are rewritten only when the board changed.
 *
 * <p>The rows' bytes are not kept in memory once written: a row's text and JSON stay in the files
 * written last, which this writer keeps open (its own descriptors of what it wrote, so a file deleted or
 * replaced meanwhile does not change them), and the next write copies the unchanged runs of rows from
 * there, in the kernel. At 100,000 queued the bytes are about 38 MB, a quarter of the daemon's live heap
 * when they were kept (bench/queue/queue_rss.sh 100000 with HISTO=1). Should a copy fail (a file
 * truncated under the writer), the write fails and the next board is rendered afresh.
 */
public final class StatusBoardWriter implements Consumer<SchedulerEvent> {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
    private final Path file;
    private final Path jsonFile;
    // The pending and done sections, text and JSON, are re-assembled only when the engine hands over
    // a different list (it reuses the same list while they are unchanged), and then from the rows
    // they kept: with 10,000 pending lines a section is megabytes, and lists change a row at a time.
    private final Section<StatusBoard.Pending> pending = new Section<>(StatusBoardWriter::pendingRow);
    private final Section<JobResult> done = new Section<>(StatusBoardWriter::doneRow);
    private final Section<JobResult> earlier = new Section<>(StatusBoardWriter::earlierRow);
    private String lastHead;
    // status.json is the status_updated event as JsonEventWriter writes it, assembled from the cached
    // parts: {"event":"status_updated","at":…,"board":{"running":…,"pending":…,"done":…}}
    private volatile List<Object> lastStatusJson = List.of(bytes("null"));
    /** The files written last, open: where the stored pieces' bytes are (at most one per file and generation in use). */
    private final List<FileChannel> open = new java.util.ArrayList<>();
    /** Whether a write since the board came failed because a file written last lost bytes of a piece. */
    private boolean sourceLost;

    /** @param file the board file, usually {@code <log-dir>/status.txt} */
    public StatusBoardWriter(Path file) {
        this.file = file;
        this.jsonFile = file.resolveSibling("status.json");
    }

    @Override
    public void accept(SchedulerEvent event) {
        if (event instanceof SchedulerEvent.StatusUpdated s) {
            StatusBoard b = s.board();
            boolean changed = pending.update(b.pending()) | done.update(b.done()) | earlier.update(b.earlier());
            String head = renderHead(s);
            if (changed || !head.equals(lastHead)) {
                lastStatusJson = parts(
                    bytes("{\"event\":\"status_updated\",\"at\":" + JsonEventWriter.valueToJson(s.at())
                            + ",\"board\":{\"running\":" + JsonEventWriter.valueToJson(b.running()) + ",\"pending\":"),
                    pending.json, bytes(",\"done\":"), done.json, bytes(",\"earlier\":"), earlier.json,
                    bytes(",\"interrupted\":" + JsonEventWriter.valueToJson(b.interrupted()) + "}}"));
                sourceLost = false;
                write(jsonFile, statusJson(false, false));
                if (write(file, parts(bytes(head), pending.text, done.text, earlier.text))) {
                    lastHead = head;
                } else if (changed) {
                    lastHead = null;
                }
                if (sourceLost) {
                    // A file written last no longer holds what this writer put there (truncated under it): the
                    // next board renders every row afresh rather than fail the same way again.
                    pending.forget();
                    done.forget();
                    earlier.forget();
                    lastHead = null;
                }
                closeUnused();
            }
        } else if (event instanceof SchedulerEvent.RunFinished f) {
            write(jsonFile, statusJson(true, f.summary().interrupted()));
            // The run is over and its last files are written: keep none of them open. An embedder runs
            // scheduler after scheduler in one JVM, and each would otherwise hold two descriptors for good
            // (HostileJobsTest counts them). A board after this one is rendered afresh.
            pending.forget();
            done.forget();
            earlier.forget();
            lastHead = null;
            lastStatusJson = List.of(bytes("null"));
            closeUnused();
        }
    }

    private List<Object> statusJson(boolean finished, boolean interrupted) {
        List<Object> parts = new java.util.ArrayList<>(lastStatusJson.size() + 2);
        parts.add(bytes("{\"scheduler_pid\":" + ProcessHandle.current().pid() + ",\"finished\":" + finished
                + ",\"interrupted\":" + interrupted + ",\"status\":"));
        parts.addAll(lastStatusJson);
        parts.add(bytes("}\n"));
        return parts;
    }

    /**
     * @return the bytes of rows this writer holds in memory (pieces not yet written, or whose write
     *     failed); the rest are in the files written last
     */
    long heldBytes() {
        long held = 0;
        for (Section<?> section : List.of(pending, done, earlier)) {
            for (Section.Chunk c : section.chunks) {
                held += c.text().heldBytes() + c.json().heldBytes();
            }
        }
        return held;
    }

    /** Closes the files no piece is in any more (the board and status.json's last parts name them all). */
    private void closeUnused() {
        java.util.Set<FileChannel> used = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Section<?> section : List.of(pending, done, earlier)) {
            for (Section.Chunk c : section.chunks) {
                c.text().fileIn(used);
                c.json().fileIn(used);
            }
        }
        for (Object p : lastStatusJson) {
            if (p instanceof Piece piece) {
                piece.fileIn(used);
            }
        }
        for (java.util.Iterator<FileChannel> i = open.iterator(); i.hasNext(); ) {
            FileChannel ch = i.next();
            if (!used.contains(ch)) {
                try {
                    ch.close();
                } catch (IOException e) {
                    // A read descriptor: nothing was written through it after its file was renamed into place.
                }
                i.remove();
            }
        }
    }

    public static String render(SchedulerEvent.StatusUpdated s) {
        StringBuilder out = new StringBuilder(renderHead(s)).append(render(s.board().pending(), s.board().done()));
        s.board().earlier().forEach(r -> out.append(earlierRow(r)));
        return out.toString();
    }

    private static String renderHead(SchedulerEvent.StatusUpdated s) {
        StatusBoard b = s.board();
        StringBuilder out = new StringBuilder();
        out.append("gpusched status @ ").append(TIME.format(s.at())).append(" — ")
                .append(b.running().size()).append(" running, ")
                .append(b.pending().size()).append(" pending, ")
                .append(b.done().size()).append(" done");
        if (!b.interrupted().isEmpty()) {
            out.append(", ").append(b.interrupted().size()).append(" interrupted");
        }
        if (!b.earlier().isEmpty()) {
            out.append(", ").append(b.earlier().size()).append(" ended in an earlier run");
        }
        out.append('\n');
        for (StatusBoard.Running r : b.running()) {
            String state = r.stopping().map(w -> switch (w) {
                case CANCELLED -> " (cancelling…)";
                case TIMEOUT -> " (timing out…)";
                case SHUTDOWN -> " (stopping…)";
                case PREEMPTED -> " (preempting…)";
                case TIME_SLICE -> " (time slice over…)";
            }).orElse("");
            // Appends, not String.format: the head is rendered every round, which may be 20 times a second.
            out.append("▶ job ");
            padRight(out, String.valueOf(r.no()), 3);
            out.append(" gpu[").append(join(r.gpus())).append("] ");
            padLeft(out, String.valueOf(r.elapsed().toSeconds()), 5);
            out.append("s  ").append(usage(r.currentMib())).append(" MiB (peak ").append(r.peakMib()).append(')');
            r.rule().ifPresent(rule -> out.append(" declared ").append(r.declaredMib().orElse(0)).append(" (rule \"")
                    .append(TerminalText.escape(rule)).append("\")"));
            // Users' text is escaped (TerminalText): the board is read with watch cat and gpusched status.
            out.append(state).append(" — ").append(TerminalText.escape(r.command())).append(System.lineSeparator());
        }
        for (StatusBoard.Interrupted r : b.interrupted()) {
            out.append("⏹ job ");
            padRight(out, String.valueOf(r.no()), 3);
            out.append(" gpu[").append(join(r.gpus())).append("] interrupted after ").append(r.elapsed().toSeconds())
                    .append("s; runs again on restart — ").append(TerminalText.escape(r.command()))
                    .append(System.lineSeparator());
        }
        return out.toString();
    }

    private static void padRight(StringBuilder out, String text, int width) {
        out.append(text);
        for (int i = text.length(); i < width; i++) {
            out.append(' ');
        }
    }

    private static void padLeft(StringBuilder out, String text, int width) {
        for (int i = text.length(); i < width; i++) {
            out.append(' ');
        }
        out.append(text);
    }

    public static String render(List<StatusBoard.Pending> pending, List<JobResult> done) {
        StringBuilder out = new StringBuilder();
        pending.forEach(p -> out.append(pendingRow(p)));
        done.forEach(r -> out.append(doneRow(r)));
        return out.toString();
    }

    // The rows are appended, not String.format'ed: a board renders every pending row once, and the
    // formatter's parse of its pattern cost more than the rest of a row (a queue of 10,000 new lines).
    static String pendingRow(StatusBoard.Pending p) {
        StringBuilder out = rowStart(p.attempts() > 0 ? "↻" : "·", p.no()).append(" pending");
        if (p.declaredMib().isPresent()) {
            out.append(" vram ").append(p.declaredMib().getAsLong());
            if (p.rule().isPresent()) { // not ifPresent: its lambda would be made for every declared row
                out.append(" (rule \"").append(TerminalText.escape(p.rule().get())).append("\")");
            }
        }
        if (p.attempts() > 0) {
            out.append(" retry ").append(p.attempts());
        }
        if (!p.reason().isEmpty()) {
            out.append(" [").append(TerminalText.escape(p.reason())).append(']');
        }
        return rowEnd(out, p.command());
    }

    /** {@code MARK job NO} with the number padded to 3 characters, as {@code %s job %-3d}. */
    private static StringBuilder rowStart(String mark, int no) {
        StringBuilder out = new StringBuilder(96).append(mark).append(" job ");
        padRight(out, Integer.toString(no), 3);
        return out;
    }

    /** {@code  — COMMAND} and the line's end. */
    private static String rowEnd(StringBuilder out, String command) {
        return out.append(" — ").append(TerminalText.escape(command)).append(System.lineSeparator()).toString();
    }

    private static String doneRow(JobResult r) {
        return endedRow(r, "");
    }

    private static String earlierRow(JobResult r) {
        return endedRow(r, ", earlier run");
    }

    static String endedRow(JobResult r, String when) {
        String mark = r.status() == JobStatus.CANCELLED ? "⊘" : (r.status() == JobStatus.OK ? "✓" : "✗");
        if (r.measurement() == io.gpusched.model.Measurement.NOT_RUN) {
            String what = r.status() == JobStatus.CANCELLED ? "cancelled before start" : r.status().journalName();
            return rowEnd(rowStart(mark, r.no()).append(' ').append(what).append(" (never ran").append(when).append(')'),
                    r.command());
        }
        String verdict = r.status() == JobStatus.OK ? describe(r.verdict()) : r.status().journalName();
        String peak = peakWords(r);
        String cause = r.cause().map(c -> ", " + TerminalText.escape(c)).orElse("");
        return rowEnd(rowStart(mark, r.no()).append(' ').append(verdict).append(" (exit ").append(r.exitCode()).append(cause)
                .append(", peak ").append(peak).append(when).append(')'), r.command());
    }

    /** An ended row's peak: its MiB where it was attributed, else why there is none. */
    static String peakWords(JobResult r) {
        return r.attributed() ? r.overallPeakMib() + " MiB" : switch (r.measurement()) {
            case NONE_SEEN -> "none seen";
            case UNWATCHED -> "n/a, ended unwatched";
            case NOT_VISIBLE -> "n/a, processes not visible";
            case MEASURED, NOT_RUN -> "n/a";
        };
    }

    /** In the log's words: a peak over the declaration means the job was under-declared. */
    static String describe(io.gpusched.model.Verdict v) {
        return switch (v) {
            case OVER -> "ok, under-declared";
            case UNDER -> "ok, over-declared";
            case WITHIN, NOT_JUDGED, UNATTRIBUTED -> "ok";
        };
    }

    private static String join(java.util.List<Integer> gpus) {
        StringBuilder out = new StringBuilder();
        for (int g : gpus) {
            out.append(out.length() == 0 ? "" : ",").append(g);
        }
        return out.toString();
    }

    private static String usage(Map<Integer, Long> current) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<Integer, Long> e : new java.util.TreeMap<>(current).entrySet()) {
            out.append(out.length() == 0 ? "" : ", ").append("gpu").append(e.getKey()).append(':').append(e.getValue());
        }
        return out.toString();
    }

    /**
     * One list section of the board as status.txt and status.json show it, UTF-8, kept as chunks of
     * rows: a chunk ends after a row whose identity hash says so (about one in {@link #CHUNK}), so where
     * chunks end depends on the rows, not their positions, and a job that joins or leaves changes the
     * one chunk it is in. An update reuses every chunk whose rows are the same objects in the same order
     * (the engine hands over the same row objects for unchanged rows), and makes the others from the
     * last rows' bytes where it finds them nearby, else by rendering the row. With 100,000 rows a board
     * after one submission then costs a few chunks, not the whole section's bytes again; the files are
     * written from the chunks as they are (a gathering write), with no copy of the whole.
     */
    private static final class Section<T> {
        /** The mean rows per chunk. */
        private static final int CHUNK = 256;
        private final java.util.function.Function<T, String> textRow;
        private List<T> of;
        private List<Chunk> chunks = List.of();
        /** The text parts, one piece per chunk. */
        List<Object> text = List.of();
        /** The JSON array: "[", the chunks' pieces with "," between them, "]". */
        List<Object> json = List.of(bytes("[]"));

        /** Rows, their text and JSON bytes back to back, and where each row's begin (and, at the end, where they end). */
        private record Chunk(Object[] rows, Piece text, int[] textAt, Piece json, int[] jsonAt) {
        }

        Section(java.util.function.Function<T, String> textRow) {
            this.textRow = textRow;
        }

        /** @return whether the list differs from the last one (by identity: the engine reuses it) */
        boolean update(List<T> list) {
            if (list == of) {
                return false;
            }
            Object[] rows = list.toArray();
            int n = rows.length;
            // The last chunks by their first row: where an unchanged run of chunks starts again.
            java.util.Map<Object, Integer> startsAt = new java.util.IdentityHashMap<>(chunks.size() * 2);
            for (int c = 0; c < chunks.size(); c++) {
                startsAt.put(chunks.get(c).rows()[0], c);
            }
            List<Chunk> made = new java.util.ArrayList<>(chunks.size() + 1);
            java.util.Map<Piece, byte[]> read = new java.util.IdentityHashMap<>(); // the last chunks' bytes, read once
            int near = 0; // the last chunk the walk is at: where a changed row's bytes are looked for
            int i = 0;
            while (i < n) {
                Integer c = startsAt.get(rows[i]);
                if (c != null && same(chunks.get(c).rows(), rows, i)) {
                    made.add(chunks.get(c));
                    i += chunks.get(c).rows().length;
                    near = c + 1;
                    continue;
                }
                int end = i;
                while (true) {
                    Object r = rows[end++];
                    if (end >= n || last(r, end - 1 - i) || startsAt.containsKey(rows[end])) {
                        break; // the chunk ends after r, or the next row starts a last chunk: resynchronised
                    }
                }
                made.add(chunk(rows, i, end, near, read));
                i = end;
            }
            chunks = made;
            of = list;
            List<Object> t = new java.util.ArrayList<>(made.size());
            List<Object> j = new java.util.ArrayList<>(made.size() * 2 + 1);
            j.add(bytes("["));
            for (int c = 0; c < made.size(); c++) {
                t.add(made.get(c).text());
                j.add(made.get(c).json());
                j.add(c == made.size() - 1 ? bytes("]") : COMMA);
            }
            text = t;
            json = made.isEmpty() ? List.of(bytes("[]")) : j;
            return true;
        }

        /** Drops what was kept of the last list: the next update renders every row. */
        void forget() {
            of = null;
            chunks = List.of();
            text = List.of();
            json = List.of(bytes("[]"));
        }

        /** Whether {@code row}, the {@code index}th of its chunk, ends it: its hash says so, or the chunk is long. */
        private static boolean last(Object row, int index) {
            return System.identityHashCode(row) % CHUNK == 0 || index >= 4 * CHUNK - 1;
        }

        private static boolean same(Object[] chunk, Object[] rows, int from) {
            if (from + chunk.length > rows.length) {
                return false;
            }
            for (int x = 0; x < chunk.length; x++) {
                if (chunk[x] != rows[from + x]) {
                    return false;
                }
            }
            return true;
        }

        /** A chunk of {@code rows[from, to)}, each row's bytes taken from the last chunks near {@code near}, or rendered. */
        private Chunk chunk(Object[] rows, int from, int to, int near, java.util.Map<Piece, byte[]> read) {
            Object[] mine = java.util.Arrays.copyOfRange(rows, from, to);
            Bytes t = new Bytes(mine.length * 96);
            Bytes j = new Bytes(mine.length * 256);
            int[] tAt = new int[mine.length + 1];
            int[] jAt = new int[mine.length + 1];
            for (int x = 0; x < mine.length; x++) {
                if (x > 0) {
                    j.add((byte) ',');
                }
                tAt[x] = t.size;
                jAt[x] = j.size;
                if (!copied(mine[x], near, t, j, read)) {
                    @SuppressWarnings("unchecked")
                    T r = (T) mine[x];
                    t.add(bytes(textRow.apply(r)));
                    j.add(bytes(JsonEventWriter.valueToJson(r)));
                }
            }
            tAt[mine.length] = t.size;
            jAt[mine.length] = j.size;
            return new Chunk(mine, new Piece(t.array()), tAt, new Piece(j.array()), jAt);
        }

        /** Copies a row's bytes from the last chunk before {@code near}, at it or after it, if it is there. */
        private boolean copied(Object row, int near, Bytes t, Bytes j, java.util.Map<Piece, byte[]> read) {
            for (int c = Math.max(0, near - 1); c < Math.min(chunks.size(), near + 2); c++) {
                Chunk k = chunks.get(c);
                for (int x = 0; x < k.rows().length; x++) {
                    if (k.rows()[x] == row) {
                        byte[] text = contents(k.text(), read);
                        byte[] json = contents(k.json(), read);
                        if (text == null || json == null) {
                            return false; // unreadable: the row is rendered
                        }
                        t.add(text, k.textAt()[x], k.textAt()[x + 1] - k.textAt()[x]);
                        int jEnd = x + 1 < k.rows().length ? k.jsonAt()[x + 1] - 1 : k.jsonAt()[x + 1]; // less the comma
                        j.add(json, k.jsonAt()[x], jEnd - k.jsonAt()[x]);
                        return true;
                    }
                }
            }
            return false;
        }

        /** @return a piece's bytes, read once per update; null when its file cannot give them back */
        private static byte[] contents(Piece p, java.util.Map<Piece, byte[]> read) {
            byte[] b = read.get(p);
            if (b == null) {
                try {
                    b = p.bytes();
                } catch (IOException e) {
                    return null;
                }
                read.put(p, b);
            }
            return b;
        }
    }

    private static final byte[] COMMA = {(byte) ','};

    /** A file written last ends before a piece it held: it was truncated under this writer. */
    private static final class SourceLost extends IOException {
        private static final long serialVersionUID = 1L;

        SourceLost() {
            super("status file shorter than this writer wrote it");
        }
    }

    /**
     * A chunk's text or JSON bytes: in memory until a file holding them is written, then where they are in
     * that file (this writer's open descriptor of it, an offset and a length). Used on the writing thread only.
     */
    private static final class Piece {
        private final int length;
        /** The bytes, until written; null once they are in {@link #file}. */
        private byte[] bytes;
        private FileChannel file;
        private long at;

        Piece(byte[] bytes) {
            this.bytes = bytes;
            this.length = bytes.length;
        }

        /** @return its bytes, read back from its file when they are there */
        byte[] bytes() throws IOException {
            if (bytes != null) {
                return bytes;
            }
            ByteBuffer b = ByteBuffer.allocate(length);
            while (b.hasRemaining()) {
                if (file.read(b, at + b.position()) < 0) {
                    throw new SourceLost();
                }
            }
            return b.array();
        }

        /** Writes it at the end of {@code to}: from memory, or copied from its file in the kernel. */
        void writeTo(FileChannel to) throws IOException {
            if (bytes != null) {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                while (b.hasRemaining()) {
                    to.write(b);
                }
                return;
            }
            long done = 0;
            while (done < length) {
                long n = file.transferTo(at + done, length - done, to);
                if (n <= 0) {
                    throw new SourceLost();
                }
                done += n;
            }
        }

        /** Its bytes are now in {@code file} at {@code at}: the memory copy goes. */
        void storedIn(FileChannel file, long at) {
            this.file = file;
            this.at = at;
            this.bytes = null;
        }

        long heldBytes() {
            return bytes == null ? 0 : bytes.length;
        }

        void fileIn(java.util.Set<FileChannel> used) {
            if (bytes == null) {
                used.add(file);
            }
        }
    }

    /** A growing byte array, without ByteArrayOutputStream's locks and its copy out. */
    private static final class Bytes {
        byte[] buf;
        int size;

        Bytes(int capacity) {
            buf = new byte[capacity];
        }

        void add(byte b) {
            room(1);
            buf[size++] = b;
        }

        void add(byte[] b) {
            add(b, 0, b.length);
        }

        void add(byte[] b, int from, int len) {
            room(len);
            System.arraycopy(b, from, buf, size, len);
            size += len;
        }

        private void room(int len) {
            if (size + len > buf.length) {
                buf = java.util.Arrays.copyOf(buf, Math.max(size + len, buf.length * 2));
            }
        }

        /** @return the bytes, the buffer itself when it is exactly full */
        byte[] array() {
            return size == buf.length ? buf : java.util.Arrays.copyOf(buf, size);
        }
    }

    /** @return the byte arrays, pieces and lists of them given, as one list, in order */
    private static List<Object> parts(Object... parts) {
        List<Object> out = new java.util.ArrayList<>();
        for (Object p : parts) {
            if (p instanceof List<?> many) {
                out.addAll(many);
            } else {
                out.add(p);
            }
        }
        return out;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Writes the parts (byte arrays, and pieces from memory or from the files written last) to a temporary
     * file and renames it into place; the file stays open, and the pieces written are then in it.
     */
    private boolean write(Path file, List<Object> parts) {
        FileChannel ch = null;
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            List<ByteBuffer> run = new java.util.ArrayList<>(); // byte arrays in a row: one gathering write
            long[] at = new long[parts.size()];
            long position = 0;
            for (int i = 0; i < parts.size(); i++) {
                Object p = parts.get(i);
                at[i] = position;
                if (p instanceof byte[] b) {
                    run.add(ByteBuffer.wrap(b));
                    position += b.length;
                    continue;
                }
                gather(ch, run);
                Piece piece = (Piece) p;
                piece.writeTo(ch);
                position += piece.length;
            }
            gather(ch, run);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            for (int i = 0; i < parts.size(); i++) {
                if (parts.get(i) instanceof Piece piece) {
                    piece.storedIn(ch, at[i]);
                }
            }
            open.add(ch);
            return true;
        } catch (IOException | RuntimeException e) {
            // The board is a convenience; the journal holds the truth. Next round tries again.
            sourceLost |= e instanceof SourceLost;
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
            return false;
        }
    }

    private static void gather(FileChannel ch, List<ByteBuffer> run) throws IOException {
        ByteBuffer[] buffers = run.toArray(new ByteBuffer[0]);
        long left = 0;
        for (ByteBuffer b : buffers) {
            left += b.remaining();
        }
        while (left > 0) {
            left -= ch.write(buffers);
        }
        run.clear();
    }
}

package io.gpusched.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobStatus;
import io.gpusched.model.LeaseEnd;
import io.gpusched.model.Verdict;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The protocol's lines to and from typed values, with jackson-core's streaming API (no databind, no
 * reflection): every field is named here, in the order it is written. One shared, thread-safe
 * {@link JsonFactory}; an instance holds nothing else, so one may be shared by every thread.
 *
 * <p>Reading is strict about types and lenient about presence, as {@code PROTOCOL.md}'s compatibility
 * rules ask: a field of the wrong type makes the line unreadable ({@link IllegalArgumentException}), a
 * field this version does not know is ignored, and a field added in a later version reads as its default
 * when an older daemon leaves it out (a row's {@code priority} as 0, its {@code declared_mib} as none).
 *
 * <p>Why one file of this length: each message's writer and reader sit side by side, so a field added to
 * one cannot be missed by the other; the queue's rows are in {@code QueueCodec}.
 */
public final class ProtocolCodec {
    /** The protocol version this build speaks; a request naming another is refused. */
    public static final int VERSION = 1;
    /**
     * The most characters (UTF-16 units) of a command in a list view: the rows of a {@code queue} answer
     * and of the dashboard. A longer one is cut to 199 and an ellipsis, and its whole length follows as
     * {@code command_chars}; {@code job} answers the whole command.
     */
    public static final int LIST_COMMAND_CHARS = 200;
    /** The most characters of any other text in a list view (a reason, a name), cut the same way. */
    public static final int LIST_TEXT_CHARS = 1000;
    /** A {@code job} answer's command comes in parts of at most this many characters (UTF-16 units). */
    public static final int COMMAND_PART_CHARS = 16 * 1024;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).build()).build();

    /** A codec; all codecs behave alike and share one factory. */
    public ProtocolCodec() {
    }

    /** Writes the fields of one object between its braces. */
    private interface Body {
        void write(JsonGenerator g) throws IOException;
    }

    private static String object(Body body) {
        StringWriter out = new StringWriter(128);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            body.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    // ---------------------------------------------------------------- requests

    /**
     * @param r a request
     * @return its line, without a line end: {@code "v"}, {@code "op"}, then its fields
     */
    public String encode(Request r) {
        return object(g -> {
            g.writeNumberField("v", VERSION);
            g.writeStringField("op", r.op());
            if (r instanceof Request.Submit s) {
                g.writeStringField("line", s.line());
                g.writeStringField("cwd", s.cwd());
                if (s.env().isPresent()) {
                    g.writeObjectFieldStart("env");
                    for (Map.Entry<String, String> e : s.env().get().entrySet()) {
                        g.writeStringField(e.getKey(), e.getValue());
                    }
                    g.writeEndObject();
                }
                submitOptions(g, s.output(), s.requestId(), s.umask());
            } else if (r instanceof Request.Preview p) {
                g.writeStringField("line", p.line());
                g.writeStringField("cwd", p.cwd());
            } else if (r instanceof Request.Queue q) {
                if (q.stream()) {
                    g.writeBooleanField("stream", true);
                }
                if (q.text().isPresent()) {
                    queueText(g, q.text().get());
                }
            } else if (r instanceof Request.Job j) {
                g.writeNumberField("no", j.no());
            } else if (r instanceof Request.Cancel c) {
                g.writeNumberField("no", c.no());
            } else if (r instanceof Request.CancelUser c) {
                g.writeStringField("user", c.user());
            } else if (r instanceof Request.Pause p) {
                g.writeNumberField("gpu", p.gpu());
            } else if (r instanceof Request.Resume p) {
                g.writeNumberField("gpu", p.gpu());
            } else if (r instanceof Request.Logs l) {
                g.writeNumberField("no", l.no());
            } else if (r instanceof Request.Srun s) {
                g.writeStringField("line", s.line());
                g.writeStringField("cwd", s.cwd());
                submitOptions(g, s.output(), s.requestId(), s.umask());
            } else if (r instanceof Request.SrunAttach a) {
                g.writeNumberField("no", a.no());
                g.writeStringField("token", a.token());
            } else if (r instanceof Request.Exited e) {
                g.writeNumberField("status", e.status());
            } else if (r instanceof Request.Stats st) {
                if (st.sinceSeconds().isPresent()) {
                    g.writeNumberField("since_s", st.sinceSeconds().getAsInt());
                }
                if (st.user().isPresent()) {
                    g.writeStringField("user", st.user().get());
                }
                if (st.tolerance().isPresent()) {
                    g.writeNumberField("tolerance", st.tolerance().getAsDouble());
                }
                if (st.json()) {
                    g.writeBooleanField("json", true);
                }
                if (st.zone().isPresent()) {
                    g.writeStringField("zone", st.zone().get());
                }
            }
        });
    }

    /** A {@code queue} request's {@code text}: its fields in the order {@code PROTOCOL.md} lists them, absent ones left out. */
    private static void queueText(JsonGenerator g, Request.Text t) throws IOException {
        g.writeObjectFieldStart("text");
        g.writeStringField("layout", t.table() ? "table" : "list");
        if (t.format().isPresent()) {
            g.writeStringField("format", t.format().get());
        }
        if (t.width().isPresent()) {
            g.writeNumberField("width", t.width().getAsInt());
        }
        if (t.ascii()) {
            g.writeBooleanField("ascii", true);
        }
        if (t.user().isPresent()) {
            g.writeStringField("user", t.user().get());
        }
        if (t.all()) {
            g.writeBooleanField("all", true);
        }
        if (t.chunks()) {
            g.writeBooleanField("chunks", true);
        }
        g.writeEndObject();
    }

    /** Reads a {@code queue} request's {@code text}, each field by its type and bound ({@link Request.Text}). */
    private static Optional<Request.Text> queueText(Fields f) {
        if (!f.has("text")) {
            return Optional.empty();
        }
        Fields t = f.object("text");
        String layout = t.string("layout");
        if (!layout.equals("list") && !layout.equals("table")) {
            throw new IllegalArgumentException("\"layout\" is \"list\" or \"table\"");
        }
        OptionalInt width = t.optionalCount("width");
        return Optional.of(new Request.Text(layout.equals("table"), t.optionalString("format"), width,
                t.boolOr("ascii", false), t.optionalString("user"), t.boolOr("all", false), t.boolOr("chunks", false)));
    }

    private static void submitOptions(JsonGenerator g, Optional<String> output, Optional<String> requestId,
                                      OptionalInt umask) throws IOException {
        if (output.isPresent()) {
            g.writeStringField("output", output.get());
        }
        if (requestId.isPresent()) {
            g.writeStringField("request_id", requestId.get());
        }
        if (umask.isPresent()) {
            g.writeNumberField("umask", umask.getAsInt());
        }
    }

    /**
     * Reads a request line by the field types {@code PROTOCOL.md} gives; what a request means (a valid job
     * line, an absolute directory, who may ask) is the service's to check. Checked in this order, the first
     * failure answering: one JSON object, {@code "v"}, {@code "op"}, then the op's fields.
     *
     * <p>Numbers: a job number, a GPU index and a umask are whole numbers from 0 to 2^31 - 1; an integer
     * literal beyond a long (however many digits, up to jackson's limit of 1000) reads as a decimal and is
     * refused as not whole, like {@code 1.5}, never as unreadable JSON.
     *
     * @param line one request line, untrusted
     * @return the request
     * @throws UnreadableRequest when it is not a version-{@value #VERSION} request this codec knows, or a
     *     field is missing or of the wrong type; its {@link UnreadableRequest#reason()} is the answer's code
     */
    public Request decodeRequest(String line) {
        Fields f;
        try {
            f = Fields.parse(JSON, line);
        } catch (IllegalArgumentException e) {
            // The JSON reader's words quote the line (an unexpected character, up to 256 of a token).
            throw new UnreadableRequest(UnreadableRequest.Reason.BAD_REQUEST, Optional.empty(),
                    "not a request: " + UnreadableRequest.quoted(e.getMessage(), JSON_ERROR_CHARS));
        }
        if (!Long.valueOf(VERSION).equals(f.raw("v"))) {
            throw new UnreadableRequest(UnreadableRequest.Reason.UNSUPPORTED_VERSION, Optional.empty(),
                    "this gpusched speaks protocol version " + VERSION + ", the request says "
                            + UnreadableRequest.quoted(f.raw("v"), UnreadableRequest.QUOTED_CHARS)
                            + "; use a client of the same release");
        }
        if (!(f.raw("op") instanceof String op) || !REQUEST_OPS.contains(op)) {
            throw UnreadableRequest.unknownOp(f.raw("op"));
        }
        try {
            return request(op, f);
        } catch (UnreadableRequest e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new UnreadableRequest(UnreadableRequest.Reason.BAD_REQUEST, Optional.of(op), e.getMessage());
        }
    }

    /** The most characters of the JSON reader's message a refusal of a line that is not JSON repeats. */
    private static final int JSON_ERROR_CHARS = 300;

    /** The ops {@link #decodeRequest} reads. */
    private static final java.util.Set<String> REQUEST_OPS = java.util.Set.of("hello", "submit", "preview", "queue",
            "job", "cancel", "pause", "resume", "drain", "dashboard", "logs", "srun", "srun_attach", "exited", "stats");

    private static Request request(String op, Fields f) {
        return switch (op) {
            case "hello" -> new Request.Hello();
            case "submit" -> new Request.Submit(f.string("line"), f.string("cwd"),
                    f.has("env") ? Optional.of(f.stringMap("env")) : Optional.empty(), f.optionalString("output"),
                    f.optionalString("request_id"), f.optionalCount("umask"));
            case "preview" -> new Request.Preview(f.string("line"), f.string("cwd"));
            case "queue" -> new Request.Queue(f.boolOr("stream", false), queueText(f));
            case "job" -> new Request.Job(f.count("no"));
            case "cancel" -> {
                if (f.has("user") && f.has("no")) {
                    throw new IllegalArgumentException("cancel takes \"no\" (one job) or \"user\" (all of theirs), not both");
                }
                yield f.has("user") ? new Request.CancelUser(f.string("user")) : new Request.Cancel(f.count("no"));
            }
            case "pause" -> new Request.Pause(f.count("gpu"));
            case "resume" -> new Request.Resume(f.count("gpu"));
            case "drain" -> new Request.Drain();
            case "dashboard" -> new Request.Dashboard();
            case "logs" -> new Request.Logs(f.count("no"));
            case "srun" -> new Request.Srun(f.string("line"), f.string("cwd"), f.optionalString("output"),
                    f.optionalString("request_id"), f.optionalCount("umask"));
            case "srun_attach" -> srunAttach(f);
            case "exited" -> new Request.Exited(f.wholeInt("status"));
            case "stats" -> new Request.Stats(f.optionalCount("since_s"), f.optionalString("user"),
                    f.optionalNumber("tolerance"), f.boolOr("json", false), f.optionalString("zone"));
            default -> throw new IllegalStateException("not in REQUEST_OPS: " + op);
        };
    }

    private static Request.SrunAttach srunAttach(Fields f) {
        try {
            int no = f.count("no");
            if (no >= 1) {
                return new Request.SrunAttach(no, f.string("token"));
            }
        } catch (IllegalArgumentException e) {
            // answered below, in the words of the whole request
        }
        throw new UnreadableRequest(UnreadableRequest.Reason.BAD_REQUEST, Optional.of("srun_attach"),
                "srun_attach needs \"no\" (a job number) and \"token\" (a string)");
    }

    // ---------------------------------------------------------------- answers

    /**
     * @param a an answer, an srun event or a line that follows an answer
     * @return its line, without a line end
     */
    public String encode(Answer a) {
        if (a instanceof Answer.Rows r) {
            List<String> rows = new ArrayList<>(r.rows().size());
            for (Row row : r.rows()) {
                rows.add(encode(row));
            }
            return rowsLine(r.list(), rows);
        }
        if (a instanceof Answer.Part p) {
            return object(g -> {
                g.writeNumberField("v", VERSION);
                g.writeStringField("part", p.part());
            });
        }
        return object(g -> {
            g.writeNumberField("v", VERSION);
            g.writeBooleanField("ok", !(a instanceof Answer.Failure));
            answerFields(g, a);
        });
    }

    private static void answerFields(JsonGenerator g, Answer a) throws IOException {
        if (a instanceof Answer.Failure f) {
            g.writeObjectFieldStart("error");
            g.writeStringField("code", f.code());
            g.writeStringField("message", f.message());
            g.writeEndObject();
        } else if (a instanceof Answer.Hello h) {
            g.writeStringField("server", h.server());
            g.writeStringField("user", h.user());
        } else if (a instanceof Answer.Submitted s) {
            g.writeNumberField("no", s.no());
            if (s.already().isPresent()) {
                g.writeStringField("already", s.already().get().journalName());
            }
        } else if (a instanceof Answer.Preview p) {
            if (p.waits().isPresent()) {
                g.writeStringField("waits", p.waits().get());
            } else {
                g.writeArrayFieldStart("gpus");
                for (int gpu : p.gpus()) {
                    g.writeNumber(gpu);
                }
                g.writeEndArray();
            }
        } else if (a instanceof Answer.Queue q) {
            g.writeFieldName("snapshot");
            QueueCodec.writeView(g, q.snapshot());
            if (!q.rows().isEmpty()) {
                counts(g, "rows", q.rows());
            }
            if (q.lines().isPresent()) {
                g.writeNumberField("lines", q.lines().getAsInt());
            }
            if (!q.leftOut().isEmpty()) {
                counts(g, "left_out", q.leftOut());
            }
        } else if (a instanceof Answer.QueueText q) {
            g.writeNumberField("text_bytes", q.bytes());
        } else if (a instanceof Answer.QueueTextChunks) {
            g.writeBooleanField("text_chunks", true);
        } else if (a instanceof Answer.Job j) {
            g.writeStringField("list", j.list().wireName());
            g.writeFieldName("job");
            QueueCodec.writeRow(g, j.job());
            g.writeNumberField("parts", j.parts());
        } else if (a instanceof Answer.Cancelled c) {
            g.writeStringField("outcome", lower(c.outcome()));
        } else if (a instanceof Answer.CancelledAll c) {
            g.writeArrayFieldStart("jobs");
            for (Map.Entry<Integer, CancelOutcome> e : c.jobs().entrySet()) {
                g.writeStartObject();
                g.writeNumberField("no", e.getKey());
                g.writeStringField("outcome", lower(e.getValue()));
                g.writeEndObject();
            }
            g.writeEndArray();
        } else if (a instanceof Answer.Stats st) {
            g.writeNumberField("parts", st.parts());
            g.writeArrayFieldStart("warnings");
            for (String w : st.warnings()) {
                g.writeString(w);
            }
            g.writeEndArray();
        } else if (a instanceof Answer.Draining d) {
            g.writeNumberField("running", d.running());
        } else if (a instanceof Answer.DashboardUrl d) {
            g.writeStringField("url", d.url());
        } else if (a instanceof Answer.Logs l) {
            g.writeArrayFieldStart("paths");
            for (String p : l.paths()) {
                g.writeString(p);
            }
            g.writeEndArray();
            g.writeStringField("state", io.gpusched.model.JobStage.wireName(l.state()));
            if (l.tty().isPresent()) {
                g.writeStringField("tty", l.tty().get());
            }
        } else if (a instanceof Answer.SrunEvent e) {
            srunFields(g, e);
        }
        // Acknowledged: nothing more than "ok".
    }

    private static void srunFields(JsonGenerator g, Answer.SrunEvent e) throws IOException {
        if (e instanceof Answer.Queued q) {
            g.writeStringField("event", "queued");
            g.writeNumberField("no", q.no());
        } else if (e instanceof Answer.Waiting w) {
            g.writeStringField("event", "waiting");
            g.writeNumberField("no", w.no());
            g.writeNumberField("position", w.position());
            g.writeNumberField("of", w.of());
            g.writeStringField("reason", w.reason());
        } else if (e instanceof Answer.Granted gr) {
            g.writeStringField("event", "granted");
            g.writeNumberField("no", gr.no());
            QueueCodec.writeInts(g, "gpus", gr.gpus());
            g.writeObjectFieldStart("env");
            for (Map.Entry<String, String> v : gr.env().entrySet()) {
                g.writeStringField(v.getKey(), v.getValue());
            }
            g.writeEndObject();
        } else if (e instanceof Answer.Held h) {
            g.writeStringField("event", "held");
            g.writeNumberField("no", h.no());
        } else if (e instanceof Answer.Ended d) {
            g.writeStringField("event", "ended");
            g.writeNumberField("no", d.no());
            g.writeStringField("recorded", lower(d.recorded()));
            if (d.outcome().isPresent()) {
                Answer.Outcome o = d.outcome().get();
                g.writeStringField("status", o.status().journalName());
                g.writeNumberField("exit_code", o.exitCode());
                if (o.peakMib().isPresent()) {
                    g.writeNumberField("peak_mib", o.peakMib().getAsLong());
                }
                if (o.declaredMib().isPresent()) {
                    g.writeNumberField("declared_mib", o.declaredMib().getAsLong());
                }
                g.writeStringField("verdict", lower(o.verdict()));
                g.writeNumberField("seconds", o.seconds());
            }
        }
    }

    private static void counts(JsonGenerator g, String name, Map<BoardList, Integer> counts) throws IOException {
        g.writeObjectFieldStart(name);
        for (Map.Entry<BoardList, Integer> e : counts.entrySet()) {
            g.writeNumberField(e.getKey().wireName(), e.getValue());
        }
        g.writeEndObject();
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * @param row a row
     * @return its JSON object as a {@code queue} answer carries it, on one line
     */
    public String encode(Row row) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            QueueCodec.writeRow(g, row);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * @param gpu a GPU
     * @return its JSON object as a {@code queue} answer's {@code gpus} carries it, on one line
     */
    public String encode(GpuRow gpu) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            QueueCodec.writeGpu(g, gpu);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * @param view a queue
     * @return its JSON object as a {@code queue} answer's {@code snapshot} (and the dashboard's
     *     {@code /api/queue}) carries it, on one line
     */
    public String encode(QueueView view) {
        StringWriter out = new StringWriter(1024);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            QueueCodec.writeView(g, view);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /**
     * A line of a streamed queue's rows from rows already encoded ({@link #encode(Row)}): what
     * {@link #encode(Answer)} writes for {@link Answer.Rows}, for a writer that sizes its lines by the
     * rows' lengths.
     *
     * @param list the list the rows are of
     * @param encodedRows the rows' JSON objects
     * @return {@code {"v":1,"list":"...","rows":[...]}}
     */
    public String rowsLine(BoardList list, List<String> encodedRows) {
        StringBuilder b = new StringBuilder(rowsLineStart(list));
        for (int i = 0; i < encodedRows.size(); i++) {
            b.append(i == 0 ? "" : ",").append(encodedRows.get(i));
        }
        return b.append(ROWS_LINE_END).toString();
    }

    /**
     * @param list the list a line of rows is of
     * @return the text of such a line before its first row
     */
    public String rowsLineStart(BoardList list) {
        return "{\"v\":" + VERSION + ",\"list\":\"" + list.wireName() + "\",\"rows\":[";
    }

    /** The text of a line of rows after its last row. */
    public static final String ROWS_LINE_END = "]}";

    /** Which kind of line a client expects next, which decides how {@link #decode} reads it. */
    public enum Expect {
        /** The answer to {@code hello}. */
        HELLO,
        /** The answer to {@code submit}. */
        SUBMITTED,
        /** The answer to {@code preview}. */
        PREVIEW,
        /** The answer to {@code queue} (a streamed head or the one line). */
        QUEUE,
        /** A line of a streamed queue's rows (no {@code ok}). */
        ROWS,
        /** The answer to {@code job}. */
        JOB,
        /** A line of a job's command (no {@code ok}). */
        PART,
        /**
         * The answer to {@code queue} with {@code text}: its head ({@link Answer.QueueText}, or
         * {@link Answer.QueueTextChunks} when the text was asked for in chunks), or, from a daemon that
         * renders no text, the rows' answer as {@link #QUEUE} reads it.
         */
        QUEUE_TEXT,
        /** The answer to {@code cancel} with {@code no}. */
        CANCELLED,
        /** The answer to {@code cancel} with {@code user}. */
        CANCELLED_ALL,
        /** The answer to {@code pause} or {@code resume}. */
        ACKNOWLEDGED,
        /** The answer to {@code drain}. */
        DRAINING,
        /** The answer to {@code dashboard}. */
        DASHBOARD_URL,
        /** The answer to {@code logs}. */
        LOGS,
        /** The answer to {@code stats} (its {@link Answer.Part} lines are read as {@link #PART}). */
        STATS,
        /** A line of an {@code srun} or {@code srun_attach} session, by its {@code event}. */
        SRUN_EVENT
    }

    /**
     * Reads one line the service wrote.
     *
     * @param line the line
     * @param expect what the client asked for, which the line answers
     * @return an {@link Answer.Failure} when its {@code ok} is not {@code true}; else the answer
     *     {@code expect} names ({@link Answer.Rows} and {@link Answer.Part} lines carry no {@code ok})
     * @throws IllegalArgumentException when the line is not JSON, or a field has the wrong type
     */
    public Answer decode(String line, Expect expect) {
        Fields f = Fields.parse(JSON, line);
        if (expect == Expect.ROWS) {
            BoardList list = BoardList.ofWireName(f.string("list"))
                    .orElseThrow(() -> new IllegalArgumentException("\"list\" is not a board list"));
            return new Answer.Rows(list, f.objects("rows").stream().map(r -> QueueCodec.readRow(list, r)).toList());
        }
        if (expect == Expect.PART) {
            return new Answer.Part(f.string("part"));
        }
        if (expect == Expect.QUEUE_TEXT && Boolean.TRUE.equals(f.raw("ok")) && f.has("text_bytes")) {
            long bytes = f.whole("text_bytes");
            if (bytes < 0) {
                throw new IllegalArgumentException("\"text_bytes\" is not a whole number");
            }
            return new Answer.QueueText(bytes);
        }
        if (expect == Expect.QUEUE_TEXT && Boolean.TRUE.equals(f.raw("ok")) && f.has("text_chunks")) {
            if (!f.bool("text_chunks")) {
                throw new IllegalArgumentException("\"text_chunks\" is true when present");
            }
            return new Answer.QueueTextChunks();
        }
        if (!Boolean.TRUE.equals(f.raw("ok"))) {
            Fields e = f.raw("error") instanceof Map<?, ?> ? f.object("error") : Fields.parse(JSON, "{}");
            return new Answer.Failure(String.valueOf(e.raw("code")), String.valueOf(e.raw("message")));
        }
        return switch (expect) {
            case HELLO -> new Answer.Hello(f.stringOr("server", ""), f.string("user"));
            case SUBMITTED -> new Answer.Submitted(f.wholeInt("no"), already(f.optionalString("already")));
            case PREVIEW -> new Answer.Preview(f.has("gpus") ? f.ints("gpus") : List.of(), f.optionalString("waits"));
            case QUEUE, QUEUE_TEXT -> new Answer.Queue(QueueCodec.readView(f.object("snapshot")), counts(f, "rows"),
                    f.optionalInt("lines"), counts(f, "left_out"));
            case JOB -> {
                BoardList list = BoardList.ofWireName(f.string("list"))
                        .orElseThrow(() -> new IllegalArgumentException("\"list\" is not a board list"));
                yield new Answer.Job(list, QueueCodec.readRow(list, f.object("job")), f.wholeInt("parts"));
            }
            case CANCELLED -> new Answer.Cancelled(QueueCodec.named(CancelOutcome.class, "outcome", f.string("outcome")));
            case CANCELLED_ALL -> {
                TreeMap<Integer, CancelOutcome> jobs = new TreeMap<>();
                for (Fields j : f.objects("jobs")) {
                    jobs.put(j.wholeInt("no"), QueueCodec.named(CancelOutcome.class, "outcome", j.string("outcome")));
                }
                yield new Answer.CancelledAll(jobs);
            }
            case ACKNOWLEDGED -> new Answer.Acknowledged();
            case DRAINING -> new Answer.Draining(f.wholeInt("running"));
            case DASHBOARD_URL -> new Answer.DashboardUrl(f.string("url"));
            case LOGS -> new Answer.Logs(f.strings("paths"), io.gpusched.model.JobStage.fromWire(f.string("state")),
                    f.optionalString("tty"));
            case STATS -> new Answer.Stats(f.wholeInt("parts"), f.has("warnings") ? f.strings("warnings") : List.of());
            case SRUN_EVENT -> srunEvent(f);
            case ROWS, PART -> throw new IllegalStateException("read above");
        };
    }

    private static Answer.SrunEvent srunEvent(Fields f) {
        String event = f.string("event");
        int no = f.wholeInt("no");
        return switch (event) {
            case "queued" -> new Answer.Queued(no);
            case "waiting" -> new Answer.Waiting(no, f.wholeInt("position"), f.wholeInt("of"), f.string("reason"));
            case "granted" -> new Answer.Granted(no, f.ints("gpus"), f.stringMap("env"));
            case "held" -> new Answer.Held(no);
            case "ended" -> new Answer.Ended(no, QueueCodec.named(LeaseEnd.class, "recorded", f.string("recorded")),
                    f.has("status") ? Optional.of(new Answer.Outcome(
                            JobStatus.fromJournal(f.string("status")).orElseThrow(
                                    () -> new IllegalArgumentException("\"status\" is not a job status")),
                            f.wholeInt("exit_code"), f.optionalLong("peak_mib"), f.optionalLong("declared_mib"),
                            f.optionalString("verdict").map(v -> QueueCodec.named(Verdict.class, "verdict", v))
                                    .orElse(Verdict.NOT_JUDGED), f.numberOr("seconds", 0))) : Optional.empty());
            default -> throw new IllegalArgumentException("\"event\" is not an srun event: '" + event + "'");
        };
    }

    private static Map<BoardList, Integer> counts(Fields f, String name) {
        Map<BoardList, Integer> out = new EnumMap<>(BoardList.class);
        if (!f.has(name)) {
            return out;
        }
        Fields c = f.object(name);
        for (String list : c.names()) {
            BoardList.ofWireName(list).ifPresent(l -> out.put(l, c.wholeInt(list)));
        }
        return out;
    }

    /** A {@code submit} answer's {@code already}: {@code pending}, {@code running} or {@code ok}, or none. */
    private static Optional<io.gpusched.model.JobState> already(Optional<String> name) {
        if (name.isEmpty()) {
            return Optional.empty();
        }
        io.gpusched.model.JobState s = switch (name.get()) {
            case "pending" -> io.gpusched.model.JobState.PENDING;
            case "running" -> io.gpusched.model.JobState.RUNNING;
            case "ok" -> io.gpusched.model.JobState.OK;
            default -> throw new IllegalArgumentException("\"already\" must be pending, running or ok, got '"
                    + name.get() + "'");
        };
        return Optional.of(s);
    }

}

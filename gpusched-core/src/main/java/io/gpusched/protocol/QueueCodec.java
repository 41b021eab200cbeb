package io.gpusched.protocol;

import com.fasterxml.jackson.core.JsonGenerator;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.Notes;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The queue's part of the wire: a {@link QueueView} and its {@link Row}s, field by field, both ways.
 * Each writer lists its fields in wire order; the reader beside it reads the same names, so a field
 * added to one cannot be missed by the other. A cut text's {@code <name>_chars} follows it; an absent
 * optional is {@code null}; enums are their lower-case names; GPU-keyed maps are objects keyed by the
 * index in ascending order.
 */
final class QueueCodec {
    private QueueCodec() {
    }

    static void writeView(JsonGenerator g, QueueView v) throws IOException {
        g.writeStartObject();
        g.writeStringField("at", v.at().toString());
        g.writeObjectFieldStart("board");
        QueueView.Board b = v.board();
        for (BoardList list : BoardList.values()) {
            g.writeArrayFieldStart(list.wireName());
            for (Row r : b.rows(list)) {
                writeRow(g, r);
            }
            g.writeEndArray();
        }
        g.writeEndObject();
        writeInts(g, "paused_gpus", v.pausedGpus());
        writeInts(g, "orphans", v.orphans());
        g.writeArrayFieldStart("gpus");
        for (GpuRow gpu : v.gpus()) {
            writeGpu(g, gpu);
        }
        g.writeEndArray();
        g.writeArrayFieldStart("memory");
        for (QueueSnapshot.GpuMemory m : v.memory()) {
            writeMemory(g, m);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    static QueueView readView(Fields f) {
        Fields b = f.objectOrEmpty("board");
        QueueView.Board board = new QueueView.Board(
                b.objects("running").stream().map(QueueCodec::readRunning).toList(),
                b.objects("pending").stream().map(QueueCodec::readPending).toList(),
                b.objects("done").stream().map(QueueCodec::readEnded).toList(),
                b.objects("earlier").stream().map(QueueCodec::readEnded).toList(),
                b.objects("interrupted").stream().map(QueueCodec::readInterrupted).toList());
        return new QueueView(f.has("at") ? instant(f, "at") : Instant.EPOCH, board, f.ints("paused_gpus"), f.ints("orphans"),
                f.objects("gpus").stream().map(QueueCodec::readGpu).toList(),
                f.objects("memory").stream().map(QueueCodec::readMemory).toList());
    }

    static void writeRow(JsonGenerator g, Row row) throws IOException {
        g.writeStartObject();
        if (row instanceof Row.Running r) {
            g.writeNumberField("no", r.no());
            writeText(g, "command", r.command());
            writeInts(g, "gpus", r.gpus());
            g.writeNumberField("elapsed_s", r.elapsedSeconds());
            writeByGpu(g, "current_mib", r.currentMib());
            g.writeNumberField("peak_mib", r.peakMib());
            writeEnum(g, "stopping", r.stopping());
            writeText(g, "owner", r.owner());
            writeLong(g, "declared_mib", r.declaredMib());
            g.writeNumberField("priority", r.priority());
            writeText(g, "rule", r.rule());
            writeNotes(g, r.notes());
            writePresent(g, "cluster", r.cluster());
            writeTrue(g, "tty", r.tty());
        } else if (row instanceof Row.Pending p) {
            g.writeNumberField("no", p.no());
            writeText(g, "command", p.command());
            writeLong(g, "declared_mib", p.declaredMib());
            g.writeNumberField("attempts", p.attempts());
            writeText(g, "reason", p.reason());
            writeText(g, "owner", p.owner());
            g.writeBooleanField("held", p.held());
            g.writeNumberField("priority", p.priority());
            writeText(g, "rule", p.rule());
            writeNotes(g, p.notes());
            writePresent(g, "gpus_asked", p.gpusAsked());
            if (p.since().isPresent()) {
                g.writeStringField("since", p.since().get().toString());
            }
            writeTrue(g, "tty", p.tty());
        } else if (row instanceof Row.Ended e) {
            writeText(g, "key", e.key());
            g.writeNumberField("no", e.no());
            writeText(g, "command", e.command());
            writeInts(g, "gpus", e.gpus());
            writeEnum(g, "status", Optional.of(e.status()));
            g.writeNumberField("exit_code", e.exitCode());
            writeLong(g, "declared_mib", e.declaredMib());
            writeByGpu(g, "peak_mib", e.peakMib());
            writeEnum(g, "verdict", Optional.of(e.verdict()));
            g.writeFieldName("avg_util_percent");
            if (e.avgUtilPercent().isPresent()) {
                g.writeNumber(e.avgUtilPercent().getAsDouble());
            } else {
                g.writeNull();
            }
            g.writeNumberField("duration_s", e.durationSeconds());
            writeEnum(g, "measurement", Optional.of(e.measurement()));
            writeText(g, "cause", e.cause());
            writeText(g, "owner", e.owner());
            writeText(g, "learned", e.learned());
            writeString(g, "declaration", e.declaration());
        } else if (row instanceof Row.Interrupted i) {
            g.writeNumberField("no", i.no());
            writeText(g, "command", i.command());
            writeInts(g, "gpus", i.gpus());
            g.writeNumberField("elapsed_s", i.elapsedSeconds());
        }
        g.writeEndObject();
    }

    /** @param list the list the row is of, which decides its fields */
    static Row readRow(BoardList list, Fields f) {
        return switch (list) {
            case RUNNING -> readRunning(f);
            case PENDING -> readPending(f);
            case DONE, EARLIER -> readEnded(f);
            case INTERRUPTED -> readInterrupted(f);
        };
    }

    private static Row.Running readRunning(Fields f) {
        return new Row.Running(f.wholeInt("no"), f.text("command"), f.ints("gpus"), f.numberOr("elapsed_s", 0),
                f.wholeByIndex("current_mib"), f.longOr("peak_mib", 0),
                f.optionalString("stopping").map(s -> named(SchedulerEvent.StopReason.class, "stopping", s)),
                f.optionalText("owner"), f.optionalLong("declared_mib"), f.intOr("priority", 0), f.optionalText("rule"),
                readNotes(f), f.optionalText("cluster"), f.boolOr("tty", false));
    }

    private static Row.Pending readPending(Fields f) {
        return new Row.Pending(f.wholeInt("no"), f.text("command"), f.optionalLong("declared_mib"), f.intOr("attempts", 0),
                f.has("reason") ? f.text("reason") : ListText.whole(""), f.optionalText("owner"), f.boolOr("held", false),
                f.intOr("priority", 0), f.optionalText("rule"), readNotes(f), f.optionalText("gpus_asked"),
                f.has("since") ? Optional.of(instant(f, "since")) : Optional.empty(), f.boolOr("tty", false));
    }

    /**
     * A row's notes: each shown attribute's field, in table order, read where present. A field a newer daemon
     * adds for an attribute this client does not show is ignored, as any unknown field is.
     */
    private static Notes<ListText> readNotes(Fields f) {
        List<Notes.Note<ListText>> out = null;
        for (Attribute a : Attribute.SHOWN) {
            Optional<ListText> text = f.optionalText(a.fieldName());
            if (text.isPresent()) {
                if (out == null) {
                    out = new java.util.ArrayList<>(Attribute.SHOWN.size());
                }
                out.add(new Notes.Note<>(a, text.get()));
            }
        }
        return out == null ? Notes.none() : new Notes<>(out);
    }

    private static Row.Ended readEnded(Fields f) {
        List<Integer> gpus = f.ints("gpus");
        Map<Integer, Long> peaks = f.wholeByIndex("peak_mib");
        // A daemon older than "measurement" said nothing of it: what its other fields imply, as JobResult does.
        Measurement measured = !peaks.isEmpty() ? Measurement.MEASURED : gpus.isEmpty() ? Measurement.NOT_RUN
                : Measurement.NONE_SEEN;
        return new Row.Ended(f.has("key") ? f.text("key") : ListText.whole(""), f.wholeInt("no"), f.text("command"), gpus,
                named(JobStatus.class, "status", f.string("status")), f.intOr("exit_code", 0), f.optionalLong("declared_mib"),
                peaks, f.optionalString("verdict").map(s -> named(Verdict.class, "verdict", s)).orElse(Verdict.NOT_JUDGED),
                f.optionalNumber("avg_util_percent"), f.numberOr("duration_s", 0),
                f.optionalString("measurement").map(s -> named(Measurement.class, "measurement", s)).orElse(measured),
                f.optionalText("cause"), f.optionalText("owner"), f.optionalText("learned"));
    }

    private static Row.Interrupted readInterrupted(Fields f) {
        return new Row.Interrupted(f.wholeInt("no"), f.text("command"), f.ints("gpus"), f.numberOr("elapsed_s", 0));
    }

    static void writeGpu(JsonGenerator g, GpuRow gpu) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", gpu.index());
        writeText(g, "uuid", gpu.uuid());
        writeText(g, "name", gpu.name());
        writeText(g, "pci_bus_id", gpu.pciBusId());
        g.writeNumberField("total_mib", gpu.totalMib());
        g.writeNumberField("used_mib", gpu.usedMib());
        g.writeFieldName("util_percent");
        if (gpu.utilPercent().isPresent()) {
            g.writeNumber(gpu.utilPercent().getAsInt());
        } else {
            g.writeNull();
        }
        g.writeBooleanField("healthy", gpu.healthy());
        g.writeEndObject();
    }

    private static GpuRow readGpu(Fields f) {
        return new GpuRow(f.wholeInt("index"), f.optionalText("uuid"), f.has("name") ? f.text("name") : ListText.whole(""),
                f.optionalText("pci_bus_id"), f.longOr("total_mib", 0), f.longOr("used_mib", 0), f.optionalInt("util_percent"),
                f.boolOr("healthy", true));
    }

    private static void writeMemory(JsonGenerator g, QueueSnapshot.GpuMemory m) throws IOException {
        g.writeStartObject();
        g.writeNumberField("gpu", m.gpu());
        g.writeNumberField("total_mib", m.totalMib());
        g.writeNumberField("used_mib", m.usedMib());
        g.writeNumberField("external_mib", m.externalMib());
        g.writeNumberField("headroom_mib", m.headroomMib());
        g.writeArrayFieldStart("jobs");
        for (QueueSnapshot.JobMemory j : m.jobs()) {
            g.writeStartObject();
            g.writeNumberField("no", j.no());
            writeLong(g, "declared_mib", j.declaredMib());
            g.writeNumberField("used_mib", j.usedMib());
            g.writeNumberField("peak_mib", j.peakMib());
            g.writeNumberField("budget_mib", j.budgetMib());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private static QueueSnapshot.GpuMemory readMemory(Fields f) {
        return new QueueSnapshot.GpuMemory(f.wholeInt("gpu"), f.longOr("total_mib", 0), f.longOr("used_mib", 0),
                f.longOr("external_mib", 0), f.longOr("headroom_mib", 0), f.objects("jobs").stream()
                .map(j -> new QueueSnapshot.JobMemory(j.wholeInt("no"), j.optionalLong("declared_mib"), j.longOr("used_mib", 0),
                        j.longOr("peak_mib", 0), j.longOr("budget_mib", 0))).toList());
    }

    private static Instant instant(Fields f, String name) {
        String s = f.string(name);
        Optional<Instant> quick = plainInstant(s);
        if (quick.isPresent()) {
            return quick.get();
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("\"" + name + "\" is not an ISO-8601 instant");
        }
    }

    /**
     * The instant {@link Instant#toString} writes for a year 0000 to 9999: {@code 2026-11-26T05:30:00Z},
     * with 0 to 9 digits of fraction, every field in its plain range; empty for anything else, which
     * {@link Instant#parse} reads (or refuses) as before. Why: {@code Instant.parse} cost a third of
     * {@code gpusched queue}'s decoding at 100,000 rows (issue #27), and each row has one or two.
     */
    static Optional<Instant> plainInstant(String s) {
        int n = s.length();
        if (n < 20 || n > 30 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(10) != 'T' || s.charAt(13) != ':'
                || s.charAt(16) != ':' || s.charAt(n - 1) != 'Z') {
            return Optional.empty();
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, 19);
        if (year < 0 || month < 1 || month > 12 || day < 1 || day > java.time.YearMonth.of(year, month).lengthOfMonth()
                || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
            return Optional.empty();
        }
        int nanos = 0;
        if (n > 20) {
            int fraction = n - 21; // between the '.' and the 'Z'
            int f = s.charAt(19) == '.' && fraction >= 1 ? digits(s, 20, n - 1) : -1;
            if (f < 0) {
                return Optional.empty();
            }
            nanos = f;
            for (int i = fraction; i < 9; i++) {
                nanos *= 10;
            }
        }
        long days = java.time.LocalDate.of(year, month, day).toEpochDay();
        return Optional.of(Instant.ofEpochSecond(days * 86_400 + hour * 3_600L + minute * 60L + second, nanos));
    }

    /** The decimal number {@code s[from, to)} writes in ASCII digits only; -1 when another character is there. */
    private static int digits(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    /** The constant of {@code type} whose lower-case name {@code s} is. */
    static <E extends Enum<E>> E named(Class<E> type, String field, String s) {
        for (E e : type.getEnumConstants()) {
            if (e.name().toLowerCase(Locale.ROOT).equals(s)) {
                return e;
            }
        }
        throw new IllegalArgumentException("\"" + field + "\" is not a known value: '" + s + "'");
    }

    static void writeText(JsonGenerator g, String name, ListText t) throws IOException {
        g.writeStringField(name, t.text());
        if (t.wholeChars().isPresent()) {
            g.writeNumberField(name + "_chars", t.wholeChars().getAsInt());
        }
    }

    private static void writeText(JsonGenerator g, String name, Optional<ListText> t) throws IOException {
        if (t.isPresent()) {
            writeText(g, name, t.get());
        } else {
            g.writeNullField(name);
        }
    }

    /**
     * A field written only when present, unlike the others' {@code null}: a row without it is the
     * row a daemon older than the field wrote, byte for byte.
     */
    private static void writePresent(JsonGenerator g, String name, Optional<ListText> t) throws IOException {
        if (t.isPresent()) {
            writeText(g, name, t.get());
        }
    }

    /**
     * A row's notes, each a field under its attribute's name, written only when present as
     * {@link #writePresent} writes: a row without notes is the row a daemon older than them wrote.
     */
    private static void writeNotes(JsonGenerator g, Notes<ListText> notes) throws IOException {
        for (Notes.Note<ListText> n : notes.all()) {
            writePresent(g, n.attribute().fieldName(), Optional.of(n.text()));
        }
    }

    /** A flag added after the format was published: written only when true, so other rows read as before. */
    private static void writeTrue(JsonGenerator g, String name, boolean flag) throws IOException {
        if (flag) {
            g.writeBooleanField(name, true);
        }
    }

    private static void writeString(JsonGenerator g, String name, Optional<String> s) throws IOException {
        if (s.isPresent()) {
            g.writeStringField(name, s.get());
        } else {
            g.writeNullField(name);
        }
    }

    private static void writeEnum(JsonGenerator g, String name, Optional<? extends Enum<?>> e) throws IOException {
        writeString(g, name, e.map(x -> x.name().toLowerCase(Locale.ROOT)));
    }

    static void writeLong(JsonGenerator g, String name, OptionalLong v) throws IOException {
        g.writeFieldName(name);
        if (v.isPresent()) {
            g.writeNumber(v.getAsLong());
        } else {
            g.writeNull();
        }
    }

    static void writeInts(JsonGenerator g, String name, List<Integer> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (int v : values) {
            g.writeNumber(v);
        }
        g.writeEndArray();
    }

    private static void writeByGpu(JsonGenerator g, String name, Map<Integer, Long> byGpu) throws IOException {
        g.writeObjectFieldStart(name);
        for (Map.Entry<Integer, Long> e : new java.util.TreeMap<>(byGpu).entrySet()) {
            g.writeNumberField(String.valueOf(e.getKey()), e.getValue());
        }
        g.writeEndObject();
    }
}

package io.gpusched.event;

import io.gpusched.Scheduler;
import io.gpusched.jobs.Notes;

import io.gpusched.model.JobResult;
import io.gpusched.model.RunSummary;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A listener that writes every {@link SchedulerEvent} as one JSON object per line (JSON Lines), for
 * scripts: {@code gpusched --events FILE} uses it, and an embedder may add it with
 * {@link Scheduler.Builder#listener}.
 *
 * <p>The field names are stable and follow the event records mechanically:
 * <ul>
 *   <li>{@code "event"}: the record's name in snake case ({@code JobStarted} is {@code "job_started"});</li>
 *   <li>{@code "at"}: ISO-8601 instant;</li>
 *   <li>every other record component in snake case ({@code declaredMib} is {@code "declared_mib"});
 *       a {@link Duration} component gets the suffix {@code _s} and is a number of seconds
 *       ({@code elapsed} is {@code "elapsed_s": 12.5});</li>
 *   <li>an empty {@code Optional}/{@code OptionalLong} is {@code null}; enums are lower case
 *       ({@code "ok"}, {@code "failed_oom"}, {@code "within"}); maps keyed by GPU index are objects
 *       with the index as a string key; nested records ({@link JobResult}, {@link StatusBoard},
 *       {@link RunSummary}) are objects by the same rules, and a {@link RunSummary} also carries
 *       {@code "exit_code"};</li>
 *   <li>a {@link Notes} component (a job's shown attributes, such as {@code comment=}) is written as its
 *       notes in its place, each a string field named by its attribute's
 *       {@link io.gpusched.jobs.Attribute#fieldName() field name}, none when it has none;</li>
 *   <li>a {@link JobResult} also carries {@code "declaration"}: the verdict in the log's words,
 *       {@code "under_declared"} (its {@code "verdict"} is {@code "over"}: the peak was over the
 *       declaration), {@code "over_declared"} ({@code "under"}), {@code "within"}, or {@code null}
 *       when nothing was judged.</li>
 * </ul>
 * Fields may be added in later versions; none is renamed or removed.
 */
public final class JsonEventWriter implements Consumer<SchedulerEvent>, Closeable {
    private static final JsonFactory JSON = new JsonFactory();
    private final Writer out;
    private final boolean closeOut;

    /**
     * @param out where the lines go, UTF-8; each line is flushed as it is written
     * @param closeOut whether {@link #close()} closes {@code out} (false for {@code System.out})
     */
    public JsonEventWriter(OutputStream out, boolean closeOut) {
        this.out = new java.io.OutputStreamWriter(Objects.requireNonNull(out, "out"), StandardCharsets.UTF_8);
        this.closeOut = closeOut;
    }

    /**
     * Writes one line. Called on the scheduler's thread.
     *
     * @param event the event
     * @throws UncheckedIOException if the stream fails
     */
    @Override
    public synchronized void accept(SchedulerEvent event) {
        try {
            out.write(toJson(event));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Flushes, and closes the stream if this writer owns it.
     *
     * @throws IOException if the stream fails
     */
    @Override
    public synchronized void close() throws IOException {
        out.flush();
        if (closeOut) {
            out.close();
        }
    }

    /**
     * @param event an event
     * @return its JSON object on one line, without a line break
     */
    public static String toJson(SchedulerEvent event) {
        StringWriter s = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(s)) {
            g.writeStartObject();
            g.writeStringField("event", snake(event.getClass().getSimpleName()));
            writeComponents(g, (Record) event, Cut.NONE);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return s.toString();
    }

    /**
     * The JSON of one value an event carries, by the rules above: what {@link #toJson(SchedulerEvent)}
     * writes for a component holding it. Lets a caller that writes a large event often (the status
     * board's {@code status.json}) keep the JSON of its unchanged parts.
     *
     * @param value a value an event may carry: a record such as {@link JobResult}, a list or map of
     *              such values, an {@code Optional}, a string, number, instant, duration or enum;
     *              {@code null} is written as JSON {@code null}
     * @return its JSON on one line, without a line break
     */
    public static String valueToJson(Object value) {
        return valueJson(value, Cut.NONE);
    }

    /**
     * The JSON of a value as a list view shows it (the dashboard's live tables; the service's
     * {@code queue} answer is written to the same bytes by {@code io.gpusched.protocol.ProtocolCodec}, whose
     * field list is explicit): as {@link #valueToJson}, but a record component named {@code command} longer than
     * {@code commandChars} characters, and any other string longer than {@code textChars}, is cut to
     * one character less and an ellipsis ({@code …}); a record component cut so is followed by
     * {@code <name>_chars}, its whole length. Characters are UTF-16 units, as Java and JavaScript count
     * them (one outside the Basic Multilingual Plane counts two, and is never split). So one row's JSON
     * stays small whatever its command, reason or names hold.
     *
     * @param value as for {@link #valueToJson}
     * @param commandChars the longest command written whole, at least 2
     * @param textChars the longest other string written whole, at least 2
     * @return its JSON on one line, without a line break
     * @throws IllegalArgumentException if a limit is below 2
     */
    public static String listJson(Object value, int commandChars, int textChars) {
        if (commandChars < 2 || textChars < 2) {
            throw new IllegalArgumentException("list views keep at least 2 characters, got " + commandChars + " and "
                    + textChars);
        }
        return valueJson(value, new Cut(commandChars, textChars));
    }

    /** A value's JSON on one line, its strings cut as {@code cut} says (a top-level string at its text limit). */
    private static String valueJson(Object value, Cut cut) {
        StringWriter s = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(s)) {
            writeValue(g, value, cut, cut.text());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return s.toString();
    }

    /**
     * Where strings are cut: commands at {@code command} characters, other strings at {@code text}; and
     * whether every record is written by reflection ({@code reflective}), as {@link #reflectiveJson} asks to
     * check the direct writers against it.
     */
    private record Cut(int command, int text, boolean reflective) {
        static final Cut NONE = new Cut(Integer.MAX_VALUE, Integer.MAX_VALUE, false);

        Cut(int command, int text) {
            this(command, text, false);
        }
    }

    /**
     * {@link #valueToJson} (with {@code commandChars} and {@code textChars} at {@link Integer#MAX_VALUE}) or
     * {@link #listJson}, with every record written by reflection over its components, as before the direct
     * writers ({@link #writePending}): the tests' oracle for them.
     */
    static String reflectiveJson(Object value, int commandChars, int textChars) {
        return valueJson(value, new Cut(commandChars, textChars, true));
    }

    /**
     * @return {@code s} cut to {@code maxChars} UTF-16 units ending in an ellipsis, or {@code s} itself
     *     when it has no more; never splits a surrogate pair. O(1): a 64 KiB command costs what a short
     *     one does
     */
    private static String cut(String s, int maxChars) {
        if (s.length() <= maxChars) {
            return s;
        }
        int end = maxChars - 1;
        return s.substring(0, Character.isHighSurrogate(s.charAt(end - 1)) ? end - 1 : end) + "…";
    }

    /** A record component as written: its accessor, its JSON name (with {@code _s} for a duration), its snake name. */
    private record Component(java.lang.reflect.Method accessor, String field, String name, boolean command,
                             boolean omittedWhenEmpty) {
    }

    /**
     * Each record type's components, looked up once: reflecting them (generic types included) for
     * every row cost more than writing the row (a 100,000-job queue answer).
     */
    private static final ClassValue<java.util.List<Component>> COMPONENTS = new ClassValue<>() {
        @Override
        protected java.util.List<Component> computeValue(Class<?> type) {
            java.util.List<Component> out = new java.util.ArrayList<>();
            for (RecordComponent c : type.getRecordComponents()) {
                String name = snake(c.getName());
                out.add(new Component(c.getAccessor(), isDuration(c) ? name + "_s" : name, name,
                        c.getName().equals("command"), omittedWhenEmpty(type, c.getName())));
            }
            return java.util.List.copyOf(out);
        }
    };

    /**
     * The components {@link OmittedWhenEmpty} marks, by record type: listed here rather than read from the
     * annotations at run time, because reading a component's annotations makes the JVM generate a proxy
     * class for the annotation and for its {@code @Retention} (a few milliseconds of interpreted work on
     * every start, since every status board writes these rows). JsonEventWriterTest checks that this list
     * is exactly what the annotations mark on every record an event can carry.
     */
    private static final Map<Class<?>, java.util.Set<String>> OMITTED_WHEN_EMPTY = Map.of(
            StatusBoard.Running.class, java.util.Set.of("cluster", "tty"),
            StatusBoard.Pending.class, java.util.Set.of("gpusAsked", "since", "tty"));

    /** @return whether {@code type}'s component {@code component} is marked {@link OmittedWhenEmpty} */
    static boolean omittedWhenEmpty(Class<?> type, String component) {
        return OMITTED_WHEN_EMPTY.getOrDefault(type, java.util.Set.of()).contains(component);
    }

    private static void writeComponents(JsonGenerator g, Record r, Cut cut) throws IOException {
        for (Component c : COMPONENTS.get(r.getClass())) {
            Object v;
            try {
                v = c.accessor().invoke(r);
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("cannot read " + c.accessor(), e);
            }
            if (c.omittedWhenEmpty() && (v instanceof Optional<?> o && o.isEmpty() || Boolean.FALSE.equals(v))) {
                continue;
            }
            if (v instanceof Notes<?> notes) {
                // In its place, each note a field of its own under its attribute's name; none when it has none.
                for (Notes.Note<?> n : notes.all()) {
                    writeField(g, n.attribute().fieldName(), n.attribute().fieldName(), n.text(), cut, cut.text());
                }
                continue;
            }
            writeField(g, c.field(), c.name(), v, cut, c.command() ? cut.command() : cut.text());
        }
        if (r instanceof RunSummary summary) {
            g.writeNumberField("exit_code", summary.exitCode());
        } else if (r instanceof JobResult result) {
            // The verdict in the log's words: "verdict": "under" (the peak was under the declaration)
            // is the log's "over-declared".
            g.writeFieldName("declaration");
            writeValue(g, result.verdict().declaration().map(w -> w.replace('-', '_')), cut, cut.text());
        }
    }

    /**
     * A pending row's fields, as {@link #writeComponents} writes them (same names, order and omissions),
     * without its reflection: a status board renders every pending row once, and a queue of 10,000 new
     * lines spent more of its first round on reflecting each row's 13 components than on planning them.
     * {@code PendingRowJsonTest} checks this against the reflective writer on random rows.
     */
    private static void writePending(JsonGenerator g, StatusBoard.Pending p, Cut cut) throws IOException {
        g.writeNumberField("no", p.no());
        writeField(g, "command", "command", p.command(), cut, cut.command());
        writeField(g, "declared_mib", "declared_mib", p.declaredMib(), cut, cut.text());
        g.writeNumberField("attempts", p.attempts());
        writeField(g, "reason", "reason", p.reason(), cut, cut.text());
        writeField(g, "owner", "owner", p.owner(), cut, cut.text());
        g.writeBooleanField("held", p.held());
        g.writeNumberField("priority", p.priority());
        writeField(g, "rule", "rule", p.rule(), cut, cut.text());
        for (Notes.Note<String> n : p.notes().all()) {
            writeField(g, n.attribute().fieldName(), n.attribute().fieldName(), n.text(), cut, cut.text());
        }
        if (p.gpusAsked().isPresent()) {
            writeField(g, "gpus_asked", "gpus_asked", p.gpusAsked(), cut, cut.text());
        }
        if (p.since().isPresent()) {
            writeField(g, "since", "since", p.since(), cut, cut.text());
        }
        if (p.tty()) {
            g.writeBooleanField("tty", true);
        }
    }

    /** One field: {@code field}, its value, and {@code <name>_chars} after a string cut to {@code maxChars}. */
    private static void writeField(JsonGenerator g, String field, String name, Object v, Cut cut, int maxChars)
            throws IOException {
        g.writeFieldName(field);
        writeValue(g, v, cut, maxChars);
        String text = v instanceof String str ? str : v instanceof Optional<?> o && o.orElse(null) instanceof String str
                ? str : null;
        if (text != null && text.length() > maxChars) {
            g.writeNumberField(name + "_chars", text.length());
        }
    }

    private static boolean isDuration(RecordComponent c) {
        if (c.getType() == Duration.class) {
            return true;
        }
        return c.getType() == Optional.class && c.getGenericType().getTypeName().contains("java.time.Duration");
    }

    /** @param maxChars where a string here is cut; nested records and collections cut as {@code cut} says */
    private static void writeValue(JsonGenerator g, Object v, Cut cut, int maxChars) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof Optional<?> o) {
            writeValue(g, o.orElse(null), cut, maxChars);
        } else if (v instanceof OptionalLong o) {
            if (o.isPresent()) {
                g.writeNumber(o.getAsLong());
            } else {
                g.writeNull();
            }
        } else if (v instanceof OptionalInt o) {
            if (o.isPresent()) {
                g.writeNumber(o.getAsInt());
            } else {
                g.writeNull();
            }
        } else if (v instanceof OptionalDouble o) {
            if (o.isPresent()) {
                g.writeNumber(o.getAsDouble());
            } else {
                g.writeNull();
            }
        } else if (v instanceof String s) {
            g.writeString(cut(s, maxChars));
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Integer i) {
            g.writeNumber(i);
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof Double d) {
            g.writeNumber(d);
        } else if (v instanceof Number n) {
            g.writeNumber(n.toString());
        } else if (v instanceof Instant i) {
            g.writeString(i.toString());
        } else if (v instanceof Duration d) {
            g.writeNumber(d.toNanos() / 1e9);
        } else if (v instanceof Path p) {
            g.writeString(p.toString());
        } else if (v instanceof Enum<?> e) {
            g.writeString(e.name().toLowerCase(Locale.ROOT));
        } else if (v instanceof Map<?, ?> m) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : new TreeMap<>(m).entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                writeValue(g, e.getValue(), cut, cut.text());
            }
            g.writeEndObject();
        } else if (v instanceof Collection<?> c) {
            g.writeStartArray();
            for (Object o : c) {
                writeValue(g, o, cut, cut.text());
            }
            g.writeEndArray();
        } else if (v instanceof StatusBoard.Pending p && !cut.reflective()) {
            g.writeStartObject();
            writePending(g, p, cut);
            g.writeEndObject();
        } else if (v instanceof Record r) {
            g.writeStartObject();
            writeComponents(g, r, cut);
            g.writeEndObject();
        } else {
            g.writeString(v.toString());
        }
    }

    /** {@code JobStarted} → {@code job_started}; {@code declaredMib} → {@code declared_mib}. */
    static String snake(String camel) {
        StringBuilder b = new StringBuilder(camel.length() + 4);
        for (int i = 0; i < camel.length(); i++) {
            char ch = camel.charAt(i);
            if (Character.isUpperCase(ch)) {
                if (i > 0) {
                    b.append('_');
                }
                b.append(Character.toLowerCase(ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}

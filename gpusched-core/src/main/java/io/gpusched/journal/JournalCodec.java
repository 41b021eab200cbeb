package io.gpusched.journal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Journal events to and from single JSON lines, with jackson-core's streaming API (no databind). One
 * shared, thread-safe {@link JsonFactory}.
 */
public final class JournalCodec {
    private final JsonFactory json = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(40).maxNestingDepth(8).build())
            .build();

    /**
     * @param e an event
     * @return its JSON text, without a line end
     */
    public String encode(JournalEvent e) {
        StringWriter out = new StringWriter(128);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("key", e.key());
            if (e instanceof JournalEvent.Seen s) {
                g.writeStringField("event", "seen");
                g.writeNumberField("no", s.no());
                g.writeStringField("command", s.command());
            } else if (e instanceof JournalEvent.Launching l) {
                g.writeStringField("event", "launching");
                g.writeNumberField("run", l.run());
                g.writeArrayFieldStart("gpus");
                for (int gpu : l.gpus()) {
                    g.writeNumber(gpu);
                }
                g.writeEndArray();
            } else if (e instanceof JournalEvent.Started s) {
                g.writeStringField("event", "started");
                g.writeNumberField("pgid", s.pgid());
                g.writeArrayFieldStart("gpus");
                for (int gpu : s.gpus()) {
                    g.writeNumber(gpu);
                }
                g.writeEndArray();
            } else if (e instanceof JournalEvent.Interrupted) {
                g.writeStringField("event", "interrupted");
            } else if (e instanceof JournalEvent.Oom o) {
                g.writeStringField("event", "oom");
                g.writeNumberField("attempts", o.attempts());
                g.writeFieldName("next_vram");
                if (o.nextVramMib().isPresent()) {
                    g.writeNumber(o.nextVramMib().getAsLong());
                } else {
                    g.writeNull();
                }
            } else if (e instanceof JournalEvent.Done d) {
                g.writeStringField("event", "done");
                g.writeStringField("status", d.status());
                g.writeNumberField("returncode", d.returncode());
                g.writeObjectFieldStart("peak_mib");
                for (Map.Entry<Integer, Long> p : d.peakMib().entrySet()) {
                    g.writeNumberField(String.valueOf(p.getKey()), p.getValue());
                }
                g.writeEndObject();
                g.writeFieldName("avg_util");
                if (d.avgUtil().isPresent()) {
                    g.writeNumber(d.avgUtil().getAsDouble());
                } else {
                    g.writeNull();
                }
            }
            g.writeEndObject();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return out.toString();
    }

    /**
     * Reads one line.
     *
     * @param line one line of the journal
     * @return the event; empty for a well-formed line of an event type this version does not know
     * @throws IllegalArgumentException when the line is not a journal event (torn, garbage, missing key)
     */
    public Optional<JournalEvent> decode(String line) {
        Map<String, Object> fields = new java.util.HashMap<>();
        try (JsonParser p = json.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                fields.put(name, value(p, t));
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new IllegalArgumentException("trailing content");
            }
        } catch (IOException ex) {
            throw new IllegalArgumentException(firstLine(String.valueOf(ex.getMessage())), ex);
        }
        Object key = fields.get("key");
        Object event = fields.get("event");
        if (!(key instanceof String k) || !(event instanceof String ev)) {
            throw new IllegalArgumentException("missing \"key\" or \"event\"");
        }
        switch (ev) {
            case "seen":
                return Optional.of(new JournalEvent.Seen(k, (int) integer(fields, "no", 0), string(fields, "command")));
            case "started":
                return Optional.of(new JournalEvent.Started(k, integer(fields, "pgid", 0), gpus(fields.get("gpus"))));
            case "launching":
                return Optional.of(new JournalEvent.Launching(k, integer(fields, "run", 0), gpus(fields.get("gpus"))));
            case "interrupted":
                return Optional.of(new JournalEvent.Interrupted(k));
            case "oom":
                Object next = fields.get("next_vram");
                return Optional.of(new JournalEvent.Oom(k, (int) integer(fields, "attempts", 1),
                        next instanceof Number n ? OptionalLong.of(n.longValue()) : OptionalLong.empty()));
            case "done":
                Object util = fields.get("avg_util");
                return Optional.of(new JournalEvent.Done(k, fields.get("status") instanceof String s ? s : "failed",
                        (int) integer(fields, "returncode", 1), peaks(fields.get("peak_mib")),
                        util instanceof Number n ? OptionalDouble.of(n.doubleValue()) : OptionalDouble.empty()));
            default:
                return Optional.empty();
        }
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return p.getNumberValue();
            case VALUE_TRUE:
            case VALUE_FALSE:
                return p.getBooleanValue();
            case VALUE_NULL:
                return null;
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                JsonToken n;
                while ((n = p.nextToken()) != JsonToken.END_ARRAY) {
                    if (n == null) {
                        throw new IllegalArgumentException("unterminated array");
                    }
                    list.add(value(p, n));
                }
                return list;
            }
            case START_OBJECT: {
                Map<String, Object> map = new TreeMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    map.put(name, value(p, p.nextToken()));
                }
                if (p.currentToken() != JsonToken.END_OBJECT) {
                    throw new IllegalArgumentException("unterminated object");
                }
                return map;
            }
            default:
                throw new IllegalArgumentException("unexpected " + t);
        }
    }

    private static long integer(Map<String, Object> fields, String name, long fallback) {
        return fields.get(name) instanceof Number n ? n.longValue() : fallback;
    }

    private static String string(Map<String, Object> fields, String name) {
        return fields.get(name) instanceof String s ? s : "";
    }

    private static List<Integer> gpus(Object o) {
        List<Integer> out = new ArrayList<>();
        if (o instanceof List<?> l) {
            for (Object x : l) {
                if (x instanceof Number n) {
                    out.add(n.intValue());
                }
            }
        }
        return out;
    }

    private static Map<Integer, Long> peaks(Object o) {
        Map<Integer, Long> out = new TreeMap<>();
        if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                try {
                    if (e.getValue() instanceof Number n) {
                        out.put(Integer.parseInt(String.valueOf(e.getKey())), n.longValue());
                    }
                } catch (NumberFormatException ignored) {
                    // a GPU key that is not an index says nothing we can use
                }
            }
        }
        return out;
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}

package io.gpusched.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * One JSON object of a protocol line, read with typed getters, as the journal's {@code EventFields}
 * does: a getter accepts only its type (a whole number is an integer literal in range, never
 * {@code 1.5}) and says which field was wrong ({@code "no" must be a whole number}). Fields this version
 * does not know are ignored; a field added in a later version of the protocol reads as its documented
 * default when absent. Every refusal is an {@link IllegalArgumentException}.
 *
 * <p>The one JSON reader of the protocol, both ways: the service reads requests with it and the client
 * answers. An integer literal beyond a long is no number this protocol sends: it reads as a decimal, so
 * its field is refused as not whole (the same answer as for {@code 1.5}), never as unreadable JSON.
 * Nesting deeper than the factory allows, and a number longer than jackson's 1000 digits, are unreadable
 * JSON.
 */
final class Fields {
    private final Map<String, Object> fields;

    private Fields(Map<String, Object> fields) {
        this.fields = fields;
    }

    /** @throws IllegalArgumentException unless {@code line} is one JSON object */
    static Fields parse(JsonFactory json, String line) {
        try (JsonParser p = json.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) value(p, JsonToken.START_OBJECT);
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("text after the object");
            }
            return new Fields(m);
        } catch (IOException e) {
            String s = String.valueOf(e.getMessage());
            int nl = s.indexOf('\n');
            throw new IllegalArgumentException("not JSON: " + (nl < 0 ? s : s.substring(0, nl)), e);
        }
    }

    boolean has(String name) {
        return fields.get(name) != null;
    }

    /** @return the raw value, for a message that quotes it */
    Object raw(String name) {
        return fields.get(name);
    }

    String string(String name) {
        if (fields.get(name) instanceof String s) {
            return s;
        }
        throw bad(name, "a string");
    }

    /** A string, or empty when absent or {@code null}. */
    Optional<String> optionalString(String name) {
        return has(name) ? Optional.of(string(name)) : Optional.empty();
    }

    /** A string that a later version added: {@code otherwise} when absent or {@code null}. */
    String stringOr(String name, String otherwise) {
        return optionalString(name).orElse(otherwise);
    }

    /** A list view's text and, when it was cut, its whole length from {@code <name>_chars}. */
    ListText text(String name) {
        return new ListText(string(name), optionalInt(name + "_chars"));
    }

    /** A list view's text, or empty when absent or {@code null}. */
    Optional<ListText> optionalText(String name) {
        return has(name) ? Optional.of(text(name)) : Optional.empty();
    }

    boolean bool(String name) {
        if (fields.get(name) instanceof Boolean b) {
            return b;
        }
        throw bad(name, "true or false");
    }

    boolean boolOr(String name, boolean otherwise) {
        return has(name) ? bool(name) : otherwise;
    }

    long whole(String name) {
        return whole(fields.get(name), name);
    }

    int wholeInt(String name) {
        return toInt(whole(name), name);
    }

    int intOr(String name, int otherwise) {
        return has(name) ? wholeInt(name) : otherwise;
    }

    long longOr(String name, long otherwise) {
        return has(name) ? whole(name) : otherwise;
    }

    /** A whole number, or empty when absent or {@code null}. */
    OptionalLong optionalLong(String name) {
        return has(name) ? OptionalLong.of(whole(name)) : OptionalLong.empty();
    }

    /** An int, or empty when absent or {@code null}. */
    OptionalInt optionalInt(String name) {
        return has(name) ? OptionalInt.of(wholeInt(name)) : OptionalInt.empty();
    }

    /** A whole number from 0 to 2^31 - 1: a job number, a GPU index, a umask. */
    int count(String name) {
        long v = whole(name);
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw bad(name, "a whole number");
        }
        return (int) v;
    }

    /** A {@link #count}, or empty when absent or {@code null}. */
    OptionalInt optionalCount(String name) {
        return has(name) ? OptionalInt.of(count(name)) : OptionalInt.empty();
    }

    /** A number (whole or decimal). */
    double number(String name) {
        if (fields.get(name) instanceof Number n) {
            return n.doubleValue();
        }
        throw bad(name, "a number");
    }

    double numberOr(String name, double otherwise) {
        return has(name) ? number(name) : otherwise;
    }

    OptionalDouble optionalNumber(String name) {
        return has(name) ? OptionalDouble.of(number(name)) : OptionalDouble.empty();
    }

    Fields object(String name) {
        if (fields.get(name) instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, Object> o = (Map<String, Object>) m;
            return new Fields(o);
        }
        throw bad(name, "an object");
    }

    /** An object, or one without fields when absent or {@code null}. */
    Fields objectOrEmpty(String name) {
        return has(name) ? object(name) : new Fields(Map.of());
    }

    /** An array of objects; none when absent or {@code null}. */
    List<Fields> objects(String name) {
        List<Fields> out = new ArrayList<>();
        for (Object o : list(name)) {
            if (!(o instanceof Map<?, ?> m)) {
                throw bad(name, "an array of objects");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> f = (Map<String, Object>) m;
            out.add(new Fields(f));
        }
        return out;
    }

    /** An array of ints; none when absent or {@code null}. */
    List<Integer> ints(String name) {
        List<Integer> out = new ArrayList<>();
        for (Object o : list(name)) {
            out.add(toInt(whole(o, name), name));
        }
        return out;
    }

    /** An array of strings; none when absent or {@code null}. */
    List<String> strings(String name) {
        List<String> out = new ArrayList<>();
        for (Object o : list(name)) {
            if (!(o instanceof String s)) {
                throw bad(name, "an array of strings");
            }
            out.add(s);
        }
        return out;
    }

    /** An object of string values, in the order sent; none when absent or {@code null}. */
    Map<String, String> stringMap(String name) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : objectOrEmpty(name).fields.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw bad(name, "an object of strings");
            }
            out.put(e.getKey(), s);
        }
        return out;
    }

    /** An object of whole numbers keyed by GPU index, sorted by index; none when absent or {@code null}. */
    Map<Integer, Long> wholeByIndex(String name) {
        Map<Integer, Long> out = new TreeMap<>();
        for (Map.Entry<String, Object> e : objectOrEmpty(name).fields.entrySet()) {
            int index;
            try {
                index = Integer.parseInt(e.getKey());
            } catch (NumberFormatException x) {
                throw bad(name, "an object keyed by GPU index");
            }
            out.put(index, whole(e.getValue(), name));
        }
        return out;
    }

    /** The names present, in the order sent. */
    Iterable<String> names() {
        return fields.keySet();
    }

    private List<?> list(String name) {
        Object v = fields.get(name);
        if (v == null) {
            return List.of();
        }
        if (v instanceof List<?> l) {
            return l;
        }
        throw bad(name, "an array");
    }

    private static long whole(Object v, String name) {
        if (v instanceof Long l) {
            return l;
        }
        throw bad(name, "a whole number");
    }

    private static int toInt(long v, String name) {
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw bad(name, "a whole number in int range");
        }
        return (int) v;
    }

    private static IllegalArgumentException bad(String name, String what) {
        return new IllegalArgumentException("\"" + name + "\" must be " + what);
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        if (t == null) {
            throw new IllegalArgumentException("the line ends inside a value");
        }
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    // A key given twice is refused, as the journal refuses it: which one the line meant is
                    // not for the daemon to guess ("v" twice, an environment name set twice).
                    if (m.containsKey(name)) {
                        throw new IllegalArgumentException("\"" + name + "\" given twice");
                    }
                    m.put(name, value(p, p.nextToken()));
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                JsonToken n;
                while ((n = p.nextToken()) != JsonToken.END_ARRAY) {
                    l.add(value(p, n));
                }
                return l;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                // Beyond a long it is no number this protocol sends: read as a decimal, refused as whole.
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    return p.getDoubleValue();
                }
                return p.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return p.getDoubleValue();
            case VALUE_TRUE:
                return true;
            case VALUE_FALSE:
                return false;
            case VALUE_NULL:
                return null;
            default:
                throw new IllegalArgumentException("unexpected " + t);
        }
    }
}

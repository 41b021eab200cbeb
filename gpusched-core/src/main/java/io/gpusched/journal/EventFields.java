package io.gpusched.journal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The fields of one journal line, read strictly: the line must be exactly one JSON object (no
 * duplicate names at any depth, nesting and number length bounded by the factory's constraints), and
 * each typed getter accepts only its documented type and range. A whole number is a JSON integer
 * literal: {@code 1.0}, {@code 1e3} and anything outside the range are refused rather than rounded,
 * truncated or wrapped. Every refusal is an {@link IllegalArgumentException}, which makes the line
 * unreadable.
 */
final class EventFields {
    private final Map<String, Object> fields;

    private EventFields(Map<String, Object> fields) {
        this.fields = fields;
    }

    /** @throws IllegalArgumentException unless {@code line} is one well-formed JSON object */
    static EventFields parse(JsonFactory json, String line) {
        Map<String, Object> fields = new HashMap<>();
        try (JsonParser p = json.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                fields.put(name, value(p, p.nextToken()));
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new IllegalArgumentException("trailing content");
            }
        } catch (IOException ex) {
            // Jackson's parse and constraint errors (depth, number length, duplicate names) are IOExceptions.
            throw new IllegalArgumentException(firstLine(String.valueOf(ex.getMessage())), ex);
        }
        return new EventFields(fields);
    }

    /** A string field that must be present and not empty. */
    String nonEmptyString(String name) {
        String s = string(name);
        if (s.isEmpty()) {
            throw new IllegalArgumentException("\"" + name + "\" is empty");
        }
        return s;
    }

    /** A string field that must be present. */
    String string(String name) {
        if (fields.get(name) instanceof String s) {
            return s;
        }
        throw bad(name, "a string");
    }

    /** A string, or nothing when the field is absent. */
    Optional<String> optionalString(String name) {
        return fields.containsKey(name) ? Optional.of(string(name)) : Optional.empty();
    }

    /** An object of string values, or nothing when the field is absent. */
    Optional<Map<String, String>> optionalStringMap(String name) {
        if (!fields.containsKey(name)) {
            return Optional.empty();
        }
        if (!(fields.get(name) instanceof Map<?, ?> map)) {
            throw bad(name, "an object");
        }
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getValue() instanceof String v)) {
                throw bad(name, "an object of strings");
            }
            out.put((String) e.getKey(), v);
        }
        return Optional.of(out);
    }

    /** A boolean field that must be present. */
    boolean bool(String name) {
        if (fields.get(name) instanceof Boolean b) {
            return b;
        }
        throw bad(name, "true or false");
    }

    /** A boolean, or false when the field is absent. */
    boolean optionalBool(String name) {
        return fields.containsKey(name) && bool(name);
    }

    /** A whole number in [min, max] that must be present. */
    long whole(String name, long min, long max) {
        return wholeIn(fields.get(name), name, min, max);
    }

    /** A whole number in [min, max], or {@code null}; the field must be present. */
    OptionalLong nullableWhole(String name, long min, long max) {
        requirePresent(name);
        Object v = fields.get(name);
        return v == null ? OptionalLong.empty() : OptionalLong.of(wholeIn(v, name, min, max));
    }

    /** A whole number in [min, max], or nothing when the field is absent. */
    OptionalLong optionalWhole(String name, long min, long max) {
        return fields.containsKey(name) ? OptionalLong.of(whole(name, min, max)) : OptionalLong.empty();
    }

    /** A whole number in [min, max], or nothing when the field is absent or {@code null}. */
    OptionalLong optionalNullableWhole(String name, long min, long max) {
        return fields.containsKey(name) ? nullableWhole(name, min, max) : OptionalLong.empty();
    }

    /** A finite number in [min, max], or {@code null}; the field must be present. */
    OptionalDouble nullableNumber(String name, double min, double max) {
        requirePresent(name);
        Object v = fields.get(name);
        if (v == null) {
            return OptionalDouble.empty();
        }
        if (v instanceof Number n && !(v instanceof BigInteger)) {
            double d = n.doubleValue();
            if (Double.isFinite(d) && d >= min && d <= max) {
                return OptionalDouble.of(d);
            }
        }
        throw bad(name, "null or a number in [" + min + ", " + max + "]");
    }

    /** An array of whole numbers, each in [min, max], that must be present. */
    List<Integer> wholeList(String name, int min, int max) {
        if (!(fields.get(name) instanceof List<?> list)) {
            throw bad(name, "an array");
        }
        List<Integer> out = new ArrayList<>(list.size());
        for (Object x : list) {
            out.add((int) wholeIn(x, name, min, max));
        }
        return out;
    }

    /**
     * An optional array of exactly {@code count} GPU UUIDs ({@code GPU-…} or {@code MIG-…}, as
     * {@link io.gpusched.jobs.Scheduling#GPU_UUID} reads them): empty when absent, and when it is anything
     * else (a damaged or hand-edited field), which costs a run only where it is followed after a restart,
     * never the line.
     */
    List<String> deviceNames(String name, int count) {
        if (!(fields.get(name) instanceof List<?> list) || list.size() != count) {
            return List.of();
        }
        List<String> out = new ArrayList<>(count);
        for (Object x : list) {
            if (!(x instanceof String s) || !io.gpusched.jobs.Scheduling.GPU_UUID.matcher(s).matches()) {
                return List.of();
            }
            out.add(s);
        }
        return out;
    }

    /**
     * An optional GPU UUID, read as {@link #deviceNames} reads each: empty when absent or anything else.
     */
    Optional<String> deviceName(String name) {
        return fields.get(name) instanceof String s && io.gpusched.jobs.Scheduling.GPU_UUID.matcher(s).matches()
                ? Optional.of(s) : Optional.empty();
    }

    /**
     * An optional array of at most {@code maxItems} pairs {@code [a, b]} of whole numbers in [min, max]:
     * empty when the field is absent.
     */
    List<long[]> optionalPairs(String name, int maxItems, long min, long max) {
        if (!fields.containsKey(name)) {
            return List.of();
        }
        if (!(fields.get(name) instanceof List<?> list) || list.size() > maxItems) {
            throw bad(name, "an array of at most " + maxItems + " pairs");
        }
        List<long[]> out = new ArrayList<>(list.size());
        for (Object x : list) {
            if (!(x instanceof List<?> pair) || pair.size() != 2) {
                throw bad(name, "an array of [a, b] pairs");
            }
            out.add(new long[] {wholeIn(pair.get(0), name, min, max), wholeIn(pair.get(1), name, min, max)});
        }
        return out;
    }

    /**
     * An object mapping index keys (canonical decimal: {@code "0"}, {@code "12"}, never {@code "01"}
     * or {@code "+1"}) in [0, maxKey] to whole numbers in [min, max]; it must be present.
     */
    Map<Integer, Long> wholeByIndex(String name, int maxKey, long min, long max) {
        if (!(fields.get(name) instanceof Map<?, ?> map)) {
            throw bad(name, "an object");
        }
        Map<Integer, Long> out = new TreeMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String key = (String) e.getKey();
            if (!canonicalIndex(key) || Long.parseLong(key) > maxKey) {
                throw bad(name, "an object keyed by indices 0.." + maxKey);
            }
            out.put(Integer.parseInt(key), wholeIn(e.getValue(), name, min, max));
        }
        return out;
    }

    private static boolean canonicalIndex(String s) {
        if (s.isEmpty() || s.length() > 10 || (s.charAt(0) == '0' && s.length() > 1)) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private void requirePresent(String name) {
        if (!fields.containsKey(name)) {
            throw new IllegalArgumentException("missing \"" + name + "\"");
        }
    }

    private static long wholeIn(Object v, String name, long min, long max) {
        // Jackson gives Integer, Long or BigInteger for integer literals, Double for anything with '.' or 'e'.
        if (v instanceof Integer || v instanceof Long) {
            long x = ((Number) v).longValue();
            if (x >= min && x <= max) {
                return x;
            }
        }
        throw bad(name, "a whole number in [" + min + ", " + max + "]");
    }

    private static IllegalArgumentException bad(String name, String what) {
        return new IllegalArgumentException("\"" + name + "\" is not " + what);
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        if (t == null) {
            throw new IllegalArgumentException("line ends inside a value");
        }
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
                // Recursion is as deep as the factory's nesting limit allows, no deeper.
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

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}

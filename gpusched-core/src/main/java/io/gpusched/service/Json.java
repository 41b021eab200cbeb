package io.gpusched.service;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request line as the service reads it: one JSON object as plain maps, lists, strings, numbers,
 * booleans and null, which {@link Requests} checks field by field (each op's checks, in their order, give
 * its error). What the service writes, and everything a client reads, goes through
 * {@link io.gpusched.protocol.ProtocolCodec}.
 */
final class Json {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).build()).build();

    private Json() {
    }

    /** @throws IllegalArgumentException when the line is not one JSON object */
    static Map<String, Object> parseObject(String line) {
        try (JsonParser p = FACTORY.createParser(line)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) value(p, JsonToken.START_OBJECT);
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("text after the object");
            }
            return m;
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + firstLine(e.getMessage()));
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
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

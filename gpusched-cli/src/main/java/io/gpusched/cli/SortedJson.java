package io.gpusched.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The client verbs' {@code --json} text: the protocol's JSON with every object's keys in sorted order, as
 * these verbs have always printed it (so scripts that diff their output keep working). A reordering of
 * tokens, not a reading: values, numbers' text and escapes pass through as the codec wrote them.
 */
final class SortedJson {
    private static final JsonFactory JSON = new JsonFactory();

    private SortedJson() {
    }

    /**
     * @param json one JSON value, as {@link io.gpusched.protocol.ProtocolCodec} writes it
     * @return the same value with each object's keys sorted, on one line
     */
    static String of(String json) {
        StringWriter out = new StringWriter(json.length());
        try (JsonParser p = JSON.createParser(json); JsonGenerator g = JSON.createGenerator(out)) {
            copy(p, p.nextToken(), g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void copy(JsonParser p, JsonToken t, JsonGenerator g) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                // Each member's text, sorted by name: objects here are rows and snapshots, a few KiB each.
                Map<String, String> members = new TreeMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    StringWriter member = new StringWriter();
                    try (JsonGenerator m = JSON.createGenerator(member)) {
                        copy(p, p.nextToken(), m);
                    }
                    members.put(name, member.toString());
                }
                g.writeStartObject();
                for (Map.Entry<String, String> e : members.entrySet()) {
                    g.writeFieldName(e.getKey());
                    g.writeRawValue(e.getValue());
                }
                g.writeEndObject();
            }
            case START_ARRAY -> {
                g.writeStartArray();
                for (JsonToken n = p.nextToken(); n != JsonToken.END_ARRAY; n = p.nextToken()) {
                    copy(p, n, g);
                }
                g.writeEndArray();
            }
            case VALUE_STRING -> g.writeString(p.getText());
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> g.writeNumber(p.getText());
            case VALUE_TRUE, VALUE_FALSE -> g.writeBoolean(p.getBooleanValue());
            case VALUE_NULL -> g.writeNull();
            default -> throw new IllegalArgumentException("unexpected " + t);
        }
    }
}

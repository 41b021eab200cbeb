package io.gpusched.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code journal.jsonl} read line by line, independently of the scheduler's own codec, so a test sees
 * every event as written (the fold keeps only the last state of each key).
 */
final class JournalLines {
    /**
     * One parsed line.
     *
     * @param lineNo 1-based line number
     * @param event the {@code event} field
     * @param key the {@code key} field
     * @param fields the other top-level scalar fields, as text
     */
    record Line(int lineNo, String event, String key, Map<String, String> fields) {
        Optional<String> field(String name) {
            return Optional.ofNullable(fields.get(name));
        }
    }

    /**
     * The lines, and one message per line that is not a JSON object with string {@code event} and
     * {@code key} fields; {@code cut} the numbers of those among them that are an event's start cut short
     * (its JSON ends early), as a write of several pages is left when SIGKILL comes between two of them.
     */
    record Parsed(List<Line> lines, List<String> errors, List<Integer> cut) {
        List<Line> of(String key, String event) {
            return lines.stream().filter(l -> l.key().equals(key) && l.event().equals(event)).toList();
        }

        /** @return display number to key, from the {@code seen} events */
        Map<Integer, String> keysByNo() {
            Map<Integer, String> out = new HashMap<>();
            for (Line l : lines) {
                if (l.event().equals("seen")) {
                    l.field("no").ifPresent(no -> out.put(Integer.parseInt(no), l.key()));
                }
            }
            return out;
        }
    }

    private static final JsonFactory JSON = new JsonFactory();

    private JournalLines() {
    }

    static Parsed read(Path journal) throws IOException {
        List<Line> lines = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<Integer> cut = new ArrayList<>();
        if (!Files.exists(journal)) {
            return new Parsed(lines, errors, cut);
        }
        String text = Files.readString(journal);
        String[] raw = text.split("\n", -1);
        for (int i = 0; i < raw.length; i++) {
            if (raw[i].isEmpty() && i == raw.length - 1) {
                continue; // after the last newline
            }
            try {
                lines.add(parse(i + 1, raw[i]));
            } catch (com.fasterxml.jackson.core.io.JsonEOFException e) {
                if (raw[i].startsWith("{\"key\":\"")) {
                    cut.add(i + 1);
                }
                errors.add("line " + (i + 1) + " is not a journal event (" + e.getMessage().lines().findFirst().orElse("")
                        + "): " + raw[i]);
            } catch (IOException | IllegalArgumentException e) {
                errors.add("line " + (i + 1) + " is not a journal event (" + e.getMessage().lines().findFirst().orElse("")
                        + "): " + raw[i]);
            }
        }
        if (!text.isEmpty() && !text.endsWith("\n")) {
            errors.add("the journal does not end with a newline (a torn last line?)");
        }
        return new Parsed(lines, errors, cut);
    }

    private static Line parse(int lineNo, String text) throws IOException {
        Map<String, String> fields = new HashMap<>();
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not an object");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
                    p.skipChildren();
                } else if (v != JsonToken.VALUE_NULL) {
                    fields.put(name, p.getText());
                }
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw new IllegalArgumentException("trailing text");
            }
        }
        String event = fields.remove("event");
        String key = fields.remove("key");
        if (event == null || key == null) {
            throw new IllegalArgumentException("no event or key");
        }
        return new Line(lineNo, event, key, Map.copyOf(fields));
    }
}

package io.gpusched.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A journal as a test reads it: each line's top-level scalar fields, as text. */
final class JournalFile {
    private static final JsonFactory JSON = new JsonFactory();

    final List<Map<String, String>> events;

    private JournalFile(List<Map<String, String>> events) {
        this.events = events;
    }

    static JournalFile read(Path journal) throws IOException {
        List<Map<String, String>> out = new ArrayList<>();
        for (String line : Files.readAllLines(journal, StandardCharsets.UTF_8)) {
            Map<String, String> fields = new HashMap<>();
            try (JsonParser p = JSON.createParser(line)) {
                p.nextToken();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken t = p.nextToken();
                    if (t.isStructStart()) {
                        p.skipChildren();
                    } else {
                        fields.put(name, p.getText());
                    }
                }
            }
            out.add(fields);
        }
        return new JournalFile(out);
    }

    /** @return the last event of this kind for this key */
    Optional<Map<String, String>> last(String event, String key) {
        Map<String, String> found = null;
        for (Map<String, String> e : events) {
            if (event.equals(e.get("event")) && key.equals(e.get("key"))) {
                found = e;
            }
        }
        return Optional.ofNullable(found);
    }

    /** @return the key the journal assigned to this exact command text */
    String keyOf(String command) {
        return events.stream().filter(e -> "seen".equals(e.get("event")) && command.equals(e.get("command")))
                .map(e -> e.get("key")).findFirst()
                .orElseThrow(() -> new AssertionError("no seen event with command " + abbreviate(command)));
    }

    /** @return "status/returncode" of the job's last done event */
    String outcome(String key) {
        Map<String, String> done = last("done", key).orElseThrow(() -> new AssertionError("no done event for " + key));
        return done.get("status") + "/" + done.get("returncode");
    }

    List<String> keys() {
        return events.stream().filter(e -> "seen".equals(e.get("event"))).map(e -> e.get("key")).toList();
    }

    List<Long> sessions() {
        return events.stream().filter(e -> "started".equals(e.get("event"))).map(e -> Long.parseLong(e.get("pgid"))).toList();
    }

    static String abbreviate(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "... (" + s.length() + " chars)";
    }
}

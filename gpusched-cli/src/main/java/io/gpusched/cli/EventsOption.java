package io.gpusched.cli;

import io.gpusched.event.JsonEventWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** {@code --events FILE|-}: the JSON Lines event stream next to the human log. */
final class EventsOption {
    private EventsOption() {
    }

    /** @return whether the stream goes to stdout (so the human log moves to stderr) */
    static boolean toStdout(Optional<String> events) {
        return events.isPresent() && events.get().equals("-");
    }

    /** @return the writer, or null without {@code --events} */
    static JsonEventWriter open(Optional<String> events, PrintStream stdout) {
        if (events.isEmpty()) {
            return null;
        }
        if (toStdout(events)) {
            return new JsonEventWriter(stdout, false);
        }
        Path file = Path.of(events.get());
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            return new JsonEventWriter(Files.newOutputStream(file), true);
        } catch (IOException | RuntimeException e) {
            throw new UsageException("--events: cannot write " + file + ": " + e.getMessage());
        }
    }

    /** @return something for try-with-resources that closes the writer, if any */
    static Quiet closing(JsonEventWriter w) {
        return new Quiet(w);
    }

    /** Closes without a checked exception. */
    record Quiet(JsonEventWriter w) implements AutoCloseable {
        @Override
        public void close() {
            if (w != null) {
                try {
                    w.close();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}

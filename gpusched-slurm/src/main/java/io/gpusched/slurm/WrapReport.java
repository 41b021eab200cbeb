package io.gpusched.slurm;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * What the wrapper inside a Slurm job tells the submitting side, as one small JSON file in the job's directory:
 * {@value #STARTED} once the command runs, {@value #RESULT} when it ended. Both are written whole (a temporary
 * file renamed over), so a reader never sees half of one.
 *
 * @param session the session id the command runs in on the compute node (its process group too)
 * @param gpus the GPUs Slurm gave the job ({@code CUDA_VISIBLE_DEVICES}), by index
 * @param host the compute node's name
 * @param startedMs when the command started, milliseconds since the epoch
 * @param endedMs when it ended; empty in {@value #STARTED}
 * @param exitCode its exit status (128 + signal when a signal ended it); empty in {@value #STARTED}
 * @param peakMib the largest VRAM its session's processes held at once, per GPU index; empty when none was seen
 * @param avgUtil the mean utilisation of its GPUs over the samples that saw its processes, in percent
 * @param measurement why nothing was measured (the backend could not be loaded), empty when it was
 */
record WrapReport(long session, List<Integer> gpus, String host, long startedMs, java.util.OptionalLong endedMs,
                  OptionalInt exitCode, Map<Integer, Long> peakMib, OptionalDouble avgUtil, Optional<String> measurement) {
    /** The file written when the command has started. */
    static final String STARTED = "started.json";
    /** The file written when the command has ended. */
    static final String RESULT = "result.json";
    /** The command's own output (standard output and error), appended. */
    static final String LOG = "job.log";

    private static final JsonFactory JSON = new JsonFactory();

    WrapReport {
        gpus = List.copyOf(gpus);
        Objects.requireNonNull(host, "host");
        peakMib = java.util.Collections.unmodifiableMap(new TreeMap<>(peakMib));
        Objects.requireNonNull(measurement, "measurement");
    }

    String encode() {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("session", session);
            g.writeArrayFieldStart("gpus");
            for (int gpu : gpus) {
                g.writeNumber(gpu);
            }
            g.writeEndArray();
            g.writeStringField("host", host);
            g.writeNumberField("started_ms", startedMs);
            if (endedMs.isPresent()) {
                g.writeNumberField("ended_ms", endedMs.getAsLong());
            }
            if (exitCode.isPresent()) {
                g.writeNumberField("exit", exitCode.getAsInt());
            }
            g.writeObjectFieldStart("peak_mib");
            for (Map.Entry<Integer, Long> p : peakMib.entrySet()) {
                g.writeNumberField(String.valueOf(p.getKey()), p.getValue());
            }
            g.writeEndObject();
            if (avgUtil.isPresent()) {
                g.writeNumberField("avg_util", avgUtil.getAsDouble());
            }
            if (measurement.isPresent()) {
                g.writeStringField("measurement", measurement.get());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out + "\n";
    }

    static WrapReport decode(String text) {
        long session = 0;
        long started = 0;
        String host = "";
        java.util.OptionalLong ended = java.util.OptionalLong.empty();
        OptionalInt exit = OptionalInt.empty();
        OptionalDouble util = OptionalDouble.empty();
        Optional<String> measurement = Optional.empty();
        List<Integer> gpus = new ArrayList<>();
        Map<Integer, Long> peaks = new TreeMap<>();
        try (JsonParser p = JSON.createParser(text)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                switch (name) {
                    case "session" -> session = p.getLongValue();
                    case "host" -> host = p.getText();
                    case "started_ms" -> started = p.getLongValue();
                    case "ended_ms" -> ended = java.util.OptionalLong.of(p.getLongValue());
                    case "exit" -> exit = OptionalInt.of(p.getIntValue());
                    case "avg_util" -> util = OptionalDouble.of(p.getDoubleValue());
                    case "measurement" -> measurement = Optional.of(p.getText());
                    case "gpus" -> {
                        while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                            gpus.add(p.getIntValue());
                        }
                    }
                    case "peak_mib" -> {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            int gpu = Integer.parseInt(p.currentName());
                            p.nextToken();
                            peaks.put(gpu, p.getLongValue());
                        }
                    }
                    default -> p.skipChildren();
                }
                if (t == null) {
                    throw new IllegalArgumentException("truncated");
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable wrapper report: " + e.getMessage(), e);
        }
        return new WrapReport(session, gpus, host, started, ended, exit, peaks, util, measurement);
    }

    /** Writes {@code text} to {@code dir/name} whole: a temporary file in the same directory, renamed over. */
    static void writeAtomically(Path dir, String name, String text) {
        try {
            Path tmp = Files.createTempFile(dir, "." + name, ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(name) + ": " + e.getMessage(), e);
        }
    }

    /** @return the report in {@code dir/name}, empty when there is none yet */
    static Optional<WrapReport> read(Path dir, String name) {
        try {
            return Optional.of(decode(Files.readString(dir.resolve(name), StandardCharsets.UTF_8)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

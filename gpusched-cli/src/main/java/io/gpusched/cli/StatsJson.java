package io.gpusched.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.gpusched.stats.Declarations;
import io.gpusched.stats.Figures;
import io.gpusched.stats.Stats;
import io.gpusched.stats.Utilisation;
import io.gpusched.stats.Waits;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * {@code gpusched stats --json}: the text's figures as one object, in the units of {@code --events}
 * (durations in seconds, {@code *_s}; times as ISO-8601 and milliseconds since the epoch, {@code *_ms};
 * shares in [0, 1]; GPU-keyed maps keyed by index; missing values {@code null}).
 */
final class StatsJson {
    private static final JsonFactory JSON = new JsonFactory();

    private StatsJson() {
    }

    static String render(Stats s, Path journal, Optional<Path> plot, List<String> warnings) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("journal", journal.toString());
            g.writeStringField("from", Instant.ofEpochMilli(s.fromMillis()).toString());
            g.writeStringField("to", Instant.ofEpochMilli(s.toMillis()).toString());
            g.writeNumberField("from_ms", s.fromMillis());
            g.writeNumberField("to_ms", s.toMillis());
            g.writeNumberField("period_s", (s.toMillis() - s.fromMillis()) / 1000.0);
            nullableString(g, "user", s.query().user());
            g.writeNumberField("tolerance", s.query().tolerance());
            g.writeStringField("file_jobs_owner", s.query().fileJobsOwner());
            g.writeArrayFieldStart("gpus");
            for (int gpu : s.gpus()) {
                g.writeNumber(gpu);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("total");
            figures(g, s.total(), s.gpus());
            g.writeEndObject();
            g.writeArrayFieldStart("users");
            for (Stats.UserFigures u : s.users()) {
                g.writeStartObject();
                g.writeStringField("user", u.user());
                figures(g, u.figures(), s.gpus());
                g.writeEndObject();
            }
            g.writeEndArray();
            Stats.Notes n = s.notes();
            g.writeObjectFieldStart("notes");
            g.writeNumberField("file_jobs", n.fileJobs());
            g.writeNumberField("open_runs", n.openRuns());
            g.writeNumberField("untimed_runs", n.untimedRuns());
            g.writeNumberField("untimed_waits", n.untimedWaits());
            g.writeNumberField("untimed_ends", n.untimedEnds());
            g.writeEndObject();
            nullableString(g, "plot", plot.map(Path::toString));
            g.writeArrayFieldStart("warnings");
            for (String w : warnings) {
                g.writeString(w);
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void figures(JsonGenerator g, Figures f, List<Integer> gpus) throws IOException {
        g.writeNumberField("jobs", f.jobs());
        g.writeObjectFieldStart("by_status");
        for (Map.Entry<String, Integer> e : f.byStatus().entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        g.writeNumberField("gpu_hours", f.gpuHours());
        Waits w = f.waits();
        g.writeObjectFieldStart("wait_s");
        g.writeNumberField("count", w.count());
        seconds(g, "p50", w.p50Millis());
        seconds(g, "p95", w.p95Millis());
        seconds(g, "max", w.maxMillis());
        g.writeEndObject();
        Utilisation u = f.utilisation();
        g.writeObjectFieldStart("utilisation");
        g.writeNumberField("all", u.all());
        g.writeObjectFieldStart("gpus");
        for (int gpu : gpus) {
            g.writeNumberField(String.valueOf(gpu), u.share(gpu));
        }
        g.writeEndObject();
        g.writeEndObject();
        Declarations d = f.declarations();
        g.writeObjectFieldStart("declarations");
        g.writeNumberField("judged", d.judged());
        g.writeNumberField("within", d.within());
        g.writeNumberField("under_declared", d.underDeclared());
        g.writeNumberField("over_declared", d.overDeclared());
        nullableNumber(g, "median_peak_over_declared", d.medianPeakOverDeclared());
        g.writeEndObject();
    }

    private static void seconds(JsonGenerator g, String name, OptionalLong millis) throws IOException {
        nullableNumber(g, name, millis.isPresent() ? OptionalDouble.of(millis.getAsLong() / 1000.0) : OptionalDouble.empty());
    }

    private static void nullableNumber(JsonGenerator g, String name, OptionalDouble v) throws IOException {
        g.writeFieldName(name);
        if (v.isPresent()) {
            g.writeNumber(v.getAsDouble());
        } else {
            g.writeNull();
        }
    }

    private static void nullableString(JsonGenerator g, String name, Optional<String> v) throws IOException {
        g.writeFieldName(name);
        if (v.isPresent()) {
            g.writeString(v.get());
        } else {
            g.writeNull();
        }
    }
}

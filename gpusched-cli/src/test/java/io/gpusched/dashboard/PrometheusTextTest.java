package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written Prometheus text format, read back by a small parser that follows the format's rules. */
class PrometheusTextTest {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)");

    /** A label value as the format escapes it, read back: {@code \\}, {@code \"}, {@code \n}. */
    private static String unescape(String v) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\') {
                char n = v.charAt(++i);
                b.append(n == 'n' ? '\n' : n);
            } else {
                assertTrue(c != '"' && c != '\n', "unescaped " + c + " in " + v);
                b.append(c);
            }
        }
        return b.toString();
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(text);
        };
    }

    @Test
    void anyLabelValueIsEscapedOntoOneLineAndReadsBackExactly() {
        Gen<String> text = Gen.strings(Gen.elements("a", "Z", "0", " ", "\\", "\"", "\n", "\\n", "{", "}", ",", "=", "é", "😀",
                "\t", "\r"), 0, 30);
        Property.forAll(text).tries(500).check(v -> {
            String out = new PrometheusText().gauge("x_y", "help with \\ and\nline",
                    List.of(new PrometheusText.Sample(Map.of("job", v), 1))).toString();
            String[] lines = out.split("\n", -1);
            assertEquals(4, lines.length, out); // HELP, TYPE, one sample, and the empty rest after the last \n
            assertEquals("# HELP x_y help with \\\\ and\\nline", lines[0]);
            assertEquals("# TYPE x_y gauge", lines[1]);
            // DOTALL: a carriage return may stand as it is; only \\, " and line feeds are escaped.
            Matcher m = Pattern.compile("x_y\\{job=\"(.*)\"\\} 1", Pattern.DOTALL).matcher(lines[2]);
            assertTrue(m.matches(), lines[2]);
            assertEquals(v, unescape(m.group(1)));
        });
    }

    @Test
    void everyNumberReadsBackAsTheSameDouble() {
        Gen<Double> d = Gen.<Double>weighted()
                .add(3, (r, size) -> r.nextDouble() * Math.pow(10, r.nextInt(-12, 18)) * (r.nextBoolean() ? 1 : -1))
                .add(2, Gen.longs(-1_000_000_000_000L, 1_000_000_000_000L).map(Long::doubleValue))
                .add(1, Gen.elements(0.0, -0.0, 0.1, 1e15, 1e300, Double.MIN_VALUE, Double.MAX_VALUE, Double.NaN,
                        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY))
                .build();
        Property.forAll(d).tries(2000).check(v -> {
            String s = PrometheusText.number(v);
            assertTrue(s.matches("[-+0-9.a-zA-Z]+"), s);
            double back = value(s);
            assertTrue(Double.compare(back, v) == 0 || (v == 0 && back == 0), v + " -> " + s + " -> " + back);
        });
    }

    @Test
    void aHistogramsBucketsAreCumulative_itsInfBucketIsItsCount_andItsSumTheObservations() {
        Gen<List<Double>> observations = Gen.listOf((r, size) -> r.nextInt(5) == 0 ? Double.NaN
                : r.nextDouble(-5, 5000), 0, 60);
        Property.forAll(observations).tries(500).check(obs -> {
            Histogram h = new Histogram(Metrics.WAIT_BUCKETS);
            obs.forEach(h::observe);
            String out = new PrometheusText().histogram("w_seconds", "waits", h.snapshot()).toString();
            List<double[]> buckets = new ArrayList<>();
            double sum = Double.NaN;
            long count = -1;
            for (String line : out.split("\n")) {
                if (line.startsWith("#")) {
                    continue;
                }
                Matcher m = SAMPLE.matcher(line);
                assertTrue(m.matches(), line);
                switch (m.group(1)) {
                    case "w_seconds_bucket" -> buckets.add(new double[] {value(m.group(2).replaceAll("le=\"(.*)\"", "$1")),
                        value(m.group(3))});
                    case "w_seconds_sum" -> sum = value(m.group(3));
                    case "w_seconds_count" -> count = Long.parseLong(m.group(3));
                    default -> throw new AssertionError(line);
                }
            }
            List<Double> real = obs.stream().filter(v -> !Double.isNaN(v)).toList();
            assertEquals(Metrics.WAIT_BUCKETS.length + 1, buckets.size());
            for (int i = 0; i < buckets.size(); i++) {
                double le = buckets.get(i)[0];
                assertEquals(real.stream().filter(v -> v <= le).count(), (long) buckets.get(i)[1], "le=" + le);
            }
            assertEquals(Double.POSITIVE_INFINITY, buckets.get(buckets.size() - 1)[0]);
            assertEquals(real.size(), count);
            assertEquals(real.stream().mapToDouble(Double::doubleValue).sum(), sum, 1e-6 * (1 + Math.abs(sum)));
        });
    }

    @Test
    void theExpositionGivesEachFamilyOneHelpAndOneTypeBeforeItsSamples() {
        Metrics m = new Metrics(java.util.Optional::empty);
        String out = Metrics.render(m.exposition());
        Set<String> families = new LinkedHashSet<>();
        String current = null;
        for (String line : out.split("\n")) {
            if (line.startsWith("# HELP ")) {
                current = line.split(" ")[2];
                assertTrue(families.add(current), "HELP twice for " + current);
            } else if (line.startsWith("# TYPE ")) {
                assertEquals(current, line.split(" ")[2], "TYPE right after its HELP");
                assertTrue(line.matches("# TYPE \\S+ (counter|gauge|histogram)"), line);
            } else {
                Matcher s = SAMPLE.matcher(line);
                assertTrue(s.matches(), line);
                assertTrue(s.group(1).equals(current) || s.group(1).matches(Pattern.quote(current) + "_(bucket|sum|count)"),
                        line + " outside its family " + current);
            }
        }
        assertEquals(List.of("gpusched_build_info", "gpusched_queue_jobs", "gpusched_jobs_started_total",
                "gpusched_jobs_started_created", "gpusched_jobs_finished_total", "gpusched_jobs_finished_created",
                "gpusched_job_wait_seconds", "gpusched_job_run_seconds",
                "gpusched_declaration_ratio", "gpusched_dispatch_latency_seconds", "gpusched_gpu_memory_total_bytes",
                "gpusched_gpu_memory_used_bytes", "gpusched_gpu_memory_declared_bytes", "gpusched_gpu_memory_reserved_bytes",
                "gpusched_gpu_utilization_ratio", "gpusched_gpu_paused", "gpusched_gpu_healthy"), List.copyOf(families));
    }
}

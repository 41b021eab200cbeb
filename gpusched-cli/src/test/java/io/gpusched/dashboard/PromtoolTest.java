package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.Verdict;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What {@code /metrics} answers, linted by Prometheus's own {@code promtool check metrics} (Debian package
 * {@code prometheus}; CI installs it). Skips, naming the package, where promtool is not installed.
 */
class PromtoolTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** @return promtool's exit status and what it printed */
    private static Map.Entry<Integer, String> promtool(String exposition) throws IOException, InterruptedException {
        Optional<Path> exe = java.util.stream.Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .filter(d -> !d.isEmpty()).map(d -> Path.of(d, "promtool")).filter(Files::isExecutable).findFirst();
        assumeTrue(exe.isPresent(), "needs promtool (Debian package prometheus) on PATH");
        Process p = new ProcessBuilder(exe.get().toString(), "check", "metrics").redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(exposition.getBytes(StandardCharsets.UTF_8));
        }
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        return Map.entry(p.exitValue(), said);
    }

    @Test
    void promtoolFindsNothingToSayAboutAFullScrape() throws Exception {
        Metrics m = MetricsTest.withTwoGpus(BuildInfo.current());
        m.accept(new SchedulerEvent.JobStarted(T0, 1, "k", "x", List.of(0), OptionalLong.of(100), 1, 1, 42, Path.of("l"), 1,
                Duration.ofMillis(1500)));
        m.accept(new SchedulerEvent.JobFinished(T0.plusSeconds(30), new JobResult("k", 1, "x", List.of(0), JobStatus.OK, 0,
                OptionalLong.of(100), Map.of(0, 80L), Verdict.WITHIN, OptionalDouble.of(55), Duration.ofSeconds(30)), 0.1));
        String scrape = Metrics.scrape(m.exposition(), 2);
        for (String family : List.of("gpusched_build_info", "gpusched_gpu_utilization_ratio", "process_cpu_seconds_total",
                "process_open_fds", "gpusched_dashboard_event_streams")) {
            assertTrue(scrape.contains("# TYPE " + family + " "), family + " in\n" + scrape);
        }
        Map.Entry<Integer, String> lint = promtool(scrape);
        assertEquals(Map.entry(0, ""), lint, scrape);
    }

    @Test
    void promtoolDoesComplainAboutWhatItsNamingRulesForbid() throws Exception {
        // The check above can fail: a counter without _total, and a unit other than the base one, are reported.
        String bad = new PrometheusText().gauge("gpusched_job_wait_milliseconds", "ms.", List.of(PrometheusText.Sample.of(1)))
                .counter("gpusched_jobs_started", "no suffix", List.of(PrometheusText.Sample.of(1))).toString();
        Map.Entry<Integer, String> lint = promtool(bad);
        assertEquals(3, lint.getKey(), lint.getValue());
        assertTrue(lint.getValue().contains("gpusched_jobs_started counter metrics should have \"_total\" suffix"), lint.getValue());
        assertTrue(lint.getValue().contains("gpusched_job_wait_milliseconds") && lint.getValue().contains("seconds"),
                lint.getValue());
    }
}

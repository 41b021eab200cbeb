package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code gpusched serve --dashboard} daemon on a simulated GPU, its dashboard fetched over HTTP
 * after real jobs ran: the JSON API, the timeline against the measured peak, and the metrics.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DashboardEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() {
        if (daemon != null) {
            daemon.close();
        }
    }

    /** The URL the daemon printed, with the port it took. */
    static String url(ServeDaemon d) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); ; Thread.sleep(50)) {
            Matcher m = Pattern.compile("dashboard on (http://\\S+/) \\(read-only").matcher(d.log());
            if (m.find()) {
                return m.group(1);
            }
            assertTrue(System.nanoTime() < end, "no dashboard line: " + d.log());
        }
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String awaitBody(String url, String text) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); ; Thread.sleep(50)) {
            String body = get(url).body();
            if (body.contains(text)) {
                return body;
            }
            assertTrue(System.nanoTime() < end, url + " never showed '" + text + "':\n" + body);
        }
    }

    private static List<Long> numbers(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\":(\\d+)").matcher(json);
        List<Long> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(Long.parseLong(m.group(1)));
        }
        return out;
    }

    @Test
    void theApiAndMetricsShowARealJobWhileItRunsAndAfter_itsTimelinePeakingAtItsMeasuredPeak() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--sample", "0.05", "--dashboard", "127.0.0.1:0").start();
        String base = url(daemon);
        assertEquals(new ServeDaemon.Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--vram", "2G", "--",
                "$GPUSCHED_SIMJOB --vram 1500 --ramp 0.5 --hold 2.5"));

        // While it runs: one running job, its declaration on gpu0, and its row in the API.
        String metrics = awaitBody(base + "metrics", "gpusched_queue_jobs{state=\"running\"} 1\n");
        awaitBody(base + "metrics", "gpusched_gpu_memory_declared_mib{gpu=\"0\"} 2048\n");
        assertTrue(metrics.contains("gpusched_gpu_memory_total_mib{gpu=\"0\"} 24000\n"), metrics);
        String running = awaitBody(base + "api/jobs/1", "\"used_mib\":1500");
        assertTrue(running.contains("\"state\":\"running\"") && running.contains("\"declared_mib\":2048"), running);

        daemon.awaitQueue("✓ job 1 ok");
        HttpResponse<String> job = get(base + "api/jobs/1");
        assertEquals(200, job.statusCode());
        assertEquals("application/json", job.headers().firstValue("Content-Type").orElse(""));
        String j = job.body();
        String user = System.getProperty("user.name");
        assertTrue(j.startsWith("{\"no\":1,\"state\":\"ended\",\"status\":\"ok\",\"owner\":\"" + user + "\",\"command\":"
                + "\"$GPUSCHED_SIMJOB --vram 1500 --ramp 0.5 --hold 2.5\",\"gpus\":[0],\"declared_mib\":2048,\"peak_mib\":1500,"), j);
        String timeline = j.substring(j.indexOf("\"timeline\":"));
        List<Long> used = numbers(timeline.substring(0, timeline.indexOf("\"attempts\"")), "used_mib");
        assertTrue(used.size() >= 10, "a point per sample: " + used);
        assertEquals(1500L, used.stream().mapToLong(Long::longValue).max().orElseThrow(), "the timeline's top is the measured peak");
        assertTrue(used.get(0) < 1500, "it ramps up: " + used);
        assertTrue(timeline.contains("\"attempts\":[{\"number\":1,\"since_s\":0.0,\"declared_mib\":2048}],\"oom_retries\":[],"
                + "\"peak_mib\":1500}"), timeline);

        String queue = get(base + "api/queue").body();
        assertTrue(queue.startsWith("{\"at\":\"") && queue.contains("\"done\":[{\"key\":\"s1\",\"no\":1,") && queue.contains(
                "\"memory\":[{\"gpu\":0,\"total_mib\":24000,"), queue);
        String asProtocol = daemon.verb("queue", "--json").out();
        for (String field : List.of("\"key\":\"s1\"", "\"peak_mib\":{\"0\":1500}", "\"declared_mib\":2048", "\"paused_gpus\":[]")) {
            assertTrue(asProtocol.contains(field) && queue.contains(field), field + ": the queue op's names\n" + asProtocol);
        }

        metrics = awaitBody(base + "metrics", "gpusched_jobs_finished_total{status=\"ok\"} 1\n");
        for (String line : List.of("gpusched_jobs_started_total 1", "gpusched_queue_jobs{state=\"running\"} 0",
                "gpusched_job_wait_seconds_count 1", "gpusched_job_run_seconds_count 1", "gpusched_declaration_ratio_count 1",
                "gpusched_declaration_ratio_bucket{le=\"0.75\"} 1", "gpusched_declaration_ratio_bucket{le=\"0.5\"} 0",
                "gpusched_dispatch_latency_seconds_count 1", "gpusched_jobs_finished_total{status=\"failed\"} 0",
                "# TYPE gpusched_job_run_seconds histogram", "# TYPE gpusched_jobs_finished_total counter")) {
            assertTrue(metrics.contains(line + "\n"), line + " in\n" + metrics);
        }
        assertTrue(get(base + "metrics").headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));

        String done = Files.readAllLines(daemon.logs().resolve("journal.jsonl")).stream()
                .filter(l -> l.contains("\"event\":\"done\"")).findFirst().orElseThrow();
        List<Long> summary = numbers(done.replaceAll("\\[(\\d+),(\\d+)\\]", "{\"ms\":$1,\"mib\":$2}"), "mib");
        assertTrue(!summary.isEmpty() && summary.size() <= 32, done);
        assertEquals(1500L, summary.stream().mapToLong(Long::longValue).max().orElseThrow(), done);

        assertEquals(404, get(base + "api/jobs/42").statusCode());
        assertEquals("{\"error\":\"no_job\",\"message\":\"no job 42 in this queue\"}", get(base + "api/jobs/42").body());
        assertEquals(400, get(base + "api/jobs/x").statusCode());
        assertEquals(404, get(base + "nothing").statusCode());
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(base + "api/queue"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode(), "read-only");
        String page = get(base).body();
        assertTrue(page.startsWith("<!DOCTYPE html>") && page.contains("new EventSource(\"/events\")")
                && !page.contains("src=\"http") && !page.contains("href=\"http"), "one page, nothing from elsewhere");
        assertEquals(130, daemon.stop());
    }

    @Test
    void eventsPushTheQueueWhenItChanges() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0").start();
        String base = url(daemon);
        assertTrue(base.startsWith("http://127.0.0.1:"), "a port alone listens on loopback: " + base);
        java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();
        http.sendAsync(HttpRequest.newBuilder(URI.create(base + "events")).build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(r -> r.body().forEach(lines::add));
        String first = awaitLine(lines, "data: ");
        assertTrue(first.contains("\"running\":[]"), first);
        daemon.verb("submit", "--vram", "1G", "--", "sleep 2");
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); ; ) {
            String data = awaitLine(lines, "data: ");
            // The running job, then its timeline as soon as it has a sample.
            if (data.contains("\"running\":[{\"no\":1,") && data.contains("\"timelines\":{\"1\":{\"no\":1,")) {
                break;
            }
            assertTrue(System.nanoTime() < end, "job 1 never pushed: " + data);
        }
        assertTrue(get(base + "metrics").body().contains("gpusched_dashboard_event_streams 1\n"));
    }

    private static String awaitLine(java.util.concurrent.BlockingQueue<String> lines, String prefix) throws Exception {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); ; ) {
            String l = lines.poll(1, TimeUnit.SECONDS);
            if (l != null && l.startsWith(prefix)) {
                return l;
            }
            assertTrue(System.nanoTime() < end, "no '" + prefix + "' line on /events");
        }
    }

    @Test
    void aNonLoopbackAddressIsRefusedInOneLine_unlessPublicIsSaid_thenTheDaemonWarnsOnce() throws Exception {
        ServeDaemon.Result refused = ServeDaemon.cli("serve", "--sim", "1", "--dashboard", "0.0.0.0:0", "--socket",
                dir.resolve("x.sock").toString(), "--log-dir", dir.resolve("x").toString());
        assertEquals(2, refused.code());
        assertEquals("gpusched: --dashboard 0.0.0.0:0 is not a loopback address: the dashboard has no authentication and "
                + "shows every job's command, user and paths to anyone who can reach the port; add --dashboard-public if "
                + "that is what you want, or use 127.0.0.1:0\n", refused.err());
        assertTrue(!Files.exists(dir.resolve("x")), "nothing started");
        assertEquals(2, ServeDaemon.cli("serve", "--dashboard-public").code());

        daemon = new ServeDaemon(dir, "--sim", "1", "--dashboard", "0.0.0.0:0", "--dashboard-public").start();
        String base = url(daemon);
        String log = daemon.log();
        assertEquals(1, log.lines().filter(l -> l.startsWith("gpusched: warning: the dashboard at " + base
                + " is reachable from other machines and has no authentication: anyone who can reach the port sees every "
                + "job's command, user and paths")).count(), log);
        assertEquals(200, get(base.replace("0.0.0.0", "127.0.0.1") + "metrics").statusCode());
    }

    @Test
    void aPortInUseIsAOneLineErrorBeforeAnythingRuns() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            ServeDaemon.Result r = ServeDaemon.cli("serve", "--sim", "1", "--dashboard", String.valueOf(taken.getLocalPort()),
                    "--socket", dir.resolve("s.sock").toString(), "--log-dir", dir.resolve("logs").toString());
            assertEquals(2, r.code());
            assertTrue(r.err().matches("gpusched: --dashboard 127\\.0\\.0\\.1:" + taken.getLocalPort()
                    + ": cannot listen there \\(.+\\); pick another port, or 0 for any free one\n"), r.err());
            assertTrue(!Files.exists(dir.resolve("s.sock")), "the daemon did not start");
        }
    }

    @Test
    void aJobsFileRunHasTheDashboardToo() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=1G] true\n");
        ServeDaemon.Result r = ServeDaemon.cli(jobs.toString(), "--sim", "1", "--poll", "0.1", "--dashboard", "0",
                "--log-dir", dir.resolve("logs").toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s)dashboard on http://127\\.0\\.0\\.1:\\d+/ \\(read-only.*1 ok.*"), r.out());
    }
}

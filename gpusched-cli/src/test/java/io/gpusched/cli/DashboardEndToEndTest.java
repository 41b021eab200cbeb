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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code gpusched serve --dashboard} daemon on a simulated GPU, its dashboard fetched over HTTP
 * after real jobs ran: the JSON API, the timeline against the measured peak, and the metrics; each
 * request with the token {@code gpusched dashboard} hands out, and refused without it or with another
 * {@code Host}.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DashboardEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

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

    /** The URL {@code gpusched dashboard} prints for this user: the daemon's, with {@code ?token=}. */
    static String link(ServeDaemon d) throws Exception {
        ServeDaemon.Result r = d.verb("dashboard");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("http://\\S+/\\?token=[A-Za-z0-9_.-]+\n"), r.out());
        return r.out().strip();
    }

    /** {@code path} of the dashboard at {@code link}, with the link's token. */
    static String at(String link, String path) {
        String token = link.substring(link.indexOf("?token="));
        return link.substring(0, link.indexOf("?token=")) + path + token;
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
        String link = link(daemon);
        assertTrue(link.startsWith(url(daemon) + "?token="), "the printed address, with a token: " + link);
        assertEquals(new ServeDaemon.Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--vram", "2G", "--",
                "$GPUSCHED_SIMJOB --vram 1500 --ramp 0.5 --hold 2.5"));

        // While it runs: one running job, its declaration on gpu0, and its row in the API.
        String metrics = awaitBody(at(link, "metrics"), "gpusched_queue_jobs{state=\"running\"} 1\n");
        // In bytes, labelled with the GPU's model (a simulated GPU has no UUID); utilisation 0-1 while it runs.
        awaitBody(at(link, "metrics"), "gpusched_gpu_memory_declared_bytes{gpu=\"0\",model=\"simulated\"} "
                + 2048L * 1024 * 1024 + "\n");
        metrics = awaitBody(at(link, "metrics"), "gpusched_gpu_utilization_ratio{gpu=\"0\",model=\"simulated\"} 0.9\n");
        assertTrue(metrics.contains("gpusched_gpu_memory_total_bytes{gpu=\"0\",model=\"simulated\"} "
                + 24000L * 1024 * 1024 + "\n"), metrics);
        String running = awaitBody(at(link, "api/jobs/1"), "\"used_mib\":1500");
        assertTrue(running.contains("\"state\":\"running\"") && running.contains("\"declared_mib\":2048"), running);

        daemon.awaitQueue("✓ job 1 ok");
        HttpResponse<String> job = get(at(link, "api/jobs/1"));
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

        String queue = get(at(link, "api/queue")).body();
        assertTrue(queue.startsWith("{\"at\":\"") && queue.contains("\"done\":[{\"key\":\"s1\",\"no\":1,") && queue.contains(
                "\"memory\":[{\"gpu\":0,\"total_mib\":24000,"), queue);
        String asProtocol = daemon.verb("queue", "--json").out();
        for (String field : List.of("\"key\":\"s1\"", "\"peak_mib\":{\"0\":1500}", "\"declared_mib\":2048", "\"paused_gpus\":[]")) {
            assertTrue(asProtocol.contains(field) && queue.contains(field), field + ": the queue op's names\n" + asProtocol);
        }

        metrics = awaitBody(at(link, "metrics"), "gpusched_jobs_finished_total{status=\"ok\"} 1\n");
        for (String line : List.of("gpusched_jobs_started_total 1", "gpusched_queue_jobs{state=\"running\"} 0",
                "gpusched_job_wait_seconds_count 1", "gpusched_job_run_seconds_count 1", "gpusched_declaration_ratio_count 1",
                "gpusched_declaration_ratio_bucket{le=\"0.75\"} 1", "gpusched_declaration_ratio_bucket{le=\"0.5\"} 0",
                "gpusched_dispatch_latency_seconds_count 1", "gpusched_jobs_finished_total{status=\"failed\"} 0",
                "# TYPE gpusched_job_run_seconds histogram", "# TYPE gpusched_jobs_finished_total counter")) {
            assertTrue(metrics.contains(line + "\n"), line + " in\n" + metrics);
        }
        assertTrue(get(at(link, "metrics")).headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));

        String done = Files.readAllLines(daemon.logs().resolve("journal.jsonl")).stream()
                .filter(l -> l.contains("\"event\":\"done\"")).findFirst().orElseThrow();
        List<Long> summary = numbers(done.replaceAll("\\[(\\d+),(\\d+)\\]", "{\"ms\":$1,\"mib\":$2}"), "mib");
        assertTrue(!summary.isEmpty() && summary.size() <= 32, done);
        assertEquals(1500L, summary.stream().mapToLong(Long::longValue).max().orElseThrow(), done);

        assertEquals(404, get(at(link, "api/jobs/42")).statusCode());
        assertEquals("{\"error\":\"no_job\",\"message\":\"no job 42 in this queue\"}", get(at(link, "api/jobs/42")).body());
        assertEquals(400, get(at(link, "api/jobs/x")).statusCode());
        assertEquals(404, get(at(link, "nothing")).statusCode());
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create(at(link, "api/queue")))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode(), "read-only");
        String page = get(link).body();
        assertTrue(page.startsWith("<!DOCTYPE html>") && page.contains("new EventSource(authed(\"/events\"))")
                && !page.contains("src=\"http") && !page.contains("href=\"http"), "one page, nothing from elsewhere");
        assertEquals(130, daemon.stop());
    }

    @Test
    void eventsPushTheQueueWhenItChanges() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0").start();
        String base = url(daemon);
        assertTrue(base.startsWith("http://127.0.0.1:"), "a port alone listens on loopback: " + base);
        String link = link(daemon);
        java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();
        http.sendAsync(HttpRequest.newBuilder(URI.create(at(link, "events"))).build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(r -> r.body().forEach(lines::add));
        // The whole state first, then updates.
        assertEquals("event: state", awaitLine(lines, "event: "));
        String first = awaitLine(lines, "data: ");
        assertTrue(first.contains("\"running\":[]"), first);
        daemon.verb("submit", "--vram", "1G", "--", "sleep 2");
        boolean running = false;
        boolean timeline = false;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); !running || !timeline; ) {
            String data = awaitLine(lines, "data: ");
            // The running job, and its whole timeline once (it has a start) as soon as it has one.
            running |= data.contains("\"running\":[{\"no\":1,");
            timeline |= data.contains("\"timelines\":{\"1\":{\"no\":1,\"started_at\":");
            assertTrue(System.nanoTime() < end, "job 1 never pushed: " + data);
        }
        assertTrue(get(at(link, "metrics")).body().contains("gpusched_dashboard_event_streams 1\n"));
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

    /** A request written by hand, for the headers a client library will not set (Host); the status line and body. */
    static String raw(String url, String request) throws Exception {
        URI u = URI.create(url);
        try (java.net.Socket s = new java.net.Socket(u.getHost(), u.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            String answer = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return answer.substring(0, answer.indexOf("\r\n")) + "\n" + answer.substring(answer.indexOf("\r\n\r\n") + 4);
        }
    }

    @Test
    void aRequestWithoutTheUsersTokenIsRefusedInOneLineSayingHowToGetIt_everyPathTheStreamAndThePageAlike() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0").start();
        String base = url(daemon);
        String link = link(daemon);
        String token = link.substring(link.indexOf("=") + 1);
        assertEquals(200, get(at(link, "api/queue")).statusCode());
        assertEquals(200, http.send(HttpRequest.newBuilder(URI.create(base + "api/queue")).header("Authorization",
                "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString()).statusCode(), "or as a bearer token");

        for (String path : List.of("", "api/queue", "api/jobs/1", "events", "metrics", "nothing")) {
            HttpResponse<String> none = get(base + path);
            assertEquals(401, none.statusCode(), path);
            assertEquals("gpusched dashboard: this needs your token; run gpusched dashboard for your URL\n", none.body());
            assertEquals("Bearer realm=\"gpusched\"", none.headers().firstValue("WWW-Authenticate").orElse(""));
        }
        char last = token.charAt(token.length() - 1);
        for (String bad : List.of(token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A'), token + "x",
                token.substring(0, token.indexOf('.')) + ".", "x." + token.substring(token.indexOf('.') + 1))) {
            HttpResponse<String> refused = get(base + "api/queue?token=" + bad);
            assertEquals(403, refused.statusCode(), bad);
            assertEquals("gpusched dashboard: this token is not valid here (mistyped, another daemon's, or from before this "
                    + "daemon started); run gpusched dashboard for your URL\n", refused.body());
            assertEquals(403, get(base + "events?token=" + bad).statusCode());
        }
        assertEquals(link, link(daemon), "the same user gets the same URL while the daemon runs");
        assertEquals("{\"url\":\"" + link + "\"}\n", daemon.verb("dashboard", "--json").out());
        assertEquals("no-referrer", get(link).headers().firstValue("Referrer-Policy").orElse(""), "the page's URL holds a secret");
    }

    @Test
    void aHostOtherThanTheDashboardsOwnIsRefused_soAPageRebindingItsNameTo127001CannotReadIt() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0").start();
        String link = link(daemon);
        int port = URI.create(link).getPort();
        String path = "/api/queue?token=" + link.substring(link.indexOf("=") + 1);
        for (String host : List.of("127.0.0.1:" + port, "localhost:" + port)) {
            String ok = raw(link, "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
            assertTrue(ok.startsWith("HTTP/1.1 200"), host + ": " + ok);
        }
        for (String host : List.of("attacker.example:" + port, "attacker.example", "127.0.0.1:" + (port == 1 ? 2 : port - 1))) {
            String refused = raw(link, "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
            assertEquals("HTTP/1.1 403 Forbidden\ngpusched dashboard: Host '" + host + "' is not this dashboard's address; "
                    + "open the URL gpusched dashboard prints\n", refused, host);
        }
        assertTrue(raw(link, "GET " + path + " HTTP/1.0\r\n\r\n").startsWith("HTTP/1.1 403"), "no Host at all");
    }

    @Test
    void metricsTakeAUsersTokenOrTheScrapersFromItsFile_whichOpensNothingElse_andShowNoCommand() throws Exception {
        Path secret = Files.writeString(dir.resolve("metrics.token"), "scraper-secret-0123456789\n");
        ServeDaemon.Result open = ServeDaemon.cli("serve", "--sim", "1", "--dashboard", "0", "--metrics-token-file",
                secret.toString(), "--socket", dir.resolve("x.sock").toString(), "--log-dir", dir.resolve("x").toString());
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: --metrics-token-file " + secret + " is readable by other users "
                + "(" + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(secret))
                + "); chmod 600 " + secret + "\n"), open);
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.2", "--dashboard", "0", "--metrics-token-file",
                secret.toString()).start();
        String base = url(daemon);
        assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", "echo the-secret-command-line").code());
        daemon.awaitQueue("✓ job 1 ok");
        java.util.function.Function<String, HttpResponse<String>> scrape = path -> {
            try {
                return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization",
                        "Bearer scraper-secret-0123456789").build(), HttpResponse.BodyHandlers.ofString());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
        HttpResponse<String> metrics = scrape.apply("metrics");
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.body().contains("gpusched_jobs_finished_total{status=\"ok\"} 1\n"), metrics.body());
        assertTrue(!metrics.body().contains("the-secret-command-line") && !metrics.body().contains(System.getProperty(
                "user.name") + "\""), "aggregates only: no command, no user\n" + metrics.body());
        for (String other : List.of("api/queue", "api/jobs/1", "", "events")) {
            assertEquals(403, scrape.apply(other).statusCode(), other + ": the scraper's token reads /metrics only");
        }
        assertEquals(200, get(at(link(daemon), "metrics")).statusCode(), "a user's token reads it too");
        assertEquals(401, get(base + "metrics").statusCode());
    }

    @Test
    void aDaemonWithoutADashboardSaysSoInOneLine() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1").start();
        assertEquals(new ServeDaemon.Result(1, "", "gpusched: this gpusched runs no dashboard for "
                + System.getProperty("user.name") + "; start it with gpusched serve --dashboard PORT\n"), daemon.verb("dashboard"));
        assertEquals(2, daemon.verb("dashboard", "extra").code());
    }

    @Test
    void aNonLoopbackAddressIsRefusedInOneLine_unlessPublicIsSaid_thenTheDaemonWarnsOnce() throws Exception {
        ServeDaemon.Result refused = ServeDaemon.cli("serve", "--sim", "1", "--dashboard", "0.0.0.0:0", "--socket",
                dir.resolve("x.sock").toString(), "--log-dir", dir.resolve("x").toString());
        assertEquals(2, refused.code());
        assertEquals("gpusched: --dashboard 0.0.0.0:0 is not a loopback address: the dashboard speaks plain HTTP, so its "
                + "users' tokens and every job's command, user and paths would cross the network unencrypted; add "
                + "--dashboard-public if that is what you want, or use 127.0.0.1:0\n", refused.err());
        assertTrue(!Files.exists(dir.resolve("x")), "nothing started");
        assertEquals(2, ServeDaemon.cli("serve", "--dashboard-public").code());

        daemon = new ServeDaemon(dir, "--sim", "1", "--dashboard", "0.0.0.0:0", "--dashboard-public").start();
        String base = url(daemon);
        String log = daemon.log();
        assertEquals(1, log.lines().filter(l -> l.equals("gpusched: warning: the dashboard at " + base
                + " is reachable from other machines over plain HTTP: anyone who sees a user's token on the network reads "
                + "what that user's gpusched queue shows")).count(), log);
        String link = link(daemon).replace("0.0.0.0", "127.0.0.1");
        assertEquals(200, get(at(link, "metrics")).statusCode());
        assertEquals(401, get(base.replace("0.0.0.0", "127.0.0.1") + "metrics").statusCode(), "public, not open");
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
    void aJobsFileRunHasTheDashboardToo_itsUrlFromTheRunsSocket() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=1G] sleep 3\n");
        Path logs = dir.resolve("logs");
        var run = java.util.concurrent.CompletableFuture.supplyAsync(() -> ServeDaemon.cli(jobs.toString(), "--sim", "1",
                "--poll", "0.1", "--dashboard", "0", "--log-dir", logs.toString()));
        ServeDaemon.Result asked;
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             (asked = ServeDaemon.cli("dashboard", "--log-dir", logs.toString())).code() != 0; Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end && !run.isDone(), asked.err());
        }
        awaitBody(at(asked.out().strip(), "api/queue"), "sleep 3");
        ServeDaemon.Result r = run.get(60, TimeUnit.SECONDS);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s)dashboard on http://127\\.0\\.0\\.1:\\d+/ \\(read-only; /metrics, /api/queue, "
                + "/api/jobs/N; your URL with its token: gpusched dashboard --log-dir " + Pattern.quote(logs.toString())
                + "\\).*1 ok.*"), r.out());
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's {@code comment=} note end to end against a real {@code gpusched serve}: {@code submit --comment}
 * puts it on the job, and {@code gpusched queue}, {@code queue --json} and the dashboard's
 * {@code /api/queue} show it; a note the attribute refuses is refused in one line.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommentEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;

    @Test
    void submitCommentIsShownByQueue_itsJson_andTheDashboardsApi() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--dashboard", "0").start();
        assertEquals(0, daemon.verb("pause", "0").code()); // it stays pending, so the queue lists it
        assertEquals(new ServeDaemon.Result(0, "submitted job 1\n", ""),
                daemon.verb("submit", "--comment", "a note", "--vram", "1G", "--", "true"));
        assertEquals(new ServeDaemon.Result(0, "submitted job 2\n", ""),
                daemon.verb("submit", "--vram", "1G", "--", "true"));

        String q = daemon.awaitQueue("0 running, 2 pending");
        assertTrue(q.contains("— true   [" + System.getProperty("user.name") + "]   # a note\n"), q);
        assertEquals(1, q.split("#", -1).length - 1, "only the job with a note shows one: " + q);
        String json = daemon.verb("queue", "--json").out();
        assertTrue(json.contains("\"comment\":\"a note\""), json);
        assertEquals(1, json.split("\"comment\"", -1).length - 1, "a job without a note has no comment field: " + json);

        String api = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                DashboardEndToEndTest.at(DashboardEndToEndTest.link(daemon), "api/queue"))).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(api.contains("\"comment\":\"a note\""), api);
        String page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(DashboardEndToEndTest.link(daemon)))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(page.contains("const NOTES = [\"comment\"];"), "the page shows the comment as a note");

        daemon.verb("cancel", "--user", "me");
        daemon.stop();
    }

    @Test
    void aCommentOverTwoHundredCharactersIsRefusedInOneLine() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start();
        ServeDaemon.Result r = daemon.verb("submit", "--comment", "x".repeat(201), "--", "true");
        assertEquals(1, r.code(), r.toString());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("gpusched: bad --comment: comment of 201 characters (at most 200) 'xxx"),
                r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        daemon.stop();
    }
}

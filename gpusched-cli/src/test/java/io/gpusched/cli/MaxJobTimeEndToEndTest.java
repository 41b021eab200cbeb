package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched serve --max-job-time D --on-max-job-time requeue|fail} (mgpu's global limit and its
 * context switch), against a real daemon: a job over the limit is stopped and queued again at the end,
 * letting the job behind it run, or failed; a job's own smaller {@code timeout=} wins. The log and the
 * journal say which limit it was.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MaxJobTimeEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;

    private String journal() throws Exception {
        return Files.readString(daemon.logs().resolve("journal.jsonl"));
    }

    @Test
    void aJobOverTheLimitGoesToTheEndOfTheQueue_andTheJobBehindItRuns() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--max-job-time", "1").start();
        assertEquals(0, daemon.verb("pause", "0").code());
        // Undeclared, each needs the one GPU alone: job 2 runs only once job 1 is off it.
        assertEquals(new Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--", "sleep 60"));
        assertEquals(new Result(0, "submitted job 2\n", ""), daemon.verb("submit", "--", "echo two"));
        assertEquals(0, daemon.verb("resume", "0").code());
        daemon.awaitQueue("✓ job 2 ok");
        assertEquals(0, daemon.verb("cancel", "1").code());

        String log = daemon.log();
        assertTrue(log.contains("job 1 over --max-job-time after 1s (limit 1s) — SIGTERM; it goes to the end of the queue")
                || log.matches("(?s).*job 1 over --max-job-time after 1\\.\\ds \\(limit 1s\\) — SIGTERM; it goes to the end of"
                + " the queue.*"), log);
        assertTrue(log.indexOf("job 1 over --max-job-time") < log.indexOf("job 2 started"), "job 2 ran after job 1's switch:\n" + log);
        assertTrue(journal().contains("\"reason\":\"max_job_time\""), "the journal says why it was requeued:\n" + journal());
        assertFalse(journal().matches("(?s).*\"key\":\"s1\"[^\\n]*\"status\":\"timeout\".*"), "requeued, not failed:\n" + journal());
    }

    @Test
    void failEndsAJobOverTheLimitTimeout_andAJobsOwnSmallerTimeoutWinsWithItsOwnOnTimeout() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--max-job-time", "1.5",
                "--on-max-job-time", "fail").start();
        assertEquals(new Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--vram", "1G", "--", "sleep 60"));
        assertEquals(new Result(0, "submitted job 2\n", ""), daemon.verb("submit", "--vram", "1G", "--timeout", "0.5",
                "--", "sleep 61"));
        assertEquals(new Result(0, "submitted job 3\n", ""), daemon.verb("submit", "--vram", "1G", "--timeout", "1h",
                "--", "sleep 62"));
        daemon.awaitQueue("✗ job 1 timeout");
        daemon.awaitQueue("✗ job 2 timeout");
        daemon.awaitQueue("✗ job 3 timeout");

        String log = daemon.log();
        assertTrue(log.contains("WARN  job 1 over --max-job-time after "), log);
        assertTrue(log.contains("(limit 1.5s) — SIGTERM; it ends timeout"), log);
        assertTrue(log.contains("WARN  job 2 TIMEOUT after "), "its own 0.5 s timeout came first:\n" + log);
        assertTrue(log.contains("(limit 0.5s) — SIGTERM"), log);
        assertTrue(log.contains("WARN  job 3 over --max-job-time after "), "a larger timeout= does not outlast the daemon's:\n" + log);
        assertFalse(journal().contains("\"event\":\"requeued\""), "fail journals the outcome, timeout, not a requeue:\n"
                + journal());
        // The stop is journaled before its SIGTERM, naming the daemon's limit (a restart in its grace goes on with it).
        assertTrue(journal().contains("{\"key\":\"s1\",\"event\":\"stopping\",\"reason\":\"timeout\",\"max_job_time\":true,"),
                journal());
        assertTrue(journal().contains("{\"key\":\"s2\",\"event\":\"stopping\",\"reason\":\"timeout\",\"ticker_ns\":"), journal());
    }

    @Test
    void theOptionsAreServes_andTakeADurationAndRequeueOrFail() {
        assertEquals(new Result(2, "", "gpusched: --max-job-time is an option of gpusched serve; in a jobs file, give a line"
                + " timeout= (and on-timeout=)\n"), ServeDaemon.cli("jobs.txt", "--max-job-time", "1h"));
        assertEquals(new Result(2, "", "gpusched: --max-job-time needs a positive duration like 90, 90s, 15m, 2h or 1.5d,"
                + " got 'soon'\n"), ServeDaemon.cli("serve", "--max-job-time", "soon"));
        assertEquals(new Result(2, "", "gpusched: --on-max-job-time must be requeue or fail, got 'kill'\n"),
                ServeDaemon.cli("serve", "--max-job-time", "1h", "--on-max-job-time", "kill"));
        assertEquals(new Result(2, "", "gpusched: --on-max-job-time says what --max-job-time does; give --max-job-time D"
                + " too\n"), ServeDaemon.cli("serve", "--on-max-job-time", "fail"));
        String help = ServeDaemon.cli("serve", "--help").out();
        assertTrue(help.contains("--max-job-time D") && help.contains("--on-max-job-time requeue|fail"), help);
        assertTrue(ServeConfig.keys().containsKey("max-job-time") && ServeConfig.keys().containsKey("on-max-job-time")
                && ServeConfig.keys().containsKey("dedup"), "the configuration file takes them too: " + ServeConfig.keys());
        List.of("1h", "90", "1.5d").forEach(d -> assertTrue(CliArgs.parse(true, "--max-job-time", d).jobRules().maxJobTime()
                .isPresent(), d));
    }
}

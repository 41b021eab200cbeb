package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code unique} and {@code serve --dedup} (gpu_scheduler's content-hash deduplication), against a real
 * daemon on a real socket and a real jobs-file run: the same job queued, running or ended ok is not
 * queued again and the answer names it, across a daemon restart, per user; a failed one does not count.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DedupEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;

    @org.junit.jupiter.api.extension.RegisterExtension
    final CliRun.Stopper watching = new CliRun.Stopper();

    @Test
    void aUniqueSubmitOfAJobQueuedRunningOrDoneOkIsNotQueuedAgain_namesIt_andStillKnowsItAfterARestart() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1").start();
        assertEquals(0, daemon.verb("pause", "0").code());
        assertEquals(new Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--unique", "--vram", "1G", "--", "echo hi"));
        assertEquals(new Result(0, "job 1 already queued: not submitted again\n", ""),
                daemon.verb("submit", "--unique", "--vram", "1G", "--", "echo hi"));
        assertEquals(new Result(0, "job 1 already queued: not submitted again\n", ""),
                daemon.verb("submit", "--unique", "--vram", "1024", "--", "echo hi"), "18G and 18432 are one declaration");
        assertEquals(new Result(0, "submitted job 2\n", ""), daemon.verb("submit", "--unique", "--vram", "2G", "--", "echo hi"),
                "another attribute is another job");
        assertEquals(new Result(0, "submitted job 3\n", ""), daemon.verb("submit", "--vram", "1G", "--", "echo hi"),
                "a job not marked unique is queued whatever is there");
        assertEquals(new Result(0, "{\"no\":1,\"already\":\"pending\"}\n", ""),
                daemon.verb("submit", "--json", "--unique", "--vram", "1G", "--", "echo hi"));

        assertEquals(new Result(0, "submitted job 4\n", ""), daemon.verb("submit", "--unique", "--vram", "1G", "--", "sleep 60"));
        assertEquals(0, daemon.verb("resume", "0").code());
        daemon.awaitQueue("✓ job 1 ok");
        daemon.awaitQueue("▶ job 4");
        assertEquals(new Result(0, "job 4 already running: not submitted again\n", ""),
                daemon.verb("submit", "--unique", "--vram", "1G", "--", "sleep 60"));
        assertEquals(new Result(0, "job 1 already done ok: not submitted again\n", ""),
                daemon.verb("submit", "--unique", "--vram", "1G", "--", "echo hi"));

        // A job that failed does not stand for the same job: it is queued again.
        assertEquals(new Result(0, "submitted job 5\n", ""), daemon.verb("submit", "--unique", "--vram", "1G", "--", "exit 3"));
        daemon.awaitQueue("✗ job 5 failed");
        assertEquals(new Result(0, "submitted job 6\n", ""), daemon.verb("submit", "--unique", "--vram", "1G", "--", "exit 3"));
        daemon.awaitQueue("✗ job 6 failed");

        daemon.stop();
        daemon.start();
        assertEquals(new Result(0, "job 1 already done ok: not submitted again\n", ""),
                daemon.verb("submit", "--unique", "--vram", "1G", "--", "echo hi"),
                "the journal still has job 1's success after a restart");
        assertEquals(new Result(0, "job 4 already running: not submitted again\n", ""),
                daemon.verb("submit", "--unique", "--vram", "1G", "--", "sleep 60"), "job 4 kept running through the restart");
        assertEquals(new Result(0, "submitted job 7\n", ""), daemon.verb("submit", "--unique", "--vram", "1G", "--", "exit 3"));
        assertEquals(0, daemon.verb("cancel", "4").code());
        String journal = Files.readString(daemon.logs().resolve("journal.jsonl"));
        assertEquals(7, journal.lines().filter(l -> l.contains("\"event\":\"submitted\"")).count(),
                "a duplicate journals nothing:\n" + journal);
    }

    @Test
    void serveDedupMakesEverySubmitUnique_andSrunOnlyWithItsOwnUnique() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--dedup").start();
        Path here = Path.of("").toAbsolutePath();
        assertEquals(new Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--", "true"));
        daemon.awaitQueue("✓ job 1 ok");
        assertEquals(new Result(0, "job 1 already done ok: not submitted again\n", ""), daemon.verb("submit", "--", "true"));

        Result srun = ServeDaemon.result(daemon.client(here, "srun", "--quiet", "--", "true"));
        assertEquals(0, srun.code(), srun.toString());
        assertFalse(srun.err().contains("already"), "serve --dedup leaves srun alone: " + srun);
        Result unique = ServeDaemon.result(daemon.client(here, "srun", "--unique", "--", "true"));
        assertEquals(new Result(0, "", "gpusched: job 1 already done ok: not submitted again\n"), unique);
    }

    @Test
    void theOptionsBelongToServe_andTheFlagToSubmitAndSrun() {
        assertEquals(new Result(2, "", "gpusched: --dedup is an option of gpusched serve; in a jobs file, mark a line"
                + " [unique]\n"), ServeDaemon.cli("jobs.txt", "--dedup"));
        assertTrue(ServeDaemon.cli("submit", "--help").out().contains("--unique"));
        assertTrue(ServeDaemon.cli("srun", "--help").out().contains("--unique"));
        assertTrue(ServeDaemon.cli("serve", "--help").out().contains("--dedup"));
    }

    @Test
    void aUniqueLineOfAJobsFileThatAlreadySucceededIsNotRunAgain_whileAFailedOnesIs() throws Exception {
        CliRun first = new CliRun(dir, "[unique] echo one\n[unique] exit 3\n");
        assertEquals(3, first.runToEnd("--sim", "1"), first.output());

        // Each line again, after a restart: the journal's successes stand for the same job; a failure does not.
        String again = "[unique] echo one\n[unique] exit 3\n[unique] echo one\n[unique] exit 3\necho one\n";
        CliRun second = new CliRun(dir, again);
        assertEquals(3, second.runToEnd("--sim", "1"), second.output());
        String out = second.output();
        assertTrue(out.contains("line 3 (job 3) is unique and the same job as line 1 (job 1), which is queued, running or"
                + " done ok: not run"), out);
        assertFalse(out.contains("job 3 started"), out);
        assertTrue(out.contains("job 4 started"), "the failed job's copy runs:\n" + out);
        assertTrue(out.contains("job 5 started"), "a line not marked unique runs:\n" + out);
        assertFalse(out.contains("line 4 (job 4) is unique"), out);
    }

    @Test
    void oneUsersJobNeverDedupesNorRevealsAnothers_onARootDaemonWithRealUsers() throws Exception {
        List<String> created = UnixUsers.create("gs-dd-ann", "gs-dd-ben");
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1").start();
            assertEquals(0, daemon.verb("pause", "0").code());
            String submit = "{\"v\":1,\"op\":\"submit\",\"line\":\"[unique] true\",\"cwd\":\"/tmp\"}";
            assertEquals("{\"v\":1,\"ok\":true,\"no\":1}", UnixUsers.as("gs-dd-ann", daemon.socket(), submit));
            assertEquals("{\"v\":1,\"ok\":true,\"no\":2}", UnixUsers.as("gs-dd-ben", daemon.socket(), submit),
                    "the same line in the same directory is another user's job: queued, and ann's not named");
            assertEquals("{\"v\":1,\"ok\":true,\"no\":1,\"already\":\"pending\"}",
                    UnixUsers.as("gs-dd-ann", daemon.socket(), submit));
            assertEquals("{\"v\":1,\"ok\":true,\"no\":2,\"already\":\"pending\"}",
                    UnixUsers.as("gs-dd-ben", daemon.socket(), submit));
            assertEquals(0, daemon.verb("cancel", "--user", "gs-dd-ann").code());
            assertEquals(0, daemon.verb("cancel", "--user", "gs-dd-ben").code());
        } finally {
            daemon.close();
            daemon = null;
            UnixUsers.remove(created);
        }
    }

}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.cli.ServeDaemon.Result;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpusched serve --max-queued-per-user}: a user at the cap gets one line, and no number is used up. */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QueueCapEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;

    @Test
    void aSubmissionOverTheCapIsRefusedInOneLineNamingTheLimitAndTheOption_andUsesNoNumber() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1", "--max-queued-per-user", "2")
                .start();
        assertEquals(0, daemon.verb("pause", "0").code());
        assertEquals(new Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--vram", "1G", "--", "true"));
        assertEquals(new Result(0, "submitted job 2\n", ""), daemon.verb("submit", "--vram", "1G", "--", "true"));
        String me = System.getProperty("user.name");
        assertEquals(new Result(1, "", "gpusched: " + me + " already has 2 jobs queued or running, the most one user may"
                + " have (gpusched serve --max-queued-per-user 2); wait for some to end, or cancel some\n"),
                daemon.verb("submit", "--vram", "1G", "--", "true"));

        assertEquals(0, daemon.verb("cancel", "1").code());
        assertEquals(new Result(0, "submitted job 3\n", ""), daemon.verb("submit", "--vram", "1G", "--", "true"),
                "the refused submission used no number; the cancelled job made room");
        daemon.awaitQueue("0 running, 2 pending, 1 done");
    }

    @Test
    void theOptionBelongsToServe_andTakesAWholeNumberOfJobs() {
        assertEquals(new Result(2, "", "gpusched: --max-queued-per-user must be a whole number of jobs from 1 to 2147483647,"
                + " got 0\n"), ServeDaemon.cli("serve", "--max-queued-per-user", "0"));
        assertEquals(new Result(2, "", "gpusched: --max-queued-per-user is an option of gpusched serve\n"),
                ServeDaemon.cli("jobs.txt", "--max-queued-per-user", "5"));
    }
}

package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Running the same jobs file again: jobs that ended stay ended, and the run says so — per job, in the
 * summary, on the board and in the exit code — instead of reporting "all 0 jobs done" and exiting 0.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RerunEndToEndTest {
    /** ok, failed (exit 3), timed out, infeasible on a 24000 MiB GPU, cancelled before start. */
    private static final String MIXED = "[vram=1G] echo fine\n"
            + "[vram=1G] echo broken; exit 3\n"
            + "[vram=1G timeout=0.3] sleep 5\n"
            + "[vram=30G] echo too big\n"
            + "[vram=1G cancel] echo never\n";

    @TempDir
    Path dir;

    @org.junit.jupiter.api.extension.RegisterExtension
    final CliRun.Stopper watching = new CliRun.Stopper();

    @Test
    void rerunSaysWhichJobsEndedEarlierAndExitsWithTheirOutcome() throws Exception {
        CliRun first = new CliRun(dir, MIXED);
        assertEquals(124, first.runToEnd("--sim", "1"), "the timed-out job counts as 124:\n" + first.output());

        Path events = dir.resolve("events.jsonl");
        CliRun second = new CliRun(dir, MIXED);
        assertEquals(124, second.runToEnd("--sim", "1", "--events", events.toString()), second.output());
        String out = second.output();
        assertFalse(out.contains(" started on gpu"), "nothing runs again:\n" + out);
        assertTrue(out.contains("job 1 already completed ok — skipping (journal): echo fine"), out);
        assertTrue(out.contains("job 2 already ended failed, exit 3 in an earlier run — not run again (journal;"
                + " --retry-failed runs it again): echo broken; exit 3"), out);
        assertTrue(out.contains("job 3 already ended timeout, exit 143 in an earlier run"), out);
        assertTrue(out.contains("job 4 already ended infeasible, exit 1 in an earlier run"), out);
        assertTrue(out.contains("job 5 already ended cancelled in an earlier run — not run again (journal;"
                + " cancelled jobs stay cancelled): echo never"), out);
        assertTrue(out.contains("all 5 jobs done — 1 ok, 3 failed, 1 cancelled, 0 under-declared vram,"
                + " 0 over-declared vram (5 of them ended in an earlier run)"), out);
        assertTrue(out.contains("  failed: job 2 (failed, exit 3, earlier run) — echo broken; exit 3"), out);

        List<String> ended = Files.readAllLines(events).stream().filter(l -> l.contains("\"event\":\"already_ended\""))
                .toList();
        assertEquals(5, ended.size(), ended.toString());
        assertTrue(ended.get(1).contains("\"key\":\"") && ended.get(1).contains("\"status\":\"failed\",\"exit_code\":3,"
                + "\"run_again\":false"), ended.get(1));

        String board = Files.readString(second.logs.resolve("status.txt"));
        assertTrue(board.contains("5 ended in an earlier run"), board);
        assertTrue(board.contains("✗ job 2   failed (exit 3, peak none seen, earlier run) — echo broken; exit 3"), board);
        assertTrue(board.contains("⊘ job 5   cancelled before start (never ran, earlier run) — echo never"), board);
    }

    @Test
    void retryFailedRunsFailuresAgainButNeverCancelledOrSuccessfulJobs() throws Exception {
        CliRun first = new CliRun(dir, MIXED);
        assertEquals(124, first.runToEnd("--sim", "1"));
        // Fixed: the too-big job now fits (same command, same identity), the failing one still fails.
        String fixed = MIXED.replace("[vram=30G] echo too big", "[vram=20G] echo too big");
        CliRun retry = new CliRun(dir, fixed);
        assertEquals(124, retry.runToEnd("--sim", "1", "--retry-failed"), retry.output());
        String out = retry.output();
        assertTrue(out.contains("job 2 ended failed, exit 3 in an earlier run — running it again (--retry-failed)"), out);
        assertTrue(out.contains("job 4 finished [OK]"), "the fixed infeasible job runs:\n" + out);
        assertTrue(out.contains("job 2 finished [EXIT 3]"), out);
        assertTrue(out.contains("job 3 finished [TIMEOUT]"), out);
        assertFalse(out.contains("job 1 started"), out);
        assertFalse(out.contains("job 5 started"), out);
        assertTrue(out.contains("all 5 jobs done — 2 ok, 2 failed, 1 cancelled"), out);
        String journal = Files.readString(retry.logs.resolve("journal.jsonl"));
        assertEquals(3, journal.lines().filter(l -> l.contains("\"event\":\"retry\"")).count(), journal);

        // Without the flag, what failed again stays failed.
        CliRun third = new CliRun(dir, fixed);
        assertEquals(124, third.runToEnd("--sim", "1"));
        assertFalse(third.output().contains(" started on gpu"), third.output());
    }

    @Test
    void editingAnEndedJobsLineSaysItIsNotRunAgain() throws Exception {
        CliRun run = new CliRun(dir, "[vram=30G] echo too big\n[cancel] echo later\n").start("--sim", "1", "--watch");
        watching.add(run);
        run.await("queue drained");
        run.writeJobs("[vram=20G] echo too big\necho later\n");
        String line = run.await("WARN  job 1 was edited");
        assertTrue(line.contains("it already ended (infeasible) and keeps that outcome")
                && line.contains("Run it again with --retry-failed"), line);
        assertTrue(run.await("WARN  job 2 was edited").contains("already ended (cancelled)"), run.output());
        assertFalse(run.output().contains(" started on gpu"), run.output());
    }

    @Test
    void secondSchedulerOnTheSameLogDirExits2NamingTheFirstAndRunsNothing() throws Exception {
        Path marker = dir.resolve("ran");
        CliRun first = new CliRun(dir, "[vram=1G] echo x >> " + marker + "\n").start("--sim", "1", "--watch");
        watching.add(first);
        first.await("queue drained");
        CliRun second = new CliRun(dir, "[vram=1G] echo x >> " + marker + "\n");
        assertEquals(2, second.runToEnd("--sim", "1"));
        assertEquals("gpusched: " + second.logs + " is in use by gpusched (pid " + ProcessHandle.current().pid()
                + "); stop it or use another --log-dir\n", second.errors());
        assertEquals(1, Files.readAllLines(marker).size(), "the job ran once");
    }

    @Test
    void gpusIndexTheMachineLacksIsRefusedBeforeAnyJobFails() throws Exception {
        CliRun run = new CliRun(dir, "[vram=1G] echo hi\n");
        assertEquals(2, run.runToEnd("--sim", "2", "--gpus", "5"));
        assertTrue(run.errors().contains("gpusched: --gpus names GPU 5, which this machine does not have;"
                + " GPUs found: 0, 1 — no job was started"), run.errors());
        String journal = Files.readString(run.logs.resolve("journal.jsonl"));
        assertFalse(journal.contains("\"event\":\"done\""), "no job was failed for good: " + journal);
        CliRun fixed = new CliRun(dir, "[vram=1G] echo hi\n");
        assertEquals(0, fixed.runToEnd("--sim", "2", "--gpus", "1"));
        assertTrue(fixed.output().contains("job 1 finished [OK]"), fixed.output());
    }

    @Test
    void logAndJsonNameTheDeclarationVerdictTheSameWay() throws Exception {
        Path events = dir.resolve("events.jsonl");
        CliRun run = new CliRun(dir, job("vram=4000", 1000, 0.1, 0.3));
        assertEquals(0, run.runToEnd("--sim", "1", "--events", events.toString()));
        assertTrue(run.await("job 1 finished").contains("→ over-declared"), run.output());
        String finished = Files.readAllLines(events).stream().filter(l -> l.contains("\"event\":\"job_finished\""))
                .findFirst().orElseThrow();
        assertTrue(finished.contains("\"verdict\":\"under\"") && finished.contains("\"declaration\":\"over_declared\""),
                finished);
    }
}

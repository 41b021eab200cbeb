package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live queue, the journal, retries, timeouts, cancellation and orphans, end to end through the CLI
 * with real processes on simulated GPUs.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LifecycleEndToEndTest {
    private static final String SIM = "$GPUSCHED_SIMJOB";

    @TempDir
    Path dir;

    /** Schedulers started with --watch run until stopped: stopped after each test. */
    @org.junit.jupiter.api.extension.RegisterExtension
    final CliRun.Stopper watching = new CliRun.Stopper();

    @Test
    void appendedLineIsDispatchedWhileWatching() throws Exception {
        CliRun run = new CliRun(dir, job("vram=1G", 500, 0.1, 0.1)).start("--sim", "1", "--watch");
        watching.add(run);
        run.await("queue drained — watching jobs file");
        run.appendJobs(job("vram=1G", 700, 0.1, 0.1, "--exit-code 0"));
        assertTrue(run.await("job 2 finished [OK]").contains("gpu0:700 MiB"));
        Files.writeString(run.jobs, "[cancel] " + SIM + " --vram 1\n", java.nio.file.StandardOpenOption.APPEND);
        run.await("job 3 cancelled before start");
        String board = "";
        for (long end = System.nanoTime() + CliRun.WAIT.toNanos(); System.nanoTime() < end && !board.contains("⊘ job 3");) {
            board = Files.readString(run.logs.resolve("status.txt"));
            Thread.sleep(20);
        }
        assertTrue(board.contains("⊘ job 3   cancelled before start (never ran) — "), board);
        // --watch runs until stopped; the scheduler stays up (no summary line yet)
        assertFalse(run.output().contains("all "));
    }

    @Test
    void deletedPendingLineIsDequeuedAndReorderedLinesRunInFileOrder() throws Exception {
        // job A holds the only GPU alone (undeclared); B, C, D wait behind it.
        String a = job("", 500, 0.1, 1.5);
        String b = "[vram=1G] echo B\n";
        String c = "[vram=1G] echo C\n";
        String d = "[vram=1G] echo D\n";
        CliRun run = new CliRun(dir, a + b + c + d).start("--sim", "1");
        run.await("job 1 started");
        run.writeJobs(a + d + c); // delete B, put D before C
        assertEquals(0, run.exitCode());
        assertEquals(-1, run.indexOf("— echo B"), run.output());
        int dStart = run.indexOf("started on gpu [0] (2/") >= 0 ? run.indexOf("echo D") : -1;
        assertTrue(dStart >= 0 && dStart < run.indexOf("echo C"), run.output());
    }

    @Test
    void rerunResumesSkippingCompletedJobs() throws Exception {
        CliRun first = new CliRun(dir, "[vram=1G] echo one\n[vram=1G] echo two; exit 1\n");
        assertEquals(1, first.runToEnd("--sim", "1"));
        CliRun second = new CliRun(dir, "[vram=1G] echo one\n[vram=1G] echo two; exit 1\n[vram=1G] echo three\n");
        assertEquals(1, second.runToEnd("--sim", "1"), "the earlier failure still counts");
        assertTrue(second.output().contains("job 1 already completed ok — skipping (journal): echo one"), second.output());
        assertTrue(second.output().contains("job 2 already ended failed, exit 1 in an earlier run — not run again"),
                second.output());
        assertFalse(second.output().contains("job 2 started"), "a failed job is terminal too");
        assertTrue(second.output().contains("job 3 started"));
        CliRun fresh = new CliRun(dir, "[vram=1G] echo one\n");
        assertEquals(0, fresh.runToEnd("--sim", "1", "--fresh"));
        assertTrue(fresh.output().contains("job 1 started"), "--fresh re-runs everything");
    }

    @Test
    void oomIsRetriedWithABumpedDeclarationThatSurvivesRestarts() throws Exception {
        Path marker = dir.resolve("oom.marker");
        CliRun run = new CliRun(dir, job("vram=4000 retries=1", 4000, 0.1, 0.2, "--oom-once", marker.toString()));
        assertEquals(0, run.runToEnd("--sim", "1"));
        run.await("↻ job 1 hit CUDA OOM (attempt 1/2) — requeued with vram 4000 → 5000 MiB");
        assertTrue(run.output().contains("job 1 started on gpu [0] (1/1 dispatched, attempt 2, declared 5000 MiB/gpu)"),
                "the retry is the same job's second attempt:\n" + run.output());
        assertTrue(run.await("job 1 finished [OK]").contains("declared 5000 MiB"), run.output());
        String journal = Files.readString(run.logs.resolve("journal.jsonl"));
        assertTrue(journal.contains("\"event\":\"oom\",\"attempts\":1,\"next_vram\":5000"), journal);
    }

    @Test
    void oomWithoutRetriesIsTerminal() throws Exception {
        Path marker = dir.resolve("oom.marker");
        CliRun run = new CliRun(dir, job("vram=4000", 4000, 0.1, 0.2, "--oom-once", marker.toString()));
        assertEquals(1, run.runToEnd("--sim", "1"));
        assertTrue(run.await("job 1 finished").contains("[OOM (exit 1, retries exhausted)]"), run.output());
        assertTrue(run.output().contains("failed: job 1 (failed_oom, exit 1)"));
    }

    @Test
    void plainFailureIsNeverRetriedAsOom() throws Exception {
        CliRun run = new CliRun(dir, "[vram=1G retries=3] echo 'segfault'; exit 6\n");
        assertEquals(6, run.runToEnd("--sim", "1", "--oom-retries", "2"));
        assertFalse(run.output().contains("OOM"), run.output());
        assertEquals(1, run.lines().stream().filter(l -> l.contains("job 1 started")).count());
    }

    @Test
    void timeoutTerminatesTheJob() throws Exception {
        CliRun run = new CliRun(dir, job("vram=1G timeout=0.4s", 500, 0.1, 30));
        assertEquals(124, run.runToEnd("--sim", "1"), "a timed-out job counts as 124, like GNU timeout");
        run.await("WARN  job 1 TIMEOUT after");
        assertTrue(run.await("job 1 finished").contains("[TIMEOUT]"));
    }

    @Test
    void noTimeoutMeansTheJobRunsToTheEnd() throws Exception {
        CliRun run = new CliRun(dir, job("vram=1G", 500, 0.1, 1.5));
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertFalse(run.output().contains("TIMEOUT"));
    }

    @Test
    void sigtermTrappingJobIsEscalatedToSigkillAndLeavesNoStraggler() throws Exception {
        Path pids = dir.resolve("pids");
        CliRun run = new CliRun(dir, "[vram=1G timeout=0.3s] echo $$ > " + pids + "; " + SIM
                + " --vram 500 --ramp 0.1 --hold 30 --ignore-term & echo $! >> " + pids + "; trap '' TERM; wait\n");
        assertEquals(124, run.runToEnd("--sim", "1"), "timed out, whatever signal ended it");
        run.await("WARN  job 1 did not exit 0.5s after SIGTERM — SIGKILL");
        assertTrue(run.output().contains("failed: job 1 (timeout, exit 137)"), run.output());
        for (String pid : Files.readAllLines(pids)) {
            assertFalse(runsWithin(Long.parseLong(pid.strip()), 2000), "process " + pid + " survived");
        }
    }

    /** Whether the process still runs after up to {@code millis}; a zombie (killed, not yet reaped) does not run. */
    private static boolean runsWithin(long pid, long millis) throws Exception {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (true) {
            Path stat = Path.of("/proc", Long.toString(pid), "stat");
            String s;
            try {
                s = Files.readString(stat);
            } catch (java.io.IOException gone) {
                return false;
            }
            if (s.substring(s.lastIndexOf(')') + 2).startsWith("Z")) {
                return false;
            }
            if (System.nanoTime() > deadline) {
                return true;
            }
            Thread.sleep(20);
        }
    }

    @Test
    void cancelStopsARunningJobAndNeverStartsAPendingOne() throws Exception {
        String running = job("vram=1G", 500, 0.1, 30);
        String pending = job("", 500, 0.1, 0.1, "--exit-code 0"); // undeclared: waits for the idle GPU
        CliRun run = new CliRun(dir, running + pending).start("--sim", "1");
        run.await("job 1 started");
        run.writeJobs(job("vram=1G cancel", 500, 0.1, 30) + job("cancel", 500, 0.1, 0.1, "--exit-code 0"));
        assertEquals(0, run.exitCode(), "cancelled jobs are not failures");
        run.await("WARN  job 1 CANCELLED by user");
        assertTrue(run.await("job 1 finished").contains("[CANCELLED]"));
        run.await("job 2 cancelled before start");
        assertTrue(run.output().contains("0 failed, 2 cancelled"), run.output());

        // Removing the token does not resurrect them.
        CliRun again = new CliRun(dir, running + pending);
        assertEquals(0, again.runToEnd("--sim", "1"));
        assertFalse(again.output().contains("started"), again.output());
    }

    @Test
    void malformedEditKeepsTheLastGoodQueueAndWarnsOnce() throws Exception {
        CliRun run = new CliRun(dir, job("", 500, 0.1, 1.0) + "[vram=1G] echo second\n").start("--sim", "1");
        run.await("job 1 started");
        run.writeJobs(job("", 500, 0.1, 1.0) + "[vram=1G] echo second\n[vram=1G oops] echo broken\n");
        run.await("WARN  jobs.txt:3: token without '=' in attribute block: 'oops'");
        assertEquals(0, run.exitCode());
        assertEquals(1, run.lines().stream().filter(l -> l.contains("'oops'")).count(), "warned once");
        assertTrue(run.output().contains("job 2 finished [OK]"), "the last good queue still ran");
    }

    @Test
    void editWithSeveralBadLinesWarnsOnceWithTheFirstAndTheCountOfTheOthers() throws Exception {
        CliRun run = new CliRun(dir, job("", 500, 0.1, 1.0) + "[vram=1G] echo second\n").start("--sim", "1");
        run.await("job 1 started");
        run.writeJobs(job("", 500, 0.1, 1.0) + "[vram=1G] echo second\n[vram=1G oops] echo broken\n[gpus=0] echo b\n"
                + "[vrma=1G] echo c\n");
        String warn = run.await("WARN  jobs.txt:3:");
        assertEquals("WARN  jobs.txt:3: token without '=' in attribute block: 'oops'; write key=value or a bare word "
                + "(cancel, preemptible, tty, unique); known keys: vram, gpus, timeout, retries, cancel, priority, gpu-ids, preemptible, "
                + "on-timeout, name, after, after-ok, after-any, conda, setup, tty, comment, unique (a command that starts with '[' needs an empty block first: "
                + "[] [ -f x ] && ...) (and 2 more bad lines) — keeping the previous queue until the file is fixed", warn);
        assertEquals(0, run.exitCode());
        assertEquals(1, run.lines().stream().filter(l -> l.contains("bad line")).count(), "one event:\n" + run.output());
        assertTrue(run.output().contains("job 2 finished [OK]"), "the last good queue still ran");
    }

    @Test
    void liveOrphanBlocksRedispatchThenADeadOneIsRequeued() throws Exception {
        // A previous scheduler died while "sleep" ran: its journal says started, with the session id.
        // It lives until the new scheduler has said it waits for it, however slowly that one starts.
        Process orphan = new ProcessBuilder("setsid", "sleep", "60").start();
        long pgid = orphan.pid();
        String command = "echo rerun";
        String key = io.gpusched.jobs.JobSpec.parse(command).key();
        Path logs = dir.resolve("logs");
        Files.createDirectories(logs);
        Files.writeString(logs.resolve("journal.jsonl"),
                "{\"key\": \"" + key + "\", \"event\": \"seen\", \"no\": 1, \"command\": \"" + command + "\"}\n"
                        + "{\"key\": \"" + key + "\", \"event\": \"started\", \"pgid\": " + pgid + ", \"gpus\": [0]}\n");
        CliRun run = new CliRun(dir, "[vram=1G] " + command + "\n");
        try {
            run.start("--sim", "1");
            run.await("is still running as an ORPHAN");
            assertFalse(run.output().contains("job 1 started"), run.output());
        } finally {
            orphan.destroyForcibly().waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        assertEquals(0, run.exitCode());
        assertTrue(run.output().contains("WARN  job 1 is still running as an ORPHAN of a previous scheduler (pgid " + pgid
                + ") — not re-dispatching; wait for it or kill it: kill -TERM -" + pgid), run.output());
        int requeued = run.indexOf("job 1 was interrupted mid-run by a previous scheduler's death — re-queuing");
        assertTrue(requeued > 0 && requeued < run.indexOf("job 1 started"), run.output());
        assertFalse(orphan.isAlive());
    }

    @Test
    void statusBoardShowsRunningPendingWithReasonAndDone() throws Exception {
        CliRun run = new CliRun(dir, job("vram=20000", 15000, 0.1, 3) + job("vram=16G", 100, 0.1, 0.1)
                + "[vram=1G] true\n").start("--sim", "1");
        run.await("job 3 finished");
        // the board is written off the loop's thread (PacedBoardWriter), after the report: wait for it, and
        // for the file itself, rather than for a fixed time
        String board = "";
        for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline; Thread.sleep(20)) {
            try {
                board = Files.readString(run.logs.resolve("status.txt"));
            } catch (java.nio.file.NoSuchFileException notYet) {
                continue;
            }
            if (board.contains("✓ job 3")) {
                break;
            }
        }
        assertTrue(board.contains("▶ job 1"), board);
        assertTrue(board.contains("· job 2   pending vram 16384 [needs 1 GPU with ≥ 16896 MiB headroom; best is gpu0 with 4000 MiB]"), board);
        assertTrue(board.contains("✓ job 3"), board);
        assertEquals(0, run.exitCode());
    }
}

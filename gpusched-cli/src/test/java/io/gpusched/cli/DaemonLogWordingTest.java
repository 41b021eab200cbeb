package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's log as #26 found it: {@code (3/1 dispatched}, a file said to be polled where there is none,
 * and {@code 1 jobs queued}. Counts are of the queue's jobs (never more dispatched than there are), a
 * file is named only where one is re-read, and one job is one job.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DaemonLogWordingTest {
    @TempDir
    Path dir;

    @Test
    void aDaemonsJobsAreCountedAmongTheQueuesJobs_andItsHeaderNamesNoFile() throws Exception {
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1").start()) {
            for (int i = 1; i <= 3; i++) {
                assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", "true").code());
                int no = i;
                for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                     !daemon.verb("queue").out().contains("job " + no + " ok"); Thread.sleep(50)) {
                    assertTrue(System.nanoTime() < end, daemon.log());
                }
            }
            // Three submitted while the GPU is paused, then placed in one round: two fit, the third waits.
            assertEquals(0, daemon.verb("pause", "0").code());
            for (int i = 4; i <= 6; i++) {
                assertEquals(0, daemon.verb("submit", "--vram", "10G", "--", "sleep 60").code());
            }
            assertEquals(0, daemon.verb("resume", "0").code());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); !daemon.log().contains("job 5 started");
                 Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, daemon.log());
            }
            String log = daemon.log();
            assertTrue(log.contains("] 0 jobs queued [static queue] (GPUs polled every 0.1s; a job that ends frees its GPUs"
                    + " at once; backend: sim"), log);
            // An ended submission leaves the queue: each of the first three was the queue's one job.
            for (int i = 1; i <= 3; i++) {
                assertTrue(log.contains("job " + i + " started on gpu [0] (1/1 dispatched, declared 1024 MiB/gpu)"), log);
            }
            assertTrue(log.contains("job 4 started on gpu [0] (1/3 dispatched, declared 10240 MiB/gpu)"), log);
            assertTrue(log.contains("job 5 started on gpu [0] (2/3 dispatched, declared 10240 MiB/gpu)"), log);
            Matcher m = Pattern.compile("\\(([0-9]+)/([0-9]+) dispatched").matcher(log);
            while (m.find()) {
                assertTrue(Integer.parseInt(m.group(1)) <= Integer.parseInt(m.group(2)), m.group() + " in\n" + log);
            }
            daemon.verb("cancel", "--user", "me");
        }
    }

    /**
     * After a restart the counts are still of the queue's jobs as they are when a job starts: a taken-up
     * job that ended in the same round is no longer one of them (it was: {@code 3/4}, then {@code 3/3} where
     * the queue held 3, then 2 jobs), and those taken up that still run are counted among the dispatched,
     * which the line says ({@code 1 taken up}), as this daemon started none of them.
     */
    @Test
    void afterARestart_theCountsAreOfTheQueueNow_andSayHowManyRunTakenUp() throws Exception {
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "2", "--poll", "0.1")) {
            daemon.start();
            assertEquals(0, daemon.verb("submit", "--", "sleep 8").code());
            assertEquals(0, daemon.verb("submit", "--", "sleep 30").code());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); !daemon.log().contains("job 2 started");
                 Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, daemon.log());
            }
            daemon.stop();
            int before = daemon.log().length();
            daemon.start();
            // Both GPUs are held by the jobs taken up: jobs 3 and 4 (each wants an idle GPU) wait for job 1's end.
            assertEquals(0, daemon.verb("submit", "--", "true").code());
            assertEquals(0, daemon.verb("submit", "--", "true").code());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); !daemon.log().contains("job 4 started");
                 Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end, daemon.log());
            }
            String log = daemon.log().substring(before);
            assertTrue(log.contains("job 1 is still running from a previous scheduler"), log);
            assertTrue(log.contains("job 3 started on gpu [0] (2/3 dispatched, 1 taken up, undeclared"), log);
            assertTrue(log.contains("job 4 started on gpu [0] (2/2 dispatched, 1 taken up, undeclared"), log);
            daemon.verb("cancel", "2");
        }
    }

    /**
     * A restarted daemon's first line counts the queue's jobs as a start's {@code (N/M dispatched)} does,
     * and says how many of them the last daemon left running (it said {@code 2 jobs queued} of a queue
     * whose one job ran, taken up, and one waited); a stop's last line says the running ones go on only
     * where one does (it said so after {@code stopping: no job is running} too).
     */
    @Test
    void afterARestart_theHeaderSaysHowManyOfTheQueuedRan_andAStopWithNoneRunningSaysNoneGoesOn() throws Exception {
        try (ServeDaemon daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1")) {
            daemon.start();
            // Undeclared jobs each want an idle GPU: job 2 waits behind job 1.
            assertEquals(0, daemon.verb("submit", "--", "sleep 60").code());
            assertEquals(0, daemon.verb("submit", "--", "true").code());
            daemon.awaitQueue("1 running, 1 pending");
            assertEquals(130, daemon.stop());
            String first = daemon.log();
            assertTrue(first.contains("stopping: 1 running job keeps running"), first);
            assertTrue(first.contains("stopped — 0 jobs finished in this run; the running one goes on, for the next gpusched"
                    + " serve (exit 130)"), first);

            daemon.start();
            daemon.awaitQueue("1 running, 1 pending");
            String restarted = daemon.log().substring(first.length());
            assertTrue(restarted.contains("] 2 jobs queued, 1 of them running when the last scheduler stopped [static queue]"
                    + " (GPUs polled every 0.1s;"), restarted);
            assertTrue(restarted.contains("job 1 is still running from a previous scheduler"), restarted);
            assertEquals(0, daemon.verb("cancel", "1").code());
            daemon.awaitQueue("✓ job 2 ok");
            daemon.awaitQueue("0 running, 0 pending");
            assertEquals(130, daemon.stop());
            String second = daemon.log().substring(first.length());
            assertTrue(second.contains("stopping: no job is running"), second);
            assertTrue(second.contains("stopped — 2 jobs finished in this run; none was left running (exit 130)"), second);
            assertFalse(second.contains("go on"), second);
        }
    }

    @Test
    void theHeader_namesTheJobsTheLastSchedulerLeftRunning_onlyWhereThereAreAny() {
        LogRenderer r = new LogRenderer(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), 0.1, false);
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        assertEquals("4 jobs queued, 2 of them running when the last scheduler stopped [static queue] (GPUs polled every 5s;"
                + " a job that ends frees its GPUs at once; backend: sim)", r.render(new SchedulerEvent.RunStarted(t, 4, false,
                Duration.ofSeconds(5), Optional.empty(), "sim", 2)));
        assertEquals("1 job queued, running when the last scheduler stopped [static queue] (GPUs polled every 5s; a job that"
                + " ends frees its GPUs at once; backend: sim)", r.render(new SchedulerEvent.RunStarted(t, 1, false,
                Duration.ofSeconds(5), Optional.empty(), "sim", 1)));
        assertEquals("3 jobs queued [static queue] (GPUs polled every 5s; a job that ends frees its GPUs at once; backend:"
                + " sim)", r.render(new SchedulerEvent.RunStarted(t, 3, false, Duration.ofSeconds(5), Optional.empty(), "sim", 0)));
    }

    @Test
    void aStartsLine_countsTheJobsTakenUpThatStillRun() {
        LogRenderer r = new LogRenderer(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), 0.1, false);
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        java.util.function.IntFunction<SchedulerEvent> started = no -> new SchedulerEvent.JobStarted(t, no, "k" + no,
                "true", java.util.List.of(0), java.util.OptionalLong.empty(), 3, 4, 42, Path.of("j.log"), 1);
        r.render(new SchedulerEvent.OrphanAdopted(t, 1, java.util.OptionalLong.of(7)));
        r.render(new SchedulerEvent.OrphanAdopted(t, 2, java.util.OptionalLong.of(8)));
        assertEquals("job 5 started on gpu [0] (3/4 dispatched, 2 taken up, undeclared (exclusive idle GPU)) — true",
                r.render(started.apply(5)));
        r.render(new SchedulerEvent.JobRequeued(t, 1, SchedulerEvent.StopReason.PREEMPTED, Duration.ofSeconds(3)));
        assertEquals("job 6 started on gpu [0] (3/4 dispatched, 1 taken up, undeclared (exclusive idle GPU)) — true",
                r.render(started.apply(6)));
        r.render(new SchedulerEvent.OrphanRequeued(t, 2));
        assertEquals("job 7 started on gpu [0] (3/4 dispatched, undeclared (exclusive idle GPU)) — true",
                r.render(started.apply(7)));
    }

    @Test
    void anExceededDeclarationNamesTheGpuByItsIndexNow_andItsUuidWhereTheEventCarriesOne() {
        LogRenderer r = new LogRenderer(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), 0.1, false);
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        assertEquals("WARN  job 3 EXCEEDS declared VRAM: 3000 MiB observed on gpu 2 (GPU-bbbb) vs 1024 MiB declared (+193%)"
                + " — neighbors may OOM", r.render(new SchedulerEvent.ExceededDeclaration(t, 3, 2, 3000, 1024,
                Optional.of("GPU-bbbb"))));
        assertEquals("WARN  job 3 EXCEEDS declared VRAM: 3000 MiB observed on gpu 2 vs 1024 MiB declared (+193%)"
                + " — neighbors may OOM", r.render(new SchedulerEvent.ExceededDeclaration(t, 3, 2, 3000, 1024)));
    }

    @Test
    void oneJobIsOneJob_andOnlyALiveQueuesFileIsPolled() {
        LogRenderer r = new LogRenderer(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), 0.1, false);
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        assertEquals("1 job queued [static queue] (GPUs polled every 5s; a job that ends frees its GPUs at once; backend: "
                + "sim)", r.render(new SchedulerEvent.RunStarted(t, 1, false, Duration.ofSeconds(5), Optional.empty(), "sim")));
        assertEquals("2 jobs queued [live queue (file re-read each round)] (file and GPUs polled every 5s; a job that ends"
                + " frees its GPUs at once; backend: sim; status board: s.txt)", r.render(new SchedulerEvent.RunStarted(t, 2,
                true, Duration.ofSeconds(5), Optional.of(Path.of("s.txt")), "sim")));
    }
}

package io.gpusched.engine;

import io.gpusched.engine.proc.ProcFs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.model.Verdict;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EngineTest {
    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    private Scheduler scheduler(StubBackend backend, SchedulerOptions options, List<JobSpec> jobs) {
        return Scheduler.builder().backend(backend).options(options).logDir(dir.resolve("logs"))
                .jobs(jobs).listener(events::add).build();
    }

    private static List<JobSpec> jobs(String... lines) {
        return java.util.Arrays.stream(lines).map(JobSpec::parse).toList();
    }

    @Test
    void everyOutcomeIsInTheJournalFileBeforeItIsReportedEvenWhenExitsShareOneFsync() throws Exception {
        // 40 jobs that end together: their exits reach the loop in batches whose outcomes share an fsync.
        String[] lines = new String[41];
        for (int i = 0; i < 40; i++) {
            lines[i] = "[vram=100] echo " + i;
        }
        lines[40] = "[vram=100 retries=1] echo 'CUDA out of memory' >&2; exit 1";
        Path journal = dir.resolve("logs").resolve("journal.jsonl");
        List<String> missing = new CopyOnWriteArrayList<>();
        Scheduler s = Scheduler.builder().backend(new StubBackend(2, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .jobs(jobs(lines)).listener(e -> {
                    events.add(e);
                    try {
                        if (e instanceof SchedulerEvent.JobFinished f && !Files.readString(journal)
                                .contains("\"key\":\"" + f.result().key() + "\",\"event\":\"done\"")) {
                            missing.add("done of job " + f.result().no());
                        } else if (e instanceof SchedulerEvent.RequeuedAfterOom o
                                && !Files.readString(journal).contains("\"event\":\"oom\",\"attempts\":" + o.attempt())) {
                            missing.add("oom of job " + o.no());
                        }
                    } catch (java.io.IOException ex) {
                        missing.add(ex.toString());
                    }
                }).build();
        RunSummary summary = s.run();
        assertEquals(41, summary.results().size());
        assertEquals(40, summary.count(JobStatus.OK));
        assertEquals(1, summary.count(JobStatus.FAILED_OOM));
        assertEquals(1, events.stream().filter(e -> e instanceof SchedulerEvent.RequeuedAfterOom).count());
        assertEquals(List.of(), missing);
    }

    @Test
    void submittingACommandThatEndedInAnEarlierRunRunsItAgainAsAJobOfItsOwn() throws Exception {
        RunSummary first = scheduler(new StubBackend(1, 24000), FAST, jobs("[vram=1G] exit 4")).run();
        assertEquals(4, first.exitCode());
        events.clear();
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST.withWatch(true))
                .logDir(dir.resolve("logs")).listener(events::add).build();
        Thread loop = new Thread(s::run, "loop");
        loop.start();
        try {
            JobResult r = s.submit(JobSpec.parse("[vram=1G] exit 4")).result().get(20, TimeUnit.SECONDS);
            assertEquals(JobStatus.FAILED, r.status());
            assertEquals(2, r.no(), "a new job, numbered after the file's");
            assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobStarted j && j.no() == 2));
        } finally {
            s.close();
            loop.join(20_000);
        }
    }

    @Test
    void successfulAndFailingJobsGiveTheMaxFailingExitCode() {
        RunSummary s = scheduler(new StubBackend(2, 24000), FAST, jobs("[vram=1G] true", "[vram=1G] exit 3", "[vram=1G] exit 7")).run();
        assertEquals(3, s.results().size());
        assertEquals(7, s.exitCode());
        assertEquals(1, s.count(JobStatus.OK));
        assertEquals(2, s.count(JobStatus.FAILED));
    }

    @Test
    void jobsGetCudaVisibleDevicesAndPciOrder() throws Exception {
        Path out = dir.resolve("env.txt");
        scheduler(new StubBackend(2, 24000), FAST,
                jobs("[vram=1G gpus=2] echo \"$CUDA_VISIBLE_DEVICES|$CUDA_DEVICE_ORDER|$GPUSCHED_GPUS\" > " + out)).run();
        assertEquals("0,1|PCI_BUS_ID|0,1", Files.readString(out).strip());
    }

    @Test
    void cpuOnlyJobIsUnattributed() {
        RunSummary s = scheduler(new StubBackend(1, 24000), FAST, jobs("[vram=1G] true")).run();
        assertEquals(Verdict.UNATTRIBUTED, s.results().get(0).verdict());
        assertFalse(s.results().get(0).attributed());
    }

    @Test
    void gpuProcessInTheJobsSessionIsAttributedEvenInItsOwnProcessGroup() throws Exception {
        StubBackend backend = new StubBackend(1, 24000);
        Path pidFile = dir.resolve("child.pid");
        // The child moves to its own process group (as torchrun workers may) but stays in the session.
        String cmd = "[vram=4000] perl -e 'setpgrp(0,0); open(F, \">" + pidFile + "\"); print F $$; close F; sleep 2'";
        Scheduler s = scheduler(backend, FAST, jobs(cmd));
        Thread t = new Thread(() -> {
            try {
                while (!Files.exists(pidFile) || Files.readString(pidFile).isBlank()) {
                    Thread.sleep(10);
                }
                long pid = Long.parseLong(Files.readString(pidFile).strip());
                backend.processes.add(new GpuProcess(0, pid, 3900));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        t.start();
        RunSummary summary = s.run();
        t.join();
        JobResult r = summary.results().get(0);
        assertEquals(3900L, r.peakMib().get(0));
        assertEquals(Verdict.WITHIN, r.verdict());
    }

    @Test
    void childInItsOwnProcessGroupIsKilledWithTheJob() throws Exception {
        Path pidFile = dir.resolve("worker.pid");
        // A torchrun-style worker: its own process group (setpgrp), still in the job's session, ignoring SIGTERM.
        String cmd = "[vram=1G timeout=0.3s] perl -e '$SIG{TERM}=\"IGNORE\"; setpgrp(0,0); open(F, \">" + pidFile
                + "\"); print F $$; close F; sleep 30' & wait";
        RunSummary s = scheduler(new StubBackend(1, 24000), FAST, jobs(cmd)).run();
        assertEquals(JobStatus.TIMEOUT, s.results().get(0).status());
        long worker = Long.parseLong(Files.readString(pidFile).strip());
        long deadline = System.nanoTime() + 2_000_000_000L;
        while (ProcFs.system().sessionOf(worker).isPresent() && !zombie(worker) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(ProcFs.system().sessionOf(worker).isEmpty() || zombie(worker), "the worker in its own group survived");
    }

    private static boolean zombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (java.io.IOException gone) {
            return true;
        }
    }

    @Test
    void timeoutSweepKillsAChildThatIgnoresSigterm() throws Exception {
        Path marker = dir.resolve("survivor");
        // The leader dies on SIGTERM; its child ignores it, so only the final SIGKILL sweep can stop it.
        String cmd = "[vram=1G timeout=0.3s] sh -c 'trap \"\" TERM; sleep 2; touch " + marker + "' & wait";
        RunSummary s = scheduler(new StubBackend(1, 24000), FAST, jobs(cmd)).run();
        assertEquals(JobStatus.TIMEOUT, s.results().get(0).status());
        Thread.sleep(2500);
        assertFalse(Files.exists(marker), "a process of the timed-out job survived");
    }

    @Test
    void leaderThatTrapsSigtermIsKilledAfterTheGrace() {
        RunSummary s = scheduler(new StubBackend(1, 24000), FAST, jobs("[vram=1G timeout=0.2s] trap '' TERM; sleep 30")).run();
        assertEquals(JobStatus.TIMEOUT, s.results().get(0).status());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.KillEscalated));
        assertTrue(s.results().get(0).duration().compareTo(Duration.ofSeconds(10)) < 0);
    }

    @Test
    void journalSkipsCompletedJobsOnRerun() {
        List<JobSpec> jobs = jobs("[vram=1G] true", "[vram=1G] exit 2");
        scheduler(new StubBackend(1, 24000), FAST, jobs).run();
        events.clear();
        RunSummary again = scheduler(new StubBackend(1, 24000), FAST, jobs).run();
        assertEquals(0, again.results().size());
        assertEquals(0, events.stream().filter(e -> e instanceof SchedulerEvent.JobStarted).count());
        // Only jobs that succeeded earlier are announced as skipped, as in the original.
        assertEquals(1, events.stream().filter(e -> e instanceof SchedulerEvent.AlreadyCompleted).count());
    }
}

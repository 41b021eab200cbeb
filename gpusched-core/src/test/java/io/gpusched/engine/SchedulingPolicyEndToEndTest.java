package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Scheduling;
import io.gpusched.policy.PolicyOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Priorities, dependencies, time slices and preemption, with real processes on stub GPUs. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SchedulingPolicyEndToEndTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private static JobSpec job(String command, long mib, Optional<Duration> timeout, Scheduling s, int line) {
        return JobSpec.builder(command).vramMib(OptionalLong.of(mib)).timeout(timeout).line(line).key("k" + line)
                .scheduling(s).build();
    }

    private static Scheduling scheduling(int priority, boolean preemptible, Scheduling.OnTimeout onTimeout,
                                         Optional<String> name, List<Scheduling.Dependency> after) {
        return new Scheduling(priority, List.of(), preemptible, onTimeout, name, after);
    }

    private RunSummary run(List<JobSpec> jobs, SchedulerOptions options) {
        return Scheduler.builder().backend(new StubBackend(1, 24000)).options(options).logDir(dir.resolve("logs"))
                .jobs(jobs).listener(events::add).build().run();
    }

    private Map<Integer, JobStatus> statuses(RunSummary s) {
        return s.results().stream().collect(Collectors.toMap(JobResult::no, JobResult::status));
    }

    @Test
    void aJobRunsAfterTheJobsItNames_andNotAtAllWhenOneItNeedsFailed() throws Exception {
        Path ledger = dir.resolve("ledger");
        String log = " >> " + ledger;
        List<JobSpec> jobs = List.of(
                job("echo train" + log, 1000, Optional.empty(), scheduling(0, false, Scheduling.OnTimeout.FAIL,
                        Optional.empty(), List.of(new Scheduling.Dependency("prep", true))), 1),
                job("sleep 0.3; echo prep" + log, 1000, Optional.empty(), scheduling(0, false, Scheduling.OnTimeout.FAIL,
                        Optional.of("prep"), List.of()), 2),
                job("exit 3", 1000, Optional.empty(), scheduling(0, false, Scheduling.OnTimeout.FAIL,
                        Optional.of("bad"), List.of()), 3),
                job("echo eval" + log, 1000, Optional.empty(), scheduling(0, false, Scheduling.OnTimeout.FAIL,
                        Optional.empty(), List.of(new Scheduling.Dependency("bad", true))), 4),
                job("echo report" + log, 1000, Optional.empty(), scheduling(0, false, Scheduling.OnTimeout.FAIL,
                        Optional.empty(), List.of(new Scheduling.Dependency("bad", false))), 5));

        RunSummary s = run(jobs, FAST);

        List<String> ran = Files.readAllLines(ledger);
        assertTrue(ran.indexOf("prep") >= 0 && ran.indexOf("prep") < ran.indexOf("train"), ran.toString());
        assertTrue(ran.contains("report") && !ran.contains("eval"), ran.toString());
        assertEquals(Map.of(1, JobStatus.OK, 2, JobStatus.OK, 3, JobStatus.FAILED, 4, JobStatus.DEPENDENCY_FAILED,
                5, JobStatus.OK), statuses(s));
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.DependencyFailed d && d.no() == 4
                && d.reason().contains("job 3 (bad) ended failed")), events.toString());
    }

    @Test
    void onOneGpuTheHigherPriorityRunsFirst_whateverTheOrderOfTheLines() throws Exception {
        Path ledger = dir.resolve("ledger");
        List<JobSpec> jobs = List.of(
                job("echo low >> " + ledger, 20000, Optional.empty(), scheduling(0, false, Scheduling.OnTimeout.FAIL,
                        Optional.empty(), List.of()), 1),
                job("echo high >> " + ledger, 20000, Optional.empty(), scheduling(5, false, Scheduling.OnTimeout.FAIL,
                        Optional.empty(), List.of()), 2),
                job("echo negative >> " + ledger, 20000, Optional.empty(), scheduling(-1, false, Scheduling.OnTimeout.FAIL,
                        Optional.empty(), List.of()), 3),
                job("echo also-low >> " + ledger, 20000, Optional.empty(), scheduling(0, false, Scheduling.OnTimeout.FAIL,
                        Optional.empty(), List.of()), 4));

        run(jobs, FAST);

        assertEquals(List.of("high", "low", "also-low", "negative"), Files.readAllLines(ledger));
    }

    @Test
    void aJobWhoseTimeSliceEndsIsRequeuedAndRunsAgain_notFailed() throws Exception {
        Path marker = dir.resolve("first-slice-done");
        JobSpec sliced = job("if [ -e " + marker + " ]; then exit 0; fi; touch " + marker + "; sleep 30", 1000,
                Optional.of(Duration.ofSeconds(1)), scheduling(0, false, Scheduling.OnTimeout.REQUEUE, Optional.empty(),
                        List.of()), 1);

        RunSummary s = run(List.of(sliced), FAST);

        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertEquals(0, s.exitCode(), "a time slice is not a failure");
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobRequeued q
                && q.why() == SchedulerEvent.StopReason.TIME_SLICE), events.toString());
        String journal = Files.readString(dir.resolve("logs/journal.jsonl"));
        assertTrue(journal.contains("\"event\":\"requeued\",\"reason\":\"time_slice\""), journal);
        assertEquals(2, events.stream().filter(e -> e instanceof SchedulerEvent.JobStarted).count());
        assertTrue(events.stream().filter(e -> e instanceof SchedulerEvent.JobStarted).allMatch(
                e -> ((SchedulerEvent.JobStarted) e).attempt() == 1), "a requeue keeps the attempt count");
    }

    @Test
    void aPreemptibleJobIsStoppedForAHigherPriorityJobThatWaited_andRunsAgainAfterIt() throws Exception {
        Path ledger = dir.resolve("ledger");
        // The preemptible job traps SIGTERM to "checkpoint" and exits; its second run finishes at once.
        JobSpec preemptible = job("echo start-p >> " + ledger + "; if [ -e " + ledger + ".p ]; then exit 0; fi; touch "
                + ledger + ".p; trap 'echo checkpoint >> " + ledger + "; exit 0' TERM; while :; do sleep 0.05; done", 20000,
                Optional.empty(), scheduling(0, true, Scheduling.OnTimeout.FAIL, Optional.empty(), List.of()), 1);
        JobSpec urgent = job("echo urgent >> " + ledger, 20000, Optional.empty(),
                scheduling(5, false, Scheduling.OnTimeout.FAIL, Optional.empty(), List.of()), 2);
        SchedulerOptions options = FAST.withPolicy(PolicyOptions.defaults().withReserveAfter(Duration.ofMillis(300)));
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(options).logDir(dir.resolve("logs"))
                .jobs(List.of(preemptible)).listener(events::add).build();
        java.util.concurrent.CompletableFuture<RunSummary> run = java.util.concurrent.CompletableFuture.supplyAsync(s::run);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
             !(Files.exists(ledger) && Files.readString(ledger).contains("start-p")); Thread.sleep(10)) {
            assertTrue(System.nanoTime() < end, "the preemptible job never started");
        }
        s.submit(urgent);
        RunSummary summary = run.get(30, TimeUnit.SECONDS);

        assertEquals(List.of("start-p", "checkpoint", "urgent", "start-p"), Files.readAllLines(ledger));
        assertTrue(summary.results().stream().allMatch(r -> r.status() == JobStatus.OK), summary.toString());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.Reserved r
                && r.reservation().preempting().equals(List.of(1))), events.toString());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobRequeued q && q.no() == 1
                && q.why() == SchedulerEvent.StopReason.PREEMPTED), events.toString());
    }

    @Test
    void aJobsFileWithPrioritiesAndDependenciesRunsInTheirOrder() throws Exception {
        Path ledger = dir.resolve("ledger");
        Path file = Files.writeString(dir.resolve("jobs.txt"), String.join("\n",
                "[vram=20G after=prep] echo train >> " + ledger,
                "[vram=20G] echo plain >> " + ledger,
                "[vram=20G name=prep priority=2] echo prep >> " + ledger,
                "[vram=20G priority=-1] echo last >> " + ledger, ""));
        RunSummary s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .jobsFile(file).listener(events::add).build().run();
        assertEquals(0, s.exitCode(), s.toString());
        // prep (priority 2) first; then train (waiting for prep, first in file order) before plain; last at the end.
        assertEquals(List.of("prep", "train", "plain", "last"), Files.readAllLines(ledger));
    }

    @Test
    void aPinnedJobRunsOnlyOnItsGpus_andOneWhosePinsTheMachineLacksFailsAtOnce() throws Exception {
        Path seen = dir.resolve("seen");
        Path file = Files.writeString(dir.resolve("jobs.txt"), String.join("\n",
                "[vram=1G gpu-ids=1] echo $GPUSCHED_GPUS >> " + seen,
                "[vram=1G gpu-ids=1] echo $GPUSCHED_GPUS >> " + seen,
                "[vram=1G gpu-ids=5] echo never", ""));
        RunSummary s = Scheduler.builder().backend(new StubBackend(2, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .jobsFile(file).listener(events::add).build().run();
        assertEquals(List.of("1", "1"), Files.readAllLines(seen), "gpu 0 was free, but not theirs");
        assertEquals(JobStatus.INFEASIBLE, statuses(s).get(3));
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobInfeasible i && i.no() == 3
                && i.reason().equals("needs 1 GPU but only 0 of its gpu-ids are present (no GPU 5 here; this machine has GPUs 0,1)")), events.toString());
    }
}

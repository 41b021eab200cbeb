package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.model.Verdict;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackends;
import io.gpusched.jobs.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole scheduler over NVML (the fake library, through ServiceLoader and JNA): jobs register
 * themselves as GPU processes in the fake's state, so attribution runs end to end through NVML.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SchedulerOverNvmlTest {
    @TempDir
    Path dir;

    private static final SchedulerOptions FAST = SchedulerOptions.defaults().withPoll(Duration.ofMillis(100))
            .withSampleInterval(Duration.ofMillis(50));

    private RunSummary run(FakeNvml fake, SchedulerOptions options, String... lines) {
        try (GpuBackend nvml = GpuBackends.load("nvml", BackendOptions.of("library", fake.library()))) {
            return Scheduler.builder().backend(nvml).options(options).logDir(dir.resolve("logs"))
                    .jobs(java.util.Arrays.stream(lines).map(JobSpec::parse).toList()).build().run();
        }
    }

    /** A job that appears in NVML's process list as itself, using {@code mib} on its GPU, then exits. */
    private static String selfRegistering(Path state, int mib, Path env) {
        return "[vram=" + mib + "] echo \"$CUDA_VISIBLE_DEVICES $GPUSCHED_GPUS $CUDA_DEVICE_ORDER\" > " + env
                + "; echo \"proc gpu=$GPUSCHED_GPUS pid=$$ used_mib=" + mib + "\" >> " + state + "; sleep 0.6";
    }

    @Test
    void jobsSeeTheChosenGpusUuidAndAreAttributedThroughNvml() throws Exception {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        Path state = dir.resolve("fake-nvml-state.txt");
        Path env = dir.resolve("env.txt");
        // gpu0 already has 2048 MiB in use, so best fit picks it for a small job: its UUID must be what the job sees.
        RunSummary s = run(fake, FAST, selfRegistering(state, 5000, env));
        JobResult r = s.results().get(0);
        assertEquals(0, s.exitCode());
        String[] seen = Files.readString(env).strip().split(" ");
        String uuid = r.gpus().get(0) == 0 ? "GPU-aaaa" : "GPU-bbbb";
        assertEquals(List.of(uuid, String.valueOf(r.gpus().get(0)), "PCI_BUS_ID"), List.of(seen));
        assertEquals(5000L, r.peakMib().get(r.gpus().get(0)));
        assertEquals(Verdict.WITHIN, r.verdict());
    }

    @Test
    void visibleDevicesIndexGivesPlainIndices() throws Exception {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        Path env = dir.resolve("env.txt");
        run(fake, FAST.withVisibleDevices(SchedulerOptions.VisibleDevices.INDEX),
                "[vram=1G gpus=2] echo \"$CUDA_VISIBLE_DEVICES\" > " + env);
        assertEquals("0,1", Files.readString(env).strip());
    }

    @Test
    void lostGpuIsNeverChosen() throws Exception {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        String lost = FakeNvml.TWO_GPUS.replace("name=NVIDIA_H100_80GB_HBM3 bus=00000000:17:00.0",
                "name=NVIDIA_H100_80GB_HBM3 bus=00000000:17:00.0 lost=1");
        fake.state(lost);
        Path env = dir.resolve("env.txt");
        RunSummary s = run(fake, FAST, "[vram=1G] echo \"$GPUSCHED_GPUS\" > " + env);
        assertEquals(0, s.exitCode());
        assertEquals("1", Files.readString(env).strip());
        assertTrue(s.results().get(0).gpus().equals(List.of(1)));
    }

    @Test
    void aLostGpuIsSaidOnceOverManyRounds_andTheOtherGpuKeepsTakingJobs() throws Exception {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        fake.state(FakeNvml.TWO_GPUS.replace("bus=00000000:17:00.0", "bus=00000000:17:00.0 lost=1"));
        List<io.gpusched.event.SchedulerEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        RunSummary s;
        try (GpuBackend nvml = GpuBackends.load("nvml", BackendOptions.of("library", fake.library()))) {
            s = Scheduler.builder().backend(nvml).options(FAST).logDir(dir.resolve("logs")).listener(events::add)
                    .jobs(List.of(JobSpec.parse("[vram=1G] sleep 0.4"), JobSpec.parse("[vram=1G] sleep 0.4"),
                            JobSpec.parse("[vram=1G] sleep 0.4"), JobSpec.parse("[vram=1G] sleep 0.4")))
                    .build().run();
        }
        assertEquals(0, s.exitCode());
        assertTrue(s.results().stream().allMatch(r -> r.gpus().equals(List.of(1))), s.results().toString());
        List<String> lost = events.stream().filter(e -> e instanceof io.gpusched.event.SchedulerEvent.Warning)
                .map(e -> ((io.gpusched.event.SchedulerEvent.Warning) e).message()).filter(m -> m.contains("GPU 0 is lost"))
                .toList();
        assertEquals(1, lost.size(), lost.toString());
    }

    /**
     * A GPU already lost when the scheduler starts (a restart after Xid 79) has never been read, so its
     * size is unknown: a declared job that needs it waits for it, saying so, and runs once it is back. It
     * used to read as a 0 MiB GPU, and the job ended infeasible ("the largest allowed GPU has 0 MiB").
     */
    @Test
    void aJobPinnedToAGpuLostSinceBeforeTheStartWaitsForItAndRunsWhenItIsBack() throws Exception {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        fake.state(FakeNvml.TWO_GPUS.replace("bus=00000000:17:00.0", "bus=00000000:17:00.0 lost=1"));
        Path env = dir.resolve("env.txt");
        java.util.concurrent.CompletableFuture<RunSummary> s = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> run(fake, FAST, "[vram=10G gpu-ids=0] echo \"$GPUSCHED_GPUS\" > " + env));
        Thread.sleep(800); // several rounds on the lost GPU
        assertTrue(!s.isDone(), "ended while its GPU was lost: " + (s.isDone() ? s.join().results() : ""));
        fake.state(FakeNvml.TWO_GPUS); // reset: the GPU answers again
        RunSummary summary = s.get(30, TimeUnit.SECONDS);
        assertEquals(0, summary.exitCode(), summary.results().toString());
        assertEquals("0", Files.readString(env).strip());
    }

    /** As above, pinned by UUID: a GPU lost before its first read has no UUID to match yet. */
    @Test
    void aJobPinnedByUuidToAGpuLostSinceBeforeTheStartWaitsForItAndRunsWhenItIsBack() throws Exception {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        fake.state(FakeNvml.TWO_GPUS.replace("bus=00000000:17:00.0", "bus=00000000:17:00.0 lost=1"));
        Path env = dir.resolve("env.txt");
        java.util.concurrent.CompletableFuture<RunSummary> s = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> run(fake, FAST, "[vram=10G gpu-ids=GPU-aaaa] echo \"$CUDA_VISIBLE_DEVICES\" > " + env));
        Thread.sleep(800);
        assertTrue(!s.isDone(), "ended while its GPU was lost: " + (s.isDone() ? s.join().results() : ""));
        fake.state(FakeNvml.TWO_GPUS);
        RunSummary summary = s.get(30, TimeUnit.SECONDS);
        assertEquals(0, summary.exitCode(), summary.results().toString());
        assertEquals("GPU-aaaa", Files.readString(env).strip());
    }

    /**
     * Seen on a real H200 (driver 580.159.04): its driver keeps 616 MiB that the v1 memory call counts as
     * used, so an undeclared job waited for ever for a GPU "below 200 MiB in use" on an idle card.
     */
    @Test
    void anUndeclaredJobStartsOnAnIdleGpuWhoseDriverKeepsAReserve() throws Exception {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        fake.state("driver 580.159.04",
                "gpu uuid=GPU-h200 name=NVIDIA_H200 bus=00000000:17:00.0 total_mib=143771 used_mib=0"
                        + " reserved_mib=616 util=0");
        Path ran = dir.resolve("ran.txt");
        RunSummary s = run(fake, FAST, "echo \"$GPUSCHED_GPUS\" > " + ran);
        assertEquals(0, s.exitCode());
        assertEquals("0", Files.readString(ran).strip());
    }
}

package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A real scheduler for the service tests to serve, run on a thread of its own until closed. */
final class RunningScheduler implements AutoCloseable {
    private final Scheduler scheduler;
    private final CompletableFuture<RunSummary> run;

    private RunningScheduler(Scheduler scheduler) {
        this.scheduler = scheduler;
        this.run = CompletableFuture.supplyAsync(scheduler::run);
    }

    /**
     * A scheduler's builder on one 24000 MiB GPU of which another process holds {@code usedMib} (24000: every
     * declared job waits), its state under {@code dir}/logs, no jobs file, watching with a 50 ms poll.
     */
    static Scheduler.Builder builder(Path dir, long usedMib) {
        return Scheduler.builder().backend(new OneGpu(usedMib)).options(SchedulerOptions.defaults().withWatch(true)
                .withPoll(Duration.ofMillis(50))).logDir(dir.resolve("logs")).jobs(List.of());
    }

    /** The {@link #builder} options for tests whose jobs run: samples every 20 ms, a 500 ms kill grace. */
    static SchedulerOptions quick() {
        return SchedulerOptions.defaults().withWatch(true).withPoll(Duration.ofMillis(50))
                .withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));
    }

    /** Runs {@code scheduler}, returning once its first round is done (20 s at most). */
    static RunningScheduler start(Scheduler scheduler) throws InterruptedException {
        RunningScheduler running = new RunningScheduler(scheduler);
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); scheduler.snapshot().isEmpty(); Thread.sleep(10)) {
            assertTrue(System.nanoTime() < end, "no first round");
        }
        return running;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Closes the scheduler and waits (20 s at most) for its run to end. */
    @Override
    public void close() throws ExecutionException, TimeoutException {
        scheduler.close();
        try {
            run.get(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            // AutoCloseable.close should not throw it (javac's try warning): keep the interrupt, fail the test
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the scheduler to stop", e);
        }
    }

    /** One 24000 MiB GPU, {@code usedMib} of it held by a process that is not a job. */
    private record OneGpu(long usedMib) implements GpuBackend {
        @Override
        public GpuSnapshot snapshot() {
            return new GpuSnapshot(List.of(GpuStat.of(0, 24000, usedMib)), List.of());
        }

        @Override
        public String describe() {
            return "one gpu";
        }

        @Override
        public void close() {
        }
    }
}

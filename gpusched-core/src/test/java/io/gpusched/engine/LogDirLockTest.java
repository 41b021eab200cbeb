package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.LogDirInUseException;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.LogDirLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One scheduler per log directory, and a loop thread that is interrupted stops without spinning. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogDirLockTest {
    private static final SchedulerOptions FAST = SchedulerOptions.defaults().withWatch(true)
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private Scheduler scheduler(Path logs, SchedulerOptions options) {
        return Scheduler.builder().backend(new StubBackend(1, 24000)).options(options).logDir(logs)
                .listener(events::add).build();
    }

    private void awaitEvent(Class<? extends SchedulerEvent> type) throws InterruptedException {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); System.nanoTime() < end; ) {
            if (events.stream().anyMatch(type::isInstance)) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + events);
    }

    /** The whole JVM's CPU time (the module path keeps java.management out of reach). */
    private static long processCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    }

    @Test
    void secondSchedulerOnTheSameLogDirIsRefusedNamingTheFirst() throws Exception {
        Path logs = dir.resolve("logs");
        Scheduler first = scheduler(logs, FAST);
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(first::run);
        awaitEvent(SchedulerEvent.RunStarted.class);
        String journalBefore = Files.readString(logs.resolve("journal.jsonl"));

        LogDirInUseException e = assertThrows(LogDirInUseException.class, () -> scheduler(logs, FAST).run());
        assertEquals(logs + " is in use by gpusched (pid " + ProcessHandle.current().pid()
                + "); stop it or use another --log-dir", e.getMessage());
        assertEquals(OptionalLong.of(ProcessHandle.current().pid()), e.holderPid());
        assertEquals(journalBefore, Files.readString(logs.resolve("journal.jsonl")), "the second wrote nothing");

        first.close();
        run.get(20, TimeUnit.SECONDS);
        // Released with the run: a later scheduler gets the directory.
        Scheduler later = scheduler(logs, FAST.withWatch(false));
        assertEquals(0, later.run().exitCode());
    }

    @Test
    void staleLockFileOfADeadSchedulerNeverBlocks() throws Exception {
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Files.writeString(logs.resolve(LogDirLock.FILE), "999999999\n");
        Scheduler s = scheduler(logs, FAST.withWatch(false));
        s.submit(JobSpec.parse("[vram=1G] true"));
        assertEquals(0, s.run().exitCode());
        assertEquals(ProcessHandle.current().pid() + "\n", Files.readString(logs.resolve(LogDirLock.FILE)));
    }

    @Test
    void interruptingTheLoopThreadStopsTheRunWithoutSpinningAndKeepsTheFlag() throws Exception {
        Path logs = dir.resolve("logs");
        // A job that ignores SIGTERM keeps the stop waiting for the whole kill grace (2 s).
        Scheduler s = scheduler(logs, FAST.withKillGrace(Duration.ofSeconds(2)));
        s.submit(JobSpec.parse("[vram=1G] trap '' TERM; sleep 30"));
        AtomicLong cpuNanos = new AtomicLong(-1);
        AtomicBoolean flagAfter = new AtomicBoolean();
        Thread loop = new Thread(() -> {
            s.run();
            flagAfter.set(Thread.currentThread().isInterrupted());
        }, "loop");
        loop.start();
        awaitEvent(SchedulerEvent.JobStarted.class);
        long before = processCpuNanos();
        loop.interrupt();
        awaitEvent(SchedulerEvent.Stopping.class);
        Thread.sleep(1500); // inside the kill grace: the loop waits for the job
        cpuNanos.set(processCpuNanos() - before);
        loop.join(20_000);
        assertFalse(loop.isAlive());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.RunFinished f && f.summary().interrupted()));
        // A spinning loop burns the whole 1.5 s of a core; a waiting one leaves the process nearly idle.
        assertTrue(cpuNanos.get() < 700_000_000L, "the stopping scheduler used " + cpuNanos.get() / 1_000_000 + " ms of CPU");
        assertTrue(flagAfter.get(), "run() gives the interrupt back to its caller");
    }
}

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
    /**
     * The CPU each thread of this JVM has used, in clock ticks, by "tid name" (from /proc: the JVM's own
     * threads are there by name). The JIT's and the collector's are left out: a compilation or collection
     * an earlier test in the same JVM left going (a whole suite's, in CI) is not the scheduler's CPU, and
     * the process's total counted it (a CI run read 1,540 ms in the 1.5 s window with no thread spinning).
     */
    private static Map<String, Long> threadTicks() throws java.io.IOException {
        Map<String, Long> ticks = new HashMap<>();
        try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (java.io.IOException ended) {
                    continue; // the thread ended meanwhile
                }
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (name.matches("C[12] CompilerThre.*|GC Thread.*|G1 .*|VM Thread|VM Periodic.*|Sweeper.*")) {
                    continue;
                }
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                // After the name: state is field 3 of stat, so utime (14) and stime (15) are at 11 and 12 here.
                ticks.put(task.getFileName() + " " + name, Long.parseLong(f[11]) + Long.parseLong(f[12]));
            }
        }
        return ticks;
    }

    /** @return each thread's CPU in ms since {@code before} (all of it for a thread started since), largest first */
    private static List<Map.Entry<String, Long>> cpuMsSince(Map<String, Long> before) throws java.io.IOException {
        long msPerTick = 1000 / 100; // USER_HZ: 100 on Linux
        List<Map.Entry<String, Long>> used = new ArrayList<>();
        threadTicks().forEach((thread, t) -> used.add(Map.entry(thread, (t - before.getOrDefault(thread, 0L)) * msPerTick)));
        used.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        return used;
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
        AtomicBoolean flagAfter = new AtomicBoolean();
        Thread loop = new Thread(() -> {
            s.run();
            flagAfter.set(Thread.currentThread().isInterrupted());
        }, "loop");
        loop.start();
        awaitEvent(SchedulerEvent.JobStarted.class);
        Map<String, Long> before = threadTicks();
        loop.interrupt();
        awaitEvent(SchedulerEvent.Stopping.class);
        Thread.sleep(1500); // inside the kill grace: the loop waits for the job
        List<Map.Entry<String, Long>> used = cpuMsSince(before);
        loop.join(20_000);
        assertFalse(loop.isAlive());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.RunFinished f && f.summary().interrupted()));
        // A spinning loop (or any thread of the scheduler's) burns the whole 1.5 s of a core; waiting ones
        // leave the JVM's threads nearly idle.
        long total = used.stream().mapToLong(Map.Entry::getValue).sum();
        assertTrue(total < 700, "the stopping scheduler's threads used " + total + " ms of CPU: "
                + used.subList(0, Math.min(5, used.size())));
        assertTrue(flagAfter.get(), "run() gives the interrupt back to its caller");
    }
}

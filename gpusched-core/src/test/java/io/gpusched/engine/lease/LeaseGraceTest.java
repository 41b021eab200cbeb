package io.gpusched.engine.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.gpusched.engine.loop.LoopClock;
import io.gpusched.engine.loop.Reporter;
import io.gpusched.engine.proc.LoneSessions;
import io.gpusched.engine.spawn.JobLauncher;
import io.gpusched.engine.spawn.RunFiles;
import io.gpusched.engine.spawn.RunNames;
import io.gpusched.engine.spawn.RunningJob;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.RunHandle;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The grace a restarted scheduler gives an {@code srun} client to come back ({@link Leases#RECONNECT_GRACE})
 * under a wall clock set back a day in its first seconds (NTP at boot, fixing an RTC that was ahead): a
 * hand-set wall and ticker, no process, no real time.
 */
class LeaseGraceTest {
    @TempDir
    Path logs;

    private final AtomicReference<Instant> wall = new AtomicReference<>(Instant.parse("2026-03-02T09:00:00Z"));
    private final AtomicLong ticker = new AtomicLong(1_000);

    @Test
    void aLeaseTakenUpWhoseClientNeverCameBack_endsWhenItsGraceEndsOnTheTicker_notADayLaterForAClockSetBack() {
        LoopClock clock = new LoopClock(wall::get, ticker::get);
        LoneSessions none = new LoneSessions() { // no process at all: nothing carries the lease's token
            @Override
            protected Optional<CompletableFuture<?>> exitOf(long sid) {
                return Optional.empty();
            }

            @Override
            protected boolean stop(long sid, int status) {
                return false;
            }
        };
        RunNames names = new RunNames(logs, logs.resolve("journal.jsonl"));
        Leases leases = new Leases(new JobLauncher(Path.of("/usr/bin/setsid"), logs, Map.of(),
                SchedulerOptions.VisibleDevices.INDEX), new RunFiles(logs), names, none, new Reporter(e -> { }, clock), clock);
        JobSpec spec = JobSpec.parse("[vram=1G] python train.py").withKey("s7");
        RunningJob rj = new RunningJob(spec, 7, OptionalLong.of(1024), List.of(0), RunHandle.LEASE_SESSIONS + 3,
                logs.resolve("job007_gpu0.log"), wall.get(), ticker.get(), 3, 0, Optional.of(names.entry(3)));

        CompletableFuture<Integer> exit = leases.adopt("s7", 7, "alice");
        wall.set(wall.get().minus(Duration.ofDays(1)));
        ticker.addAndGet(Duration.ofSeconds(29).toNanos());
        leases.reapAbandoned(List.of(rj));
        assertFalse(exit.isDone(), "within its grace its client may still come back");

        ticker.addAndGet(Duration.ofSeconds(2).toNanos());
        leases.reapAbandoned(List.of(rj));
        assertEquals(Leases.UNKNOWN_EXIT, exit.getNow(-1), "its grace is over: its GPUs go back now");
    }
}

package io.gpusched.cli;

import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * When, in one scheduler's life, the chaos test SIGKILLs it: after a delay from its spawn (start-up,
 * journal load, orphan recovery), after a delay from its first log line (dispatch rounds, reaps), or
 * the instant a chosen log line has been read (right after a journal write it acknowledges, with the
 * rest of that round possibly still in flight). Drawn from the test's seeded random, so a seed replays
 * the same plans; only the OS's timing differs.
 */
sealed interface KillPlan {
    /** Lines worth dying right after, by what they acknowledge. */
    List<String> TRIGGERS = List.of(" started on gpu [", " finished [", "hit CUDA OOM", "interrupted mid-run",
            "ORPHAN of a previous scheduler", " queued [", "already completed ok");

    /** The most a plan waits before it kills, in milliseconds. */
    int MAX_DELAY_MS = 700;

    /** SIGKILL {@code millis} after the JVM was spawned. */
    record AfterSpawn(int millis) implements KillPlan {
    }

    /** SIGKILL {@code millis} after its first log line. */
    record AfterFirstLine(int millis) implements KillPlan {
    }

    /**
     * SIGKILL the instant the {@code nth} line containing {@code contains} is read, or {@code fallbackMillis}
     * after the first line if it never comes.
     */
    record AfterLine(String contains, int nth, int fallbackMillis) implements KillPlan {
    }

    static KillPlan random(Random rnd) {
        int r = rnd.nextInt(100);
        // start-up alone takes most of 700 ms on a small machine, so fewer of these
        if (r < 15) {
            return new AfterSpawn(rnd.nextInt(MAX_DELAY_MS + 1));
        } else if (r < 50) {
            return new AfterFirstLine(rnd.nextInt(MAX_DELAY_MS + 1));
        }
        String line = TRIGGERS.get(rnd.nextInt(TRIGGERS.size()));
        int nth = 1 + rnd.nextInt(3);
        // a scheduler prints its queue size once
        return new AfterLine(line, line.equals(" queued [") ? 1 : nth, rnd.nextInt(MAX_DELAY_MS + 1));
    }

    /** @return the line trigger to start the scheduler with (never matches for the delay plans) */
    default Predicate<String> trigger() {
        if (this instanceof AfterLine a) {
            AtomicInteger seen = new AtomicInteger();
            return l -> l.contains(a.contains()) && seen.incrementAndGet() == a.nth();
        }
        return l -> false;
    }

    /**
     * Carries the plan out on a scheduler started with {@link #trigger()}.
     *
     * @return whether it died by SIGKILL (false: it finished on its own first)
     */
    default boolean carryOut(SchedulerProcess s) throws InterruptedException {
        long spawned = System.nanoTime();
        if (this instanceof AfterSpawn a) {
            sleepUntil(s, () -> false, spawned + a.millis() * 1_000_000L);
        } else {
            // hang guard only: a scheduler that never prints is killed after it and reported by the caller
            sleepUntil(s, () -> !s.lines().isEmpty(), spawned + SchedulerProcess.HANG_GUARD.toNanos());
            long first = System.nanoTime();
            int ms = this instanceof AfterFirstLine f ? f.millis() : ((AfterLine) this).fallbackMillis();
            sleepUntil(s, () -> false, first + ms * 1_000_000L);
        }
        s.kill();
        // a JVM killed by signal 9 reports 128 + 9; the scheduler's own codes are job exit codes (< 64 here) or 2
        return s.awaitExit() == 137;
    }

    private static void sleepUntil(SchedulerProcess s, BooleanSupplier done, long deadlineNanos)
            throws InterruptedException {
        while (s.alive() && s.killedAfter().isEmpty() && !done.getAsBoolean() && System.nanoTime() - deadlineNanos < 0) {
            Thread.sleep(1);
        }
    }
}

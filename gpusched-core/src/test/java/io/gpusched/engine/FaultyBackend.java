package io.gpusched.engine;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * One GPU whose calls can be made to fail by call number or to hang until the test lets them go.
 * Counts calls and records which threads made them and how many ran at once, so tests can see that
 * a hung call is never stacked on.
 */
public final class FaultyBackend implements GpuBackend {
    final long totalMib;
    public volatile long usedMib;
    final List<GpuProcess> processes = new CopyOnWriteArrayList<>();
    /** Which calls (1-based, in order made) throw. */
    public volatile IntPredicate failing = n -> false;
    public final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    public final Set<Thread> callers = ConcurrentHashMap.newKeySet();
    private final AtomicInteger inside = new AtomicInteger();
    public final AtomicInteger mostAtOnce = new AtomicInteger();
    private volatile Optional<Hang> hang = Optional.empty();
    private volatile Optional<Hang> active = Optional.empty();
    private volatile boolean hanging;

    /** The next call blocks until {@link #release}, then answers {@code lateAnswer}. */
    private record Hang(CountDownLatch release, GpuSnapshot lateAnswer) {
    }

    public FaultyBackend(long totalMib) {
        this.totalMib = totalMib;
    }

    /** Makes the next call (only that one) hang until {@link #release()}, then return {@code lateAnswer}. */
    public void hangNextCall(GpuSnapshot lateAnswer) {
        hang = Optional.of(new Hang(new CountDownLatch(1), lateAnswer));
    }

    /** Lets a hung call (or the next one to hang) return its late answer. */
    public void release() {
        hang.ifPresent(h -> h.release().countDown());
        active.ifPresent(h -> h.release().countDown());
    }

    /** @return whether a call is blocked in a hang right now */
    public boolean hanging() {
        return hanging;
    }

    GpuSnapshot current() {
        long used = Math.min(totalMib, usedMib + processes.stream().mapToLong(GpuProcess::usedMib).sum());
        return new GpuSnapshot(List.of(GpuStat.of(0, totalMib, used)), new ArrayList<>(processes));
    }

    @Override
    public GpuSnapshot snapshot() {
        int n = calls.incrementAndGet();
        callers.add(Thread.currentThread());
        mostAtOnce.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
            Optional<Hang> h = hang;
            if (h.isPresent()) {
                active = h;
                hang = Optional.empty();
                hanging = true;
                try {
                    // A long bound only so an abandoned worker cannot linger for ever.
                    h.get().release().await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    hanging = false;
                }
                return h.get().lateAnswer();
            }
            if (failing.test(n)) {
                failed.incrementAndGet();
                throw new BackendException("injected failure of call " + n);
            }
            return current();
        } finally {
            inside.decrementAndGet();
        }
    }

    public static boolean await(java.util.function.BooleanSupplier condition, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    @Override
    public String describe() {
        return "faulty (1 GPU)";
    }

    @Override
    public void close() {
        release();
    }
}

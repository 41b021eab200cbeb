package io.gpusched.engine;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A backend whose GPU processes the test sets by hand (real pids, so attribution is real). */
public final class StubBackend implements GpuBackend {
    final int gpus;
    final long totalMib;
    public final List<GpuProcess> processes = new CopyOnWriteArrayList<>();
    final AtomicInteger failures = new AtomicInteger();

    public StubBackend(int gpus, long totalMib) {
        this.gpus = gpus;
        this.totalMib = totalMib;
    }

    @Override
    public GpuSnapshot snapshot() {
        if (failures.get() > 0) {
            failures.decrementAndGet();
            throw new BackendException("stub failure");
        }
        List<GpuStat> stats = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            int gpu = i;
            long used = processes.stream().filter(p -> p.gpu() == gpu).mapToLong(GpuProcess::usedMib).sum();
            stats.add(GpuStat.of(i, totalMib, used));
        }
        return new GpuSnapshot(stats, List.copyOf(processes));
    }

    @Override
    public String describe() {
        return "stub (" + gpus + " GPUs)";
    }

    @Override
    public void close() {
    }
}

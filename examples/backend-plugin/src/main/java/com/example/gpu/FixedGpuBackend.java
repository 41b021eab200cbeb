package com.example.gpu;

import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.ArrayList;
import java.util.List;

/** GPUs that never change: each idle, none with processes. */
final class FixedGpuBackend implements GpuBackend {
    private final int gpus;
    private final long mib;

    FixedGpuBackend(int gpus, long mib) {
        this.gpus = gpus;
        this.mib = mib;
    }

    @Override
    public GpuSnapshot snapshot() {
        List<GpuStat> stats = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            stats.add(GpuStat.of(i, mib, 0));
        }
        return new GpuSnapshot(stats, List.of());
    }

    @Override
    public String describe() {
        return "fixed (" + gpus + " GPUs x " + mib + " MiB, always idle)";
    }

    @Override
    public void close() {
    }
}

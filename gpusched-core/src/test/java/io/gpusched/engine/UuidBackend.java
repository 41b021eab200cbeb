package io.gpusched.engine;

import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Empty 24000 MiB GPUs named by UUID, numbered in list order; a test swaps the list whole between
 * snapshots, as NVML renumbers devices when MIG instances are made or destroyed, or a GPU leaves.
 */
final class UuidBackend implements GpuBackend {
    volatile List<String> uuids;

    UuidBackend(String... uuids) {
        this.uuids = List.of(uuids);
    }

    @Override
    public GpuSnapshot snapshot() {
        List<String> now = uuids;
        List<GpuStat> gpus = new ArrayList<>();
        for (int i = 0; i < now.size(); i++) {
            gpus.add(new GpuStat(i, Optional.of(now.get(i)), "NVIDIA H100", Optional.empty(), 24000, 0,
                    OptionalInt.empty(), true));
        }
        return new GpuSnapshot(gpus, List.of());
    }

    @Override
    public String describe() {
        return "GPUs " + uuids;
    }

    @Override
    public void close() {
    }
}

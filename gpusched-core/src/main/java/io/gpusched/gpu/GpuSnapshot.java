package io.gpusched.gpu;

import java.util.List;
import java.util.Optional;

/**
 * Every GPU and every compute process, read at one moment.
 *
 * @param gpus the GPUs in index order; indices are unique
 * @param processes compute processes on those GPUs; a process using two GPUs appears twice
 */
public record GpuSnapshot(List<GpuStat> gpus, List<GpuProcess> processes) {
    /** Copies the lists and checks that GPU indices are unique. */
    public GpuSnapshot {
        gpus = List.copyOf(gpus);
        processes = List.copyOf(processes);
        long distinct = gpus.stream().mapToInt(GpuStat::index).distinct().count();
        if (distinct != gpus.size()) {
            throw new IllegalArgumentException("GPU indices must be unique: " + gpus);
        }
    }

    /**
     * @param index a GPU index
     * @return that GPU, if the snapshot has it
     */
    public Optional<GpuStat> gpu(int index) {
        return gpus.stream().filter(g -> g.index() == index).findFirst();
    }
}

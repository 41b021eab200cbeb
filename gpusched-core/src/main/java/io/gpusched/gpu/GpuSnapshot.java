package io.gpusched.gpu;

import java.util.List;
import java.util.Optional;

/**
 * Every GPU and every compute process, read at one moment.
 *
 * @param gpus the GPUs in index order; indices are unique
 * @param processes compute processes on those GPUs; a process using two GPUs appears twice
 * @param warnings conditions the user should hear about once, e.g. a device skipped for lack of
 *     permission; the scheduler prints each distinct text once
 */
public record GpuSnapshot(List<GpuStat> gpus, List<GpuProcess> processes, List<String> warnings) {
    /**
     * Copies the lists and checks that GPU indices are unique.
     *
     * @param gpus see {@link #gpus()}
     * @param processes see {@link #processes()}
     * @param warnings see {@link #warnings()}
     */
    public GpuSnapshot {
        gpus = List.copyOf(gpus);
        processes = List.copyOf(processes);
        warnings = List.copyOf(warnings);
        long distinct = gpus.stream().mapToInt(GpuStat::index).distinct().count();
        if (distinct != gpus.size()) {
            throw new IllegalArgumentException("GPU indices must be unique: " + gpus);
        }
    }

    /**
     * A snapshot without warnings.
     *
     * @param gpus the GPUs
     * @param processes the compute processes
     */
    public GpuSnapshot(List<GpuStat> gpus, List<GpuProcess> processes) {
        this(gpus, processes, List.of());
    }

    /**
     * @param index a GPU index
     * @return that GPU, if the snapshot has it
     */
    public Optional<GpuStat> gpu(int index) {
        return gpus.stream().filter(g -> g.index() == index).findFirst();
    }
}

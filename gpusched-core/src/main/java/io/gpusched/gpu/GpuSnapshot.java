package io.gpusched.gpu;

import java.util.List;
import java.util.Optional;

/**
 * Every GPU and every compute process, read at one moment.
 *
 * @param gpus the GPUs in index order; indices are unique
 * @param processes compute processes on those GPUs; a process using two GPUs appears twice
 * @param warnings conditions the user should hear about, e.g. a device skipped for lack of permission;
 *     the scheduler says each when it appears, not again while the snapshots after it hold it too
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
        if (!uniqueIndices(gpus)) {
            throw new IllegalArgumentException("GPU indices must be unique: " + gpus);
        }
    }

    /** No stream: a snapshot is built every round, and a machine has a few GPUs, compared pairwise. */
    private static boolean uniqueIndices(List<GpuStat> gpus) {
        if (gpus.size() > 32) {
            return gpus.stream().mapToInt(GpuStat::index).distinct().count() == gpus.size();
        }
        for (int i = 0; i < gpus.size(); i++) {
            for (int j = i + 1; j < gpus.size(); j++) {
                if (gpus.get(i).index() == gpus.get(j).index()) {
                    return false;
                }
            }
        }
        return true;
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
        for (GpuStat g : gpus) { // read per running job at every sample: no stream
            if (g.index() == index) {
                return Optional.of(g);
            }
        }
        return Optional.empty();
    }
}

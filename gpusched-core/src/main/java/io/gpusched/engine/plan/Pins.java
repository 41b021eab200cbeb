package io.gpusched.engine.plan;

import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A job's {@code gpu-ids}, read against this machine's GPUs: indices as written, UUIDs looked up; a UUID
 * no GPU has stands for the unhealthy GPUs whose UUID could not be read, when there are any.
 */
final class Pins {
    private Pins() {
    }

    /**
     * @param indices the GPU indices the pins name
     * @param unknown why the job can never run, when a UUID names no GPU of this machine
     */
    record Resolved(Set<Integer> indices, Optional<String> unknown) {
    }

    static Resolved resolve(List<String> gpuIds, GpuSnapshot snap) {
        Set<Integer> out = new HashSet<>();
        for (String id : gpuIds) {
            if (!id.isEmpty() && Character.isDigit(id.charAt(0))) {
                // An index the machine lacks is not an error here: the allocator says the job is infeasible.
                out.add(Integer.parseInt(id));
                continue;
            }
            Optional<Integer> index = snap.gpus().stream().filter(g -> g.uuid().equals(Optional.of(id)))
                    .map(GpuStat::index).findFirst();
            if (index.isPresent()) {
                out.add(index.get());
                continue;
            }
            // A GPU lost before it was ever read has no UUID yet (a restart after Xid 79): the UUID may be
            // its, so the job is pinned to such GPUs, and waits on them as unhealthy instead of failing.
            List<Integer> nameless = snap.gpus().stream().filter(g -> !g.healthy() && g.uuid().isEmpty())
                    .map(GpuStat::index).toList();
            if (nameless.isEmpty()) {
                return new Resolved(Set.of(), Optional.of("gpu-ids names " + id + ", which is not a GPU of this machine"));
            }
            out.addAll(nameless);
        }
        return new Resolved(out, Optional.empty());
    }
}

package io.gpusched.engine;

import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Empty 24000 MiB GPUs named by UUID, numbered in list order; a test swaps the list whole between
 * snapshots, as NVML renumbers devices when MIG instances are made or destroyed, or a GPU leaves.
 * A device's utilisation, and whether it is listed unhealthy (as NVML lists a lost GPU), go by UUID.
 */
final class UuidBackend implements GpuBackend {
    volatile List<String> uuids;
    /** Utilisation in percent by UUID; a device not named reads none. */
    volatile Map<String, Integer> util = Map.of();
    /** The UUIDs listed unhealthy. */
    volatile Set<String> unhealthy = Set.of();
    /** What the backend warns of with each snapshot (NVML: a GPU lost, a process list it cannot read). */
    volatile List<String> warnings = List.of();
    /** Processes using memory, each on a device by UUID: listed at that device's index, and counted as used there. */
    volatile List<Use> uses = List.of();

    /** A process's memory on the device of this UUID. */
    record Use(String uuid, long pid, long mib) {
    }

    UuidBackend(String... uuids) {
        this.uuids = List.of(uuids);
    }

    @Override
    public GpuSnapshot snapshot() {
        List<String> now = uuids;
        Map<String, Integer> busy = util;
        Set<String> sick = unhealthy;
        List<Use> using = uses;
        List<GpuStat> gpus = new ArrayList<>();
        List<GpuProcess> processes = new ArrayList<>();
        for (int i = 0; i < now.size(); i++) {
            String uuid = now.get(i);
            long used = 0;
            for (Use u : using) {
                if (u.uuid().equals(uuid)) {
                    processes.add(new GpuProcess(i, u.pid(), u.mib()));
                    used += u.mib();
                }
            }
            gpus.add(new GpuStat(i, Optional.of(uuid), "NVIDIA H100", Optional.empty(), 24000, used,
                    busy.containsKey(uuid) ? OptionalInt.of(busy.get(uuid)) : OptionalInt.empty(), !sick.contains(uuid)));
        }
        return new GpuSnapshot(gpus, processes, warnings);
    }

    @Override
    public String describe() {
        return "GPUs " + uuids;
    }

    @Override
    public void close() {
    }
}

package io.gpusched.nvml;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One pass over NVML's devices, turned into a {@link GpuSnapshot}. Buffers and structs are allocated
 * once and reused; names and PCI ids are read once per UUID, since they never change for a device.
 *
 * <p><b>Indices.</b> Schedulable devices are numbered from 0 in NVML enumeration order: a GPU without
 * MIG takes one index (so on a machine without MIG the index is NVML's, and nvidia-smi's); a GPU in
 * MIG mode takes one index per existing MIG instance, in MIG-index order, and none for itself. A GPU
 * skipped for lack of permission still uses up its index, so the others keep theirs. Creating or
 * destroying MIG instances renumbers later devices; UUIDs stay the stable key.
 *
 * <p><b>MIG instances</b> report their own MIG UUID, the name the driver gives them (e.g.
 * {@code NVIDIA A100-SXM4-40GB MIG 1g.5gb}), their parent's PCI bus id, their own memory, and no
 * utilisation (NVML does not measure it per instance).
 *
 * <p><b>Failures.</b> A lost GPU ({@code GPU_IS_LOST}, {@code RESET_REQUIRED}) or a device that fails
 * for another reason is reported unhealthy, with what was last known about it and all of its memory
 * counted as used, so it is never chosen; the others are read as usual. A device refused for lack of
 * permission is left out with a warning. Failures of NVML as a whole throw {@link DriverFailure}.
 */
final class SnapshotReader {
    private final NvmlLibrary nvml;
    private final NvmlSymbols symbols;
    private final ProcessListReader processReader;

    private final IntByReference intOut = new IntByReference();
    private final IntByReference pendingOut = new IntByReference();
    private final PointerByReference handleOut = new PointerByReference();
    private final byte[] text = new byte[NvmlLibrary.TEXT_BUFFER_SIZE];
    private final NvmlStructs.Memory memory = new NvmlStructs.Memory();
    private final NvmlStructs.MemoryV2 memoryV2 = new NvmlStructs.MemoryV2();
    /** Whether to ask {@code _v2} first: cleared for good when this driver's {@code _v2} refuses our layout. */
    private boolean askMemoryV2;
    private final NvmlStructs.Utilization utilization = new NvmlStructs.Utilization();
    private final NvmlStructs.PciInfo pci = new NvmlStructs.PciInfo();

    private final Map<String, Identity> identities = new HashMap<>();
    /**
     * Each device as last reported, by UUID: what a device that cannot be read is reported with. Not by
     * index: creating or destroying MIG instances renumbers later devices, so the index a lost device is
     * reported at may be another device's in the pass before (it then showed that device's UUID and size).
     */
    private Map<String, GpuStat> lastSeen = new HashMap<>();
    /**
     * The UUID last read in each place NVML enumerates a device: a device that fails before its UUID is
     * read (a lost GPU fails every call) is known by where it sits. A physical GPU in MIG mode has none:
     * it is no device of ours, and is reported nameless when lost (a job pinned to one of its instances
     * then waits; see {@code Pins}).
     */
    private final Map<Slot, String> uuidAt = new HashMap<>();
    private int physicalCount;

    private final List<GpuStat> gpus = new ArrayList<>();
    private final List<GpuProcess> processes = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    /**
     * Where NVML enumerates a device: a physical GPU by its NVML index ({@code parent} empty), a MIG
     * instance by its parent's UUID and its MIG slot; either stays put when MIG instances elsewhere come
     * and go, unlike our index.
     */
    private record Slot(String parent, int n) {
    }

    /** What never changes for a device UUID. */
    private record Identity(String name, Optional<String> pciBusId) {
    }

    SnapshotReader(NvmlLibrary nvml, NvmlSymbols symbols) {
        this.nvml = nvml;
        this.symbols = symbols;
        this.processReader = new ProcessListReader(symbols.processList());
        this.askMemoryV2 = symbols.memoryV2();
    }

    /** @return the number of physical GPUs NVML reported in the last pass */
    int physicalCount() {
        return physicalCount;
    }

    /** @return the process-entry size in use, after any one-time correction */
    int processStride() {
        return processReader.stride();
    }

    /**
     * Reads every device.
     *
     * @throws DriverFailure when NVML as a whole fails
     * @throws BackendException when the device count cannot be read for another reason
     */
    GpuSnapshot read() {
        int count = countDevices();
        gpus.clear();
        processes.clear();
        warnings.clear();
        int next = 0;
        for (int i = 0; i < count; i++) {
            next = readPhysical(i, next);
        }
        Map<String, GpuStat> seen = new HashMap<>();
        gpus.forEach(g -> g.uuid().ifPresent(u -> seen.put(u, g)));
        lastSeen = seen;
        return new GpuSnapshot(gpus, processes, warnings); // copies the reused lists
    }

    /**
     * Reads how many physical GPUs NVML sees, and remembers it for {@link #physicalCount()}.
     *
     * @throws DriverFailure when NVML as a whole fails
     * @throws BackendException when the count cannot be read for another reason
     */
    int countDevices() {
        int rc = nvml.nvmlDeviceGetCount_v2(intOut);
        if (rc != NvmlReturn.SUCCESS) {
            String message = NvmlReturn.message("nvmlDeviceGetCount_v2", rc, nvml.nvmlErrorString(rc));
            throw NvmlReturn.isDriverLevel(rc) ? new DriverFailure(message) : new BackendException(message);
        }
        physicalCount = intOut.getValue();
        return physicalCount;
    }

    /** Reads NVML device {@code i} into index {@code next} onwards; returns the next free index. */
    private int readPhysical(int i, int next) {
        try {
            check(nvml.nvmlDeviceGetHandleByIndex_v2(i, handleOut), "nvmlDeviceGetHandleByIndex_v2");
            Pointer handle = handleOut.getValue();
            if (migEnabled(handle)) {
                uuidAt.remove(new Slot("", i));
                return readMigInstances(handle, next);
            }
            readDevice(handle, new Slot("", i), next, false, Optional.empty());
        } catch (DeviceFault fault) {
            reportFault(next, new Slot("", i), fault);
        }
        return next + 1;
    }

    private boolean migEnabled(Pointer handle) {
        if (!symbols.mig()) {
            return false;
        }
        int rc = nvml.nvmlDeviceGetMigMode(handle, intOut, pendingOut);
        if (rc == NvmlReturn.NOT_SUPPORTED) {
            return false;
        }
        check(rc, "nvmlDeviceGetMigMode");
        return intOut.getValue() == NvmlLibrary.MIG_ENABLED;
    }

    private int readMigInstances(Pointer parent, int next) {
        String parentUuid = readText(nvml.nvmlDeviceGetUUID(parent, text, text.length), "nvmlDeviceGetUUID");
        Optional<String> parentPci = identity(parent, parentUuid).pciBusId();
        check(nvml.nvmlDeviceGetMaxMigDeviceCount(parent, intOut), "nvmlDeviceGetMaxMigDeviceCount");
        int max = intOut.getValue();
        int found = 0;
        for (int j = 0; j < max; j++) {
            int rc = nvml.nvmlDeviceGetMigDeviceHandleByIndex(parent, j, handleOut);
            if (rc == NvmlReturn.NOT_FOUND) {
                continue; // an unused slot: the maximum is not how many exist
            }
            int index = next + found++;
            Slot slot = new Slot(parentUuid, j);
            try {
                check(rc, "nvmlDeviceGetMigDeviceHandleByIndex");
                readDevice(handleOut.getValue(), slot, index, true, parentPci);
            } catch (DeviceFault fault) {
                reportFault(index, slot, fault);
            }
        }
        if (found == 0) {
            warnings.add("NVML: " + parentUuid + " is in MIG mode but has no MIG instances, so nothing can run on it;"
                    + " create some with nvidia-smi mig");
        }
        return next + found;
    }

    private void readDevice(Pointer handle, Slot slot, int index, boolean mig, Optional<String> parentPci) {
        String uuid = readText(nvml.nvmlDeviceGetUUID(handle, text, text.length), "nvmlDeviceGetUUID");
        if (!uuid.isBlank()) {
            uuidAt.put(slot, uuid); // before the calls that may fail: a fault further on is then known by it
        } else {
            uuidAt.remove(slot);
        }
        Identity identity = identity(handle, uuid);
        long totalBytes;
        long usedBytes;
        if (askMemoryV2 && readMemoryV2(handle)) {
            // The driver's reserve is neither room for jobs nor their use: an idle GPU reads 0 MiB used,
            // as nvidia-smi shows it, and the room left is what an allocation can still get.
            totalBytes = memoryV2.total - memoryV2.reserved;
            usedBytes = memoryV2.used;
        } else {
            check(nvml.nvmlDeviceGetMemoryInfo(handle, memory), "nvmlDeviceGetMemoryInfo");
            totalBytes = memory.total;
            usedBytes = memory.used;
        }
        long totalMib = Mib.floor(totalBytes);
        long usedMib = Math.min(Mib.ceil(usedBytes), totalMib);
        OptionalInt util = mig ? OptionalInt.empty() : utilisation(handle);
        int rc = processReader.read(handle, index, totalBytes, processes, warnings);
        if (rc != NvmlReturn.SUCCESS) {
            failIfFatal(rc, "nvmlDeviceGetComputeRunningProcesses");
            warnings.add("NVML: cannot list the processes on GPU " + index + " (" + nvml.nvmlErrorString(rc)
                    + "); memory used there cannot be attributed to jobs");
        }
        gpus.add(new GpuStat(index, Optional.of(uuid).filter(u -> !u.isBlank()), identity.name(),
                mig ? parentPci : identity.pciBusId(), totalMib, usedMib, util, true));
    }

    /**
     * Reads the device's memory through {@code nvmlDeviceGetMemoryInfo_v2} into {@link #memoryV2}.
     *
     * @return false when this call cannot answer here and the v1 call should: a driver that refuses our
     *     struct version or lacks the function (then never asked again), or a device that does not
     *     support it; a device fault is thrown as from any other call
     */
    private boolean readMemoryV2(Pointer handle) {
        int rc = nvml.nvmlDeviceGetMemoryInfo_v2(handle, memoryV2);
        if (rc == NvmlReturn.ARGUMENT_VERSION_MISMATCH || rc == NvmlReturn.FUNCTION_NOT_FOUND) {
            askMemoryV2 = false;
            return false;
        }
        if (rc == NvmlReturn.NOT_SUPPORTED) {
            return false;
        }
        check(rc, "nvmlDeviceGetMemoryInfo_v2");
        return true;
    }

    private Identity identity(Pointer handle, String uuid) {
        Identity known = identities.get(uuid);
        if (known != null) {
            return known;
        }
        String name = readText(nvml.nvmlDeviceGetName(handle, text, text.length), "nvmlDeviceGetName");
        Identity identity = new Identity(name.isBlank() ? "NVIDIA GPU" : name, pciBusId(handle));
        identities.put(uuid, identity);
        return identity;
    }

    private Optional<String> pciBusId(Pointer handle) {
        if (!symbols.pciInfo()) {
            return Optional.empty();
        }
        int rc = nvml.nvmlDeviceGetPciInfo_v3(handle, pci);
        if (rc == NvmlReturn.NOT_SUPPORTED) {
            return Optional.empty();
        }
        check(rc, "nvmlDeviceGetPciInfo_v3");
        return Optional.of(Native.toString(pci.busId, "US-ASCII")).filter(s -> !s.isBlank());
    }

    private OptionalInt utilisation(Pointer handle) {
        int rc = nvml.nvmlDeviceGetUtilizationRates(handle, utilization);
        if (rc == NvmlReturn.NOT_SUPPORTED) {
            return OptionalInt.empty();
        }
        check(rc, "nvmlDeviceGetUtilizationRates");
        long percent = Integer.toUnsignedLong(utilization.gpu);
        return percent <= 100 ? OptionalInt.of((int) percent) : OptionalInt.empty();
    }

    private String readText(int rc, String function) {
        check(rc, function);
        return Native.toString(text, "US-ASCII");
    }

    private void check(int rc, String function) {
        if (rc != NvmlReturn.SUCCESS) {
            failIfFatal(rc, function);
            throw new DeviceFault(function, rc);
        }
    }

    private void failIfFatal(int rc, String function) {
        if (NvmlReturn.isDriverLevel(rc)) {
            throw new DriverFailure(NvmlReturn.message(function, rc, nvml.nvmlErrorString(rc)));
        }
        if (NvmlReturn.isDeviceLost(rc)) {
            throw new DeviceFault(function, rc);
        }
    }

    private void reportFault(int index, Slot slot, DeviceFault fault) {
        int rc = fault.code();
        if (rc == NvmlReturn.NO_PERMISSION) {
            warnings.add("NVML: GPU " + index + " skipped: " + fault.function()
                    + " was refused (no permission); check the permissions of /dev/nvidia*");
            return;
        }
        String uuid = uuidAt.get(slot);
        GpuStat last = uuid == null ? null : lastSeen.get(uuid);
        String what = NvmlReturn.isDeviceLost(rc)
                ? "is lost (" + nvml.nvmlErrorString(rc) + "); reset the GPU or reboot"
                : "cannot be read (" + fault.function() + ": " + nvml.nvmlErrorString(rc) + ", code " + rc + ")";
        warnings.add("NVML: GPU " + index + " " + what + "; no jobs will be placed on it");
        long total = last == null ? 0 : last.totalMib();
        // Its UUID where its place had one (read in this pass before the fault, or in an earlier one), even
        // never reported healthy: a job pinned to it, or running on it, knows it by that.
        Identity identity = uuid == null ? null : identities.get(uuid);
        gpus.add(new GpuStat(index,
                Optional.ofNullable(uuid),
                last != null ? last.name() : identity != null ? identity.name() : "unknown NVIDIA GPU",
                last != null ? last.pciBusId() : identity != null ? identity.pciBusId() : Optional.empty(),
                total, total, OptionalInt.empty(), false));
    }
}

package io.gpusched.nvml;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import java.util.Optional;

/**
 * What the loaded driver library offers beyond the calls every supported driver has: found once,
 * symbol by symbol, because drivers from R430 to R580 differ in exactly these.
 *
 * @param processList the process-list function and the entry size to decode it with
 * @param pciInfo whether {@code nvmlDeviceGetPciInfo_v3} exists (else PCI bus ids are unknown)
 * @param mig whether the MIG calls exist (else no GPU is treated as MIG-enabled)
 * @param memoryV2 whether {@code nvmlDeviceGetMemoryInfo_v2} exists (R510 and later), which reports the
 *     driver's reserve apart from used memory
 */
record NvmlSymbols(ProcessListCall processList, boolean pciInfo, boolean mig, boolean memoryV2) {
    static final String PROCESSES_V3 = "nvmlDeviceGetComputeRunningProcesses_v3";
    static final String PROCESSES_V2 = "nvmlDeviceGetComputeRunningProcesses_v2";
    static final String PROCESSES_V1 = "nvmlDeviceGetComputeRunningProcesses";

    /** {@code sizeof(nvmlProcessInfo_v1_t)}: pid, padding, used bytes. */
    static final int STRIDE_V1 = 16;
    /** {@code sizeof(nvmlProcessInfo_v2_t)}: adds the GPU and compute instance ids. */
    static final int STRIDE_V2 = 24;
    /** What R535 drivers wrote through {@code _v3}: adds confidential-computing memory. */
    static final int STRIDE_R535 = 32;

    /**
     * A process-list symbol and the entry size to decode its output with.
     *
     * @param symbol exported name
     * @param function the bound function
     * @param stride bytes per entry: {@link #STRIDE_V1}, {@link #STRIDE_V2} or {@link #STRIDE_R535}
     */
    record ProcessListCall(String symbol, Function function, int stride) {
        /** @return whether the entry size is a guess that the sanity check may correct (24 vs 32 bytes) */
        boolean strideMayBeWrong() {
            return stride != STRIDE_V1;
        }
    }

    /**
     * Probes the library. The entry size follows nvitop's rule: R535 drivers wrote 32-byte entries
     * through {@code _v3} without a version bump; they are the ones that export the
     * confidential-computing call but not yet {@code nvmlDeviceGetRunningProcessDetailList}. Either guess
     * is checked again on real data by {@link ProcessListReader}.
     *
     * @param library the loaded NVML library
     * @return what it offers
     */
    static NvmlSymbols probe(NativeLibrary library) {
        return new NvmlSymbols(processList(library),
                find(library, "nvmlDeviceGetPciInfo_v3").isPresent(),
                find(library, "nvmlDeviceGetMigMode").isPresent()
                        && find(library, "nvmlDeviceGetMaxMigDeviceCount").isPresent()
                        && find(library, "nvmlDeviceGetMigDeviceHandleByIndex").isPresent(),
                find(library, "nvmlDeviceGetMemoryInfo_v2").isPresent());
    }

    private static ProcessListCall processList(NativeLibrary library) {
        Optional<Function> v3 = find(library, PROCESSES_V3);
        if (v3.isPresent()) {
            boolean r535 = find(library, "nvmlDeviceGetConfComputeMemSizeInfo").isPresent()
                    && find(library, "nvmlDeviceGetRunningProcessDetailList").isEmpty();
            return new ProcessListCall(PROCESSES_V3, v3.get(), r535 ? STRIDE_R535 : STRIDE_V2);
        }
        Optional<Function> v2 = find(library, PROCESSES_V2);
        if (v2.isPresent()) {
            return new ProcessListCall(PROCESSES_V2, v2.get(), STRIDE_V2);
        }
        Function v1 = find(library, PROCESSES_V1).orElseThrow(() -> new UnsatisfiedLinkError(
                library.getFile() + " exports no " + PROCESSES_V1 + "; it is not a usable NVML library"));
        return new ProcessListCall(PROCESSES_V1, v1, STRIDE_V1);
    }

    /**
     * @param library the loaded library
     * @param symbol an exported function name
     * @return the function, or empty when this driver does not export it
     */
    static Optional<Function> find(NativeLibrary library, String symbol) {
        try {
            return Optional.of(library.getFunction(symbol));
        } catch (UnsatisfiedLinkError absent) {
            return Optional.empty();
        }
    }
}

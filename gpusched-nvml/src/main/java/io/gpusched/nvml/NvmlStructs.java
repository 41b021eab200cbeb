package io.gpusched.nvml;

import com.sun.jna.Structure;

/**
 * The fixed-layout NVML structs the backend passes by pointer, declared from the x86-64 layouts
 * (offsets checked with gcc; see the research notes). The classes are public only because JNA
 * reads their fields reflectively; the enclosing class keeps them out of the API.
 *
 * <p>Process entries are deliberately not here: their size varies by driver, so they are decoded
 * from raw memory by {@link ProcessEntries}.
 */
final class NvmlStructs {
    /** {@code sizeof(nvmlMemory_t)}. */
    static final int MEMORY_SIZE = 24;
    /** {@code sizeof(nvmlMemory_v2_t)}: a version word, 4 bytes of padding, four 64-bit byte counts. */
    static final int MEMORY_V2_SIZE = 40;
    /** {@code nvmlMemory_v2}: the version word {@code nvmlDeviceGetMemoryInfo_v2} checks. */
    static final int MEMORY_V2_VERSION = MEMORY_V2_SIZE | (2 << 24);
    /** {@code sizeof(nvmlUtilization_t)}. */
    static final int UTILIZATION_SIZE = 8;
    /** {@code sizeof(nvmlPciInfo_t)}. */
    static final int PCI_INFO_SIZE = 68;

    private NvmlStructs() {
    }

    /** {@code nvmlMemory_t}: three unsigned 64-bit byte counts. */
    @Structure.FieldOrder({"total", "free", "used"})
    public static final class Memory extends Structure {
        public long total;
        public long free;
        public long used;

        public Memory() {
            // output only: skip copying Java fields to native memory before every call
            setAutoWrite(false);
        }
    }

    /**
     * {@code nvmlMemory_v2_t}: the driver's reserve apart from what is used. The v1 call counts that
     * reserve (about 600 MiB on an H200 with an R580 driver) as used, so an idle GPU never reads idle.
     */
    @Structure.FieldOrder({"version", "total", "reserved", "free", "used"})
    public static final class MemoryV2 extends Structure {
        public int version = MEMORY_V2_VERSION;
        public long total;
        public long reserved;
        public long free;
        public long used;

        public MemoryV2() {
            // The version word is written to native memory once, here; the call fills the rest.
            write();
            setAutoWrite(false);
        }
    }

    /** {@code nvmlUtilization_t}: unsigned percentages over the driver's last sample period. */
    @Structure.FieldOrder({"gpu", "memory"})
    public static final class Utilization extends Structure {
        public int gpu;
        public int memory;

        public Utilization() {
            setAutoWrite(false);
        }
    }

    /** {@code nvmlPciInfo_t} as filled by {@code nvmlDeviceGetPciInfo_v3}. */
    @Structure.FieldOrder({"busIdLegacy", "domain", "bus", "device", "pciDeviceId", "pciSubSystemId", "busId"})
    public static final class PciInfo extends Structure {
        public byte[] busIdLegacy = new byte[16];
        public int domain;
        public int bus;
        public int device;
        public int pciDeviceId;
        public int pciSubSystemId;
        public byte[] busId = new byte[32];

        public PciInfo() {
            setAutoWrite(false);
        }
    }
}

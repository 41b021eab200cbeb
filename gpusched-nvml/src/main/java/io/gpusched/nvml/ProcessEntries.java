package io.gpusched.nvml;

import com.sun.jna.Pointer;

/**
 * Reads process entries ({@code nvmlProcessInfo_v1_t}, {@code _v2_t}, or R535's 32-byte variant) out of
 * a raw buffer at an explicit stride, and judges whether an entry is a believable process. The common
 * prefix is the same in all three layouts: pid (u32) at 0, used bytes (u64) at 8, and from 24 bytes on
 * the GPU and compute instance ids (u32) at 16 and 20.
 */
final class ProcessEntries {
    /** {@code NVML_VALUE_NOT_AVAILABLE} as an unsigned 64-bit value: the driver does not know. */
    static final long NOT_AVAILABLE = -1L;
    /** Linux's hard ceiling for pids on 64-bit ({@code PID_MAX_LIMIT}); every real pid is below it. */
    static final long PID_LIMIT = 1L << 22;
    /** Instance ids above this are not MIG ids (0xFFFFFFFF means "no MIG" and is accepted separately). */
    private static final long MAX_INSTANCE_ID = 0xFFFF;

    private ProcessEntries() {
    }

    static long pid(Pointer entries, int stride, int i) {
        return Integer.toUnsignedLong(entries.getInt((long) i * stride));
    }

    static long usedBytes(Pointer entries, int stride, int i) {
        return entries.getLong((long) i * stride + 8);
    }

    /** @return memory held in MiB (rounded up), or 0 when the driver reports it as not available */
    static long usedMib(Pointer entries, int stride, int i) {
        long used = usedBytes(entries, stride, i);
        return used == NOT_AVAILABLE ? 0 : Mib.ceil(used);
    }

    /**
     * The sanity check that catches a wrong stride: decoding at the wrong size puts padding or another
     * field where the pid should be, which yields 0, 0xFFFFFFFF or a value far beyond any pid.
     *
     * @param deviceTotalBytes the device's total memory; no process can hold more
     */
    static boolean plausible(Pointer entries, int stride, int i, long deviceTotalBytes) {
        long pid = pid(entries, stride, i);
        long used = usedBytes(entries, stride, i);
        if (pid == 0 || pid >= PID_LIMIT) {
            return false;
        }
        if (used != NOT_AVAILABLE && Long.compareUnsigned(used, deviceTotalBytes) > 0) {
            return false;
        }
        return stride < NvmlSymbols.STRIDE_V2
                || instanceId(entries.getInt((long) i * stride + 16)) && instanceId(entries.getInt((long) i * stride + 20));
    }

    /** @return whether all {@code count} entries are plausible at this stride */
    static boolean allPlausible(Pointer entries, int stride, int count, long deviceTotalBytes) {
        for (int i = 0; i < count; i++) {
            if (!plausible(entries, stride, i, deviceTotalBytes)) {
                return false;
            }
        }
        return true;
    }

    private static boolean instanceId(int id) {
        return id == -1 || Integer.toUnsignedLong(id) <= MAX_INSTANCE_ID;
    }
}

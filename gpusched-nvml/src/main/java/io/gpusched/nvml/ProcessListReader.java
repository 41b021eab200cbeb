package io.gpusched.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import io.gpusched.gpu.GpuProcess;
import java.util.List;

/**
 * Lists a device's compute processes through the probed process-list symbol, decoding the entries at
 * an explicit stride from one reused buffer.
 *
 * <p>The buffer is passed with its capacity on the first call, rather than asking for the count with
 * a {@code NULL} buffer first: one native call per device instead of two. On
 * {@code INSUFFICIENT_SIZE} (the list grew) it is enlarged and the call repeated. It is always sized for
 * 32-byte entries, so a wrong stride guess can never make the driver write past its end.
 *
 * <p>Every list of two or more entries is sanity-checked. If it fails at the guessed stride (24 or 32)
 * but passes at the other, the reader switches for good and says so once: the R535 drivers changed
 * the entry size without a version bump, and only entries after the first are misplaced by it.
 * Not thread-safe; one per backend.
 */
final class ProcessListReader {
    private static final int INITIAL_CAPACITY = 32;
    private static final int MAX_CAPACITY = 1 << 16;
    private static final int SLACK_BYTES = 64;

    private final NvmlSymbols.ProcessListCall call;
    private final IntByReference count = new IntByReference();
    private final Object[] args = new Object[3];
    private int stride;
    private boolean switched;
    private int capacity;
    private Memory buffer;

    ProcessListReader(NvmlSymbols.ProcessListCall call) {
        this.call = call;
        this.stride = call.stride();
        allocate(INITIAL_CAPACITY);
    }

    /** @return the entry size in bytes currently used to decode */
    int stride() {
        return stride;
    }

    /**
     * Appends the device's compute processes to {@code out}.
     *
     * @param device an NVML device handle (GPU or MIG instance)
     * @param gpuIndex the snapshot index to report the processes under
     * @param deviceTotalBytes the device's total memory, for the sanity check
     * @param out receives the processes
     * @param warnings receives one-line warnings (stride switch, dropped entries)
     * @return the NVML return code; {@code out} is unchanged unless it is {@code SUCCESS}
     */
    int read(Pointer device, int gpuIndex, long deviceTotalBytes, List<GpuProcess> out, List<String> warnings) {
        while (true) {
            count.setValue(capacity);
            buffer.clear();
            args[0] = device;
            args[1] = count;
            args[2] = buffer;
            int rc = call.function().invokeInt(args);
            int needed = count.getValue();
            // bounded: a driver that keeps asking for more cannot make this loop or allocate forever
            if (rc == NvmlReturn.INSUFFICIENT_SIZE && capacity < MAX_CAPACITY
                    && Integer.compareUnsigned(needed, MAX_CAPACITY / 2) <= 0) {
                allocate(Math.max(needed, capacity) * 2);
                continue;
            }
            if (rc == NvmlReturn.SUCCESS) {
                decode(Math.min(Integer.toUnsignedLong(needed), capacity), gpuIndex, deviceTotalBytes, out, warnings);
            }
            return rc;
        }
    }

    private void decode(long n, int gpuIndex, long total, List<GpuProcess> out, List<String> warnings) {
        int entries = (int) n;
        if (entries > 1 && !switched && call.strideMayBeWrong()
                && !ProcessEntries.allPlausible(buffer, stride, entries, total)) {
            int other = stride == NvmlSymbols.STRIDE_V2 ? NvmlSymbols.STRIDE_R535 : NvmlSymbols.STRIDE_V2;
            if (ProcessEntries.allPlausible(buffer, other, entries, total)) {
                warnings.add("NVML: " + call.symbol() + " returned " + other + "-byte process entries where " + stride
                        + " were expected (a known R535 driver quirk); decoding " + other + "-byte entries from now on");
                stride = other;
                switched = true;
            }
        }
        boolean dropped = false;
        for (int i = 0; i < entries; i++) {
            if (ProcessEntries.plausible(buffer, stride, i, total)) {
                out.add(new GpuProcess(gpuIndex, ProcessEntries.pid(buffer, stride, i), ProcessEntries.usedMib(buffer, stride, i)));
            } else {
                dropped = true;
            }
        }
        if (dropped) {
            warnings.add("NVML: ignored implausible process entries from " + call.symbol() + " on GPU " + gpuIndex
                    + " (driver struct-size mismatch?); job memory there may be unattributed");
        }
    }

    private void allocate(int entries) {
        capacity = entries;
        buffer = new Memory((long) entries * NvmlSymbols.STRIDE_R535 + SLACK_BYTES);
    }
}

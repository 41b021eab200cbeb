package io.gpusched.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * JNA interface mapping of the NVML calls the backend makes. There is deliberately no
 * {@code INSTANCE} field: {@link NvmlLoader} loads the library only when a provider is asked, so this
 * type can be loaded on a machine without a GPU.
 *
 * <p>JNA binds exact symbol names, so the versioned names ({@code _v2}, {@code _v3}) are spelled out
 * here; the header's {@code #define nvmlInit nvmlInit_v2} does not apply. Interface mapping resolves a
 * symbol on first call, so the methods marked optional exist only on some drivers and are called only
 * after {@link NvmlSymbols} found them. Process lists are not here: {@link ProcessListReader} calls
 * them through a probed {@link com.sun.jna.Function}.
 */
interface NvmlLibrary extends Library {
    /** Size for names and UUIDs ({@code NVML_DEVICE_NAME_V2_BUFFER_SIZE}, {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}). */
    int TEXT_BUFFER_SIZE = 96;
    /** {@code NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE}. */
    int DRIVER_VERSION_BUFFER_SIZE = 80;
    /** {@code NVML_DEVICE_MIG_ENABLE}. */
    int MIG_ENABLED = 1;

    int nvmlInit_v2();

    int nvmlShutdown();

    String nvmlErrorString(int result);

    int nvmlSystemGetDriverVersion(byte[] version, int length);

    int nvmlDeviceGetCount_v2(IntByReference count);

    int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

    int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

    int nvmlDeviceGetName(Pointer device, byte[] name, int length);

    int nvmlDeviceGetMemoryInfo(Pointer device, NvmlStructs.Memory memory);

    /** Optional: absent before R510 drivers, which then count their reserve as used memory. */
    int nvmlDeviceGetMemoryInfo_v2(Pointer device, NvmlStructs.MemoryV2 memory);

    int nvmlDeviceGetUtilizationRates(Pointer device, NvmlStructs.Utilization utilization);

    /** Optional: absent on old drivers, which then report no PCI bus id. */
    int nvmlDeviceGetPciInfo_v3(Pointer device, NvmlStructs.PciInfo pci);

    /** Optional (MIG). */
    int nvmlDeviceGetMigMode(Pointer device, IntByReference current, IntByReference pending);

    /** Optional (MIG): the maximum number of MIG devices, not how many exist. */
    int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

    /** Optional (MIG): {@code NOT_FOUND} for an unused slot. */
    int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);
}

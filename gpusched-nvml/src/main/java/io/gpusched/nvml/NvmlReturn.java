package io.gpusched.nvml;

/**
 * The {@code nvmlReturn_t} codes the backend acts on, and the one-line messages it turns them into.
 * Values are from the driver header; every other code is reported through {@code nvmlErrorString}.
 */
final class NvmlReturn {
    static final int SUCCESS = 0;
    static final int UNINITIALIZED = 1;
    static final int INVALID_ARGUMENT = 2;
    static final int NOT_SUPPORTED = 3;
    static final int NO_PERMISSION = 4;
    static final int NOT_FOUND = 6;
    static final int INSUFFICIENT_SIZE = 7;
    static final int DRIVER_NOT_LOADED = 9;
    static final int FUNCTION_NOT_FOUND = 13;
    static final int GPU_IS_LOST = 15;
    static final int RESET_REQUIRED = 16;
    static final int LIB_RM_VERSION_MISMATCH = 18;
    static final int ARGUMENT_VERSION_MISMATCH = 25;

    private NvmlReturn() {
    }

    /**
     * Codes that mean NVML as a whole is unusable until it is initialised again, as opposed to one
     * device or one feature failing.
     */
    static boolean isDriverLevel(int rc) {
        return rc == UNINITIALIZED || rc == DRIVER_NOT_LOADED || rc == LIB_RM_VERSION_MISMATCH;
    }

    /** Codes after which a device must not be given jobs until it is reset or the machine rebooted. */
    static boolean isDeviceLost(int rc) {
        return rc == GPU_IS_LOST || rc == RESET_REQUIRED;
    }

    /**
     * @param function the NVML function that failed
     * @param rc its return code
     * @param errorString the driver's text for the code
     * @return a one-line message naming the cause and, where there is one, the fix
     */
    static String message(String function, int rc, String errorString) {
        switch (rc) {
            case LIB_RM_VERSION_MISMATCH:
                return "NVML: driver/library version mismatch — the NVIDIA driver was probably upgraded without a reboot;"
                        + " reboot or reload the kernel module";
            case DRIVER_NOT_LOADED:
                return "NVML: the NVIDIA kernel driver is not loaded; load it (modprobe nvidia) or check dmesg for why it failed";
            case NO_PERMISSION:
                return "NVML: " + function + " was refused (no permission); check the permissions of /dev/nvidia*";
            default:
                return "NVML: " + function + " failed: " + errorString + " (code " + rc + ")";
        }
    }
}

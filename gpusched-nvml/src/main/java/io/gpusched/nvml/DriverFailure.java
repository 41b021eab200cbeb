package io.gpusched.nvml;

/**
 * NVML as a whole stopped working (driver unloaded, driver/library mismatch, not initialised): not a
 * problem of one device. {@link NvmlBackend} answers it by re-initialising NVML later.
 */
final class DriverFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message one line naming the cause and the fix */
    DriverFailure(String message) {
        super(message, null, false, false);
    }
}

package io.gpusched.nvml;

/**
 * One device (GPU or MIG instance) could not be read this time. Unwinds the reading of that device
 * only; the snapshot goes on with the next one. Created only on failure, so it costs nothing on the
 * normal path, and carries no stack trace because it never leaves {@link SnapshotReader}.
 */
final class DeviceFault extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int code;

    DeviceFault(String function, int code) {
        super(function + " returned " + code, null, false, false);
        this.function = function;
        this.code = code;
    }

    /** @return the NVML function that failed */
    String function() {
        return function;
    }

    /** @return its return code */
    int code() {
        return code;
    }
}

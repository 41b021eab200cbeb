package io.gpusched.gpu;

/**
 * A compute process holding memory on a GPU.
 *
 * @param gpu the {@link GpuStat#index() index} of the GPU it runs on
 * @param pid the process id as the backend reports it (may be from another PID namespace)
 * @param usedMib memory it holds on that GPU in MiB; 0 when the driver does not say
 */
public record GpuProcess(int gpu, long pid, long usedMib) {
    /**
     * Validates the fields.
     *
     * @param gpu see {@link #gpu()}
     * @param pid see {@link #pid()}
     * @param usedMib see {@link #usedMib()}
     */
    public GpuProcess {
        if (gpu < 0 || pid < 0 || usedMib < 0) {
            throw new IllegalArgumentException("gpu, pid and usedMib must be >= 0: " + gpu + ", " + pid + ", " + usedMib);
        }
    }
}

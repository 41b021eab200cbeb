package io.gpusched.alloc;

import java.util.OptionalLong;

/**
 * What a job asks the allocator for.
 *
 * @param vramMib per-GPU declaration in MiB (after any OOM bump); empty for an undeclared job, which
 *     needs fully idle GPUs
 * @param gpus number of distinct GPUs, at least 1
 */
public record Request(OptionalLong vramMib, int gpus) {
    /**
     * Validates the fields.
     *
     * @param vramMib see {@link #vramMib()}
     * @param gpus see {@link #gpus()}
     */
    public Request {
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be >= 1, got " + gpus);
        }
        if (vramMib.isPresent() && vramMib.getAsLong() < 1) {
            throw new IllegalArgumentException("vramMib must be >= 1, got " + vramMib.getAsLong());
        }
    }

    /**
     * @param mib per-GPU declaration in MiB
     * @param gpus number of GPUs
     * @return a declared request
     */
    public static Request declared(long mib, int gpus) {
        return new Request(OptionalLong.of(mib), gpus);
    }

    /**
     * @param gpus number of GPUs
     * @return an undeclared request
     */
    public static Request undeclared(int gpus) {
        return new Request(OptionalLong.empty(), gpus);
    }
}

package io.gpusched.alloc;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * One of our own running jobs, as seen on one GPU.
 *
 * @param key the job's identity key
 * @param declaredMib its per-GPU declaration in MiB; empty if undeclared
 * @param currentMib memory attributed to it on this GPU now, in MiB
 * @param peakMib the most ever attributed to it on this GPU, in MiB
 */
public record Tenant(String key, OptionalLong declaredMib, long currentMib, long peakMib) {
    /**
     * Validates the fields.
     *
     * @param key see {@link #key()}
     * @param declaredMib see {@link #declaredMib()}
     * @param currentMib see {@link #currentMib()}
     * @param peakMib see {@link #peakMib()}
     */
    public Tenant {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(declaredMib, "declaredMib");
        if (currentMib < 0 || peakMib < 0) {
            throw new IllegalArgumentException("memory must be >= 0");
        }
    }

    /** @return whether the job declared its VRAM */
    public boolean declared() {
        return declaredMib.isPresent();
    }
}

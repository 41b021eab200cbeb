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

    /**
     * Equal to another tenant with equal fields, as a record is; written out because the record's own is
     * linked at its first call through {@code ObjectMethods}, several milliseconds of interpreted
     * method-handle work when a round first compares GPU views.
     *
     * @param o any object
     * @return whether it is a tenant with the same fields
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof Tenant t && java.util.Objects.equals(key, t.key)
                && java.util.Objects.equals(declaredMib, t.declaredMib) && currentMib == t.currentMib && peakMib == t.peakMib;
    }

    /** @return the hash the record would make of its fields (31 times the hash so far, plus each field's) */
    @Override
    public int hashCode() {
        return ((java.util.Objects.hashCode(key) * 31 + java.util.Objects.hashCode(declaredMib)) * 31
                + Long.hashCode(currentMib)) * 31 + Long.hashCode(peakMib);
    }
}

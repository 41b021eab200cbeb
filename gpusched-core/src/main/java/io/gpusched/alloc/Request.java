package io.gpusched.alloc;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What a job asks the allocator for.
 *
 * @param vramMib per-GPU declaration in MiB (after any OOM bump); empty for an undeclared job, which
 *     needs fully idle GPUs
 * @param gpus number of distinct GPUs, at least 1
 * @param pinned the only GPU indices it may use ({@code gpu-ids=}); empty means any
 * @param share a share of one GPU's memory ({@code gpus=0.5}) instead of a fixed {@code vramMib}: the
 *     request is then for one GPU, judged against that GPU's own total, and no margin is added (the share
 *     is the whole reservation, so two halves fill one card)
 */
public record Request(OptionalLong vramMib, int gpus, Optional<Set<Integer>> pinned, Optional<GpuShare> share) {
    /**
     * Validates the fields and copies the set.
     *
     * @param vramMib see {@link #vramMib()}
     * @param gpus see {@link #gpus()}
     * @param pinned see {@link #pinned()}
     * @param share see {@link #share()}; only with no {@code vramMib} and one GPU
     */
    public Request {
        Objects.requireNonNull(vramMib, "vramMib");
        Objects.requireNonNull(pinned, "pinned");
        Objects.requireNonNull(share, "share");
        pinned = pinned.map(Set::copyOf);
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be >= 1, got " + gpus);
        }
        if (share.isPresent() && (vramMib.isPresent() || gpus != 1)) {
            throw new IllegalArgumentException("a GPU share is a request for one GPU without a fixed vram");
        }
        if (vramMib.isPresent() && vramMib.getAsLong() < 1) {
            throw new IllegalArgumentException("vramMib must be >= 1, got " + vramMib.getAsLong());
        }
    }

    /**
     * A request for fixed MiB (or undeclared) that may use the pinned GPUs.
     *
     * @param vramMib see {@link #vramMib()}
     * @param gpus see {@link #gpus()}
     * @param pinned see {@link #pinned()}
     */
    public Request(OptionalLong vramMib, int gpus, Optional<Set<Integer>> pinned) {
        this(vramMib, gpus, pinned, Optional.empty());
    }

    /**
     * @param share the share of one GPU's memory
     * @return a request for that share of one GPU, any GPU
     */
    public static Request share(GpuShare share) {
        return new Request(OptionalLong.empty(), 1, Optional.empty(), Optional.of(share));
    }

    /**
     * A request that may use any GPU.
     *
     * @param vramMib see {@link #vramMib()}
     * @param gpus see {@link #gpus()}
     */
    public Request(OptionalLong vramMib, int gpus) {
        this(vramMib, gpus, Optional.empty());
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

    /**
     * @param indices the only GPUs it may use
     * @return this request pinned to them
     */
    public Request pinnedTo(Set<Integer> indices) {
        return new Request(vramMib, gpus, Optional.of(indices), share);
    }

    /** @return whether the job says how much memory it needs: a fixed {@code vramMib} or a share */
    public boolean declared() {
        return vramMib.isPresent() || share.isPresent();
    }

    /**
     * What the job reserves on one GPU, before any margin: its fixed declaration, or its share of that
     * GPU's total.
     *
     * @param totalMib the GPU's total memory in MiB
     * @return the per-GPU declaration in MiB there; empty for an undeclared job
     */
    public OptionalLong declaredOn(long totalMib) {
        if (share.isPresent()) {
            return OptionalLong.of(share.get().mibOf(totalMib));
        }
        return vramMib;
    }

    /**
     * @param index a GPU index
     * @return whether this request may use it
     */
    public boolean mayUse(int index) {
        return pinned.map(p -> p.contains(index)).orElse(true);
    }

    /**
     * Equal to another request with equal fields, as a record is; written out because the record's own
     * is linked at its first call through {@code ObjectMethods}, several milliseconds of interpreted
     * method-handle work in every run's first plan (which keys questions by request).
     *
     * @param o any object
     * @return whether it is a request with the same fields
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof Request r && Objects.equals(vramMib, r.vramMib) && gpus == r.gpus
                && Objects.equals(pinned, r.pinned) && Objects.equals(share, r.share);
    }

    /** @return the hash the record would make of its fields (31 times the hash so far, plus each field's) */
    @Override
    public int hashCode() {
        return ((Objects.hashCode(vramMib) * 31 + Integer.hashCode(gpus)) * 31 + Objects.hashCode(pinned)) * 31
                + Objects.hashCode(share);
    }
}

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
 */
public record Request(OptionalLong vramMib, int gpus, Optional<Set<Integer>> pinned) {
    /**
     * Validates the fields and copies the set.
     *
     * @param vramMib see {@link #vramMib()}
     * @param gpus see {@link #gpus()}
     * @param pinned see {@link #pinned()}
     */
    public Request {
        Objects.requireNonNull(vramMib, "vramMib");
        Objects.requireNonNull(pinned, "pinned");
        pinned = pinned.map(Set::copyOf);
        if (gpus < 1) {
            throw new IllegalArgumentException("gpus must be >= 1, got " + gpus);
        }
        if (vramMib.isPresent() && vramMib.getAsLong() < 1) {
            throw new IllegalArgumentException("vramMib must be >= 1, got " + vramMib.getAsLong());
        }
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
        return new Request(vramMib, gpus, Optional.of(indices));
    }

    /**
     * @param index a GPU index
     * @return whether this request may use it
     */
    public boolean mayUse(int index) {
        return pinned.map(p -> p.contains(index)).orElse(true);
    }
}

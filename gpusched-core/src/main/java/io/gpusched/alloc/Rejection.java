package io.gpusched.alloc;

/**
 * Why one GPU cannot take a job now.
 *
 * @param gpu the GPU index
 * @param check which rule rejected it
 * @param requiredMib what the rule needed, in MiB (headroom for {@link Check#HEADROOM}, the idle
 *     threshold for {@link Check#IDLE}; 0 where no amount applies)
 * @param availableMib what the GPU offered, in MiB (headroom, or effective external use for
 *     {@link Check#IDLE}; 0 where no amount applies); for {@link Check#BUSY} the recent utilisation in
 *     percent, as {@code requiredMib} is the {@code --max-util} limit in percent
 */
public record Rejection(int gpu, Check check, long requiredMib, long availableMib) {

    /** The placement rules, in the order they are applied. */
    public enum Check {
        /** Not in {@code --gpus}. */
        ALLOWED,
        /** Not among the GPUs the job is pinned to ({@code gpu-ids=}). */
        PINNED,
        /** The GPU is lost or unusable. */
        HEALTHY,
        /** The GPU is paused: running jobs continue, nothing new goes there. */
        PAUSED,
        /** The GPU's recent utilisation is above {@code --max-util}. */
        BUSY,
        /** The GPU is reserved for a job that has waited long; only a job sure to end first may use it. */
        RESERVED,
        /** One of our undeclared jobs holds the GPU alone. */
        NO_UNDECLARED_TENANT,
        /** {@code --exclusive} and one of our jobs is already there. */
        EXCLUSIVE,
        /** An undeclared job needs a GPU with no job of ours on it. */
        NO_TENANT,
        /** An undeclared job needs effective external use below the idle threshold. */
        IDLE,
        /** Effective headroom below declaration + margin. */
        HEADROOM
    }

    /** @return a short human description, e.g. {@code gpu1 has 12030 MiB headroom} */
    public String describe() {
        return switch (check) {
            case ALLOWED -> "gpu" + gpu + " is not in --gpus";
            case HEALTHY -> "gpu" + gpu + " is unhealthy";
            case PINNED -> "gpu" + gpu + " is not in the job's gpu-ids";
            case PAUSED -> "gpu" + gpu + " is paused";
            case RESERVED -> "gpu" + gpu + " is reserved";
            case BUSY -> "gpu" + gpu + " is " + availableMib + "% busy (limit --max-util " + requiredMib + ")";
            case NO_UNDECLARED_TENANT -> "gpu" + gpu + " is held by an undeclared job";
            case EXCLUSIVE -> "gpu" + gpu + " already runs a job (--exclusive)";
            case NO_TENANT -> "gpu" + gpu + " runs a scheduled job";
            case IDLE -> "gpu" + gpu + " has " + availableMib + " MiB external use";
            case HEADROOM -> "gpu" + gpu + " has " + availableMib + " MiB headroom";
        };
    }
}

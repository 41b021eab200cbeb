package io.gpusched.slurm;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What {@link SlurmMapping} makes of one job: the {@code sbatch} options that ask Slurm for its GPUs and time,
 * or why Slurm cannot run it.
 */
public sealed interface SlurmRequest {
    /**
     * A job Slurm can run.
     *
     * @param gres the generic resource asked for, without {@code --gres=}: {@code gpu:N} or {@code shard:K}
     * @param declaredMib the declaration the verdict judges the peak against, in MiB per GPU: the job's
     *     {@code vram}, or its share of one GPU ({@code shards × shard MiB}); empty when undeclared
     * @param timeMinutes the time limit given to Slurm, in whole minutes (Slurm's unit, rounded up); empty
     *     without a {@code timeout}
     * @param sbatchOptions the options for {@code sbatch}, in order: {@code --gres=...}, with a timeout
     *     {@code --time=...}, with a comment {@code --comment=...}
     */
    record Mapped(String gres, OptionalLong declaredMib, OptionalLong timeMinutes, List<String> sbatchOptions)
            implements SlurmRequest {
        /**
         * Copies the list.
         *
         * @param gres see {@link #gres()}
         * @param declaredMib see {@link #declaredMib()}
         * @param timeMinutes see {@link #timeMinutes()}
         * @param sbatchOptions see {@link #sbatchOptions()}
         */
        public Mapped {
            Objects.requireNonNull(gres, "gres");
            Objects.requireNonNull(declaredMib, "declaredMib");
            Objects.requireNonNull(timeMinutes, "timeMinutes");
            sbatchOptions = List.copyOf(sbatchOptions);
        }

        /** @return how many shards it asks for, 0 when it asks for whole GPUs */
        public int shards() {
            return gres.startsWith("shard:") ? Integer.parseInt(gres.substring("shard:".length())) : 0;
        }
    }

    /**
     * A job Slurm cannot run as written.
     *
     * @param message one line: {@code file:line: what cannot be expressed; the fix}
     */
    record Refused(String message) implements SlurmRequest {
        /**
         * Checks the message is one line.
         *
         * @param message see {@link #message()}
         */
        public Refused {
            if (message.isBlank() || message.contains("\n")) {
                throw new IllegalArgumentException("a refusal is one non-blank line");
            }
        }
    }
}

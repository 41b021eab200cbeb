package io.gpusched.model;

import io.gpusched.Scheduler;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * GPUs granted to a lease ({@link Scheduler#lease}): the holder runs its command with this environment
 * over its own, and reports the exit status with {@link Scheduler#leaseEnded}.
 *
 * @param no the job's display number
 * @param gpus the GPU indices granted, ascending
 * @param environment what the command's environment must get: {@code CUDA_VISIBLE_DEVICES},
 *     {@code CUDA_DEVICE_ORDER}, {@code GPUSCHED_GPUS}, {@code GPUSCHED_JOB_NO}, {@code GPUSCHED_JOB_KEY}, the
 *     backend's variables, and {@code GPUSCHED_RUN}, the run's token: every process that carries it counts
 *     as the job's (its VRAM, and the signals a cancel or timeout sends)
 */
public record Grant(int no, List<Integer> gpus, Map<String, String> environment) {
    /** The variable holding the run's token, which proves the holder when it reports the end. */
    public static final String TOKEN_VARIABLE = "GPUSCHED_RUN";

    /**
     * Copies the lists.
     *
     * @param no see {@link #no()}
     * @param gpus see {@link #gpus()}
     * @param environment see {@link #environment()}
     */
    public Grant {
        gpus = List.copyOf(gpus);
        environment = Map.copyOf(Objects.requireNonNull(environment, "environment"));
    }

    /** @return the run's token ({@link #TOKEN_VARIABLE}) */
    public String token() {
        return environment.getOrDefault(TOKEN_VARIABLE, "");
    }
}

package io.gpusched.cluster;

import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.model.Measurement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * How an attempt on a cluster ended, as measured where it ran; the engine judges it by the same outcome
 * rules as a local run's.
 *
 * @param exitCode the exit status to record
 * @param gpus the GPUs it had, as it saw them (empty when unknown)
 * @param peakMib its processes' peak memory per GPU in MiB; empty when nothing was measured
 * @param avgUtil its mean GPU utilisation in percent, when measured
 * @param took how long its command ran, by the cluster's clocks
 * @param measurement how its memory was measured; {@link Measurement#NOT_RUN} when nothing says its command
 *     ran at all (then its log is not searched for an OOM)
 * @param stoppedBy present when the cluster stopped it without this scheduler asking: its time limit
 *     ({@link StopReason#TIMEOUT}) or someone else's cancel ({@link StopReason#CANCELLED})
 */
public record ClusterReport(int exitCode, List<Integer> gpus, Map<Integer, Long> peakMib, OptionalDouble avgUtil,
                            Duration took, Measurement measurement, Optional<StopReason> stoppedBy) {
    /**
     * Copies the collections.
     *
     * @param exitCode see {@link #exitCode()}
     * @param gpus see {@link #gpus()}
     * @param peakMib see {@link #peakMib()}
     * @param avgUtil see {@link #avgUtil()}
     * @param took see {@link #took()}
     * @param measurement see {@link #measurement()}
     * @param stoppedBy see {@link #stoppedBy()}
     */
    public ClusterReport {
        gpus = List.copyOf(gpus);
        peakMib = Map.copyOf(peakMib);
        Objects.requireNonNull(avgUtil, "avgUtil");
        Objects.requireNonNull(took, "took");
        Objects.requireNonNull(measurement, "measurement");
        Objects.requireNonNull(stoppedBy, "stoppedBy");
    }
}

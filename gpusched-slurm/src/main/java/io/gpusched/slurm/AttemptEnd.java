package io.gpusched.slurm;

import io.gpusched.event.SchedulerEvent.StopReason;
import io.gpusched.model.Measurement;
import io.gpusched.model.RunSummary;
import io.gpusched.outcome.AttemptFacts;
import io.gpusched.outcome.AttemptJudge;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * How one Slurm attempt of a job ended, as the engine decides it: {@link SlurmDriver#report}'s reading of
 * Slurm's last state and the wrapper's report, judged by the shared {@link AttemptJudge} (an outcome, or a
 * CUDA OOM to retry with a bigger declaration). The engine does this itself for a run ({@code Outcomes});
 * this composition states the Slurm cases as one pure function for {@code AttemptEndTest}. Its
 * {@link Measured} is what the driver reports. Pure: the log tail is handed in.
 *
 * @param decision the judge's decision
 * @param exitCode the exit status to record: the wrapper's; {@link RunSummary#TIMEOUT_EXIT} after Slurm's
 *     time limit; 1 when the wrapper left no report
 * @param measured what the wrapper measured of the attempt
 */
record AttemptEnd(AttemptJudge.Decision decision, int exitCode, Measured measured) {
    /**
     * What the wrapper's report says, or nothing when it left none.
     *
     * @param reported whether there was a report at all
     */
    record Measured(Map<Integer, Long> peakMib, OptionalDouble avgUtil, Duration took, List<Integer> gpus,
                    Measurement measurement, boolean reported) {
        public Measured {
            peakMib = Map.copyOf(peakMib);
            gpus = List.copyOf(gpus);
        }

        static Measured of(Optional<WrapReport> result) {
            Map<Integer, Long> peaks = result.map(WrapReport::peakMib).orElse(Map.of());
            Duration took = result.filter(r -> r.endedMs().isPresent())
                    .map(r -> Duration.ofMillis(Math.max(0, r.endedMs().getAsLong() - r.startedMs())))
                    .orElse(Duration.ZERO);
            Measurement m = !peaks.isEmpty() ? Measurement.MEASURED : result.isEmpty() ? Measurement.NOT_RUN
                    : result.get().measurement().isPresent() ? Measurement.NOT_VISIBLE : Measurement.NONE_SEEN;
            return new Measured(peaks, result.map(WrapReport::avgUtil).orElse(OptionalDouble.empty()), took,
                    result.map(WrapReport::gpus).orElse(List.of()), m, result.isPresent());
        }

        long peak() {
            return peakMib.values().stream().mapToLong(Long::longValue).max().orElse(0);
        }
    }

    /**
     * @param judge the outcome rules
     * @param slurmState the attempt's last state in {@code squeue} ({@code GONE} once Slurm forgot it)
     * @param result the wrapper's {@code result.json}, if it wrote one
     * @param cancelRequested whether the jobs file cancelled it
     * @param logTail the tail of the job's output, read only when the exit status asks for an OOM check
     * @param attempt this attempt's number, from 1
     * @param maxAttempts 1 + the job's OOM retries
     * @param declaredMib the attempt's declaration, for the bump and the verdict
     * @return how it ended
     */
    static AttemptEnd judge(AttemptJudge judge, String slurmState, Optional<WrapReport> result, boolean cancelRequested,
                            Supplier<String> logTail, int attempt, int maxAttempts, OptionalLong declaredMib) {
        // The driver's reading of Slurm's state and the wrapper's report, then the engine's own rules on it.
        io.gpusched.cluster.ClusterReport r = SlurmDriver.report(slurmState, result);
        Optional<StopReason> stop = cancelRequested ? Optional.of(StopReason.CANCELLED) : r.stoppedBy();
        Measured m = Measured.of(result);
        // Without a report nothing says the command ran: its log is not judged for an OOM.
        AttemptFacts facts = new AttemptFacts(stop, r.exitCode(), r.measurement() != Measurement.NOT_RUN, attempt,
                maxAttempts - 1, declaredMib, m.peakMib().isEmpty() ? OptionalLong.empty() : OptionalLong.of(m.peak()));
        return new AttemptEnd(judge.judge(facts, logTail), r.exitCode(), m);
    }

    /**
     * A job the jobs file cancelled before it was ever submitted: cancelled, exit status 0, nothing measured.
     *
     * @param judge the outcome rules
     * @param attempt the attempt it would have been, from 1
     * @param declaredMib its declaration
     * @return its end
     */
    static AttemptEnd neverSubmitted(AttemptJudge judge, int attempt, OptionalLong declaredMib) {
        AttemptFacts facts = new AttemptFacts(Optional.of(StopReason.CANCELLED), 0, false, attempt, 0, declaredMib,
                OptionalLong.empty());
        return new AttemptEnd(judge.judge(facts, () -> ""), 0, Measured.of(Optional.empty()));
    }
}

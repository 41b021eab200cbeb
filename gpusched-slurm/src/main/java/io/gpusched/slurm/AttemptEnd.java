package io.gpusched.slurm;

import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.RunSummary;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * How one Slurm attempt of a job ended, judged from Slurm's last state for it and the wrapper's report: an
 * outcome, or a CUDA OOM to retry with a bigger declaration. Pure: the log tail is handed in.
 */
sealed interface AttemptEnd {
    /** @return what the wrapper measured of the attempt */
    Measured measured();

    /** The job's outcome. */
    record Ended(JobStatus status, int exitCode, Measured measured) implements AttemptEnd {
    }

    /** A CUDA OOM with attempts left: submit again, asking for {@code nextMib} when present. */
    record OomRetry(OptionalLong nextMib, Measured measured) implements AttemptEnd {
    }

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
     * @param slurmState the attempt's last state in {@code squeue} ({@code GONE} once Slurm forgot it)
     * @param result the wrapper's {@code result.json}, if it wrote one
     * @param cancelRequested whether the jobs file cancelled it
     * @param logTail the tail of the job's output, read only when the exit status asks for an OOM check
     * @param attempt this attempt's number, from 1
     * @param maxAttempts 1 + the job's OOM retries
     * @param declaredMib the attempt's declaration, for the bump
     * @return how it ended
     */
    static AttemptEnd judge(String slurmState, Optional<WrapReport> result, boolean cancelRequested,
                            Supplier<String> logTail, int attempt, int maxAttempts, OptionalLong declaredMib) {
        Measured m = Measured.of(result);
        int exit = result.flatMap(r -> r.exitCode().isPresent() ? Optional.of(r.exitCode().getAsInt())
                : Optional.empty()).orElse(1);
        // Someone else's scancel of a job that had already exited 0 leaves it ok.
        if (cancelRequested || slurmState.equals("CANCELLED") && (result.isEmpty() || exit != 0)) {
            return new Ended(JobStatus.CANCELLED, exit, m);
        }
        if (slurmState.equals("TIMEOUT")) {
            return new Ended(JobStatus.TIMEOUT, RunSummary.TIMEOUT_EXIT, m);
        }
        if (result.isEmpty() || exit == 0) {
            return new Ended(result.isEmpty() ? JobStatus.FAILED : JobStatus.OK, exit, m);
        }
        if (!OomCheck.looksLikeOom(logTail.get())) {
            return new Ended(JobStatus.FAILED, exit, m);
        }
        if (attempt >= maxAttempts) {
            return new Ended(JobStatus.FAILED_OOM, exit, m);
        }
        // An undeclared job has a whole GPU already: it is retried on one again, as it was declared.
        return new OomRetry(declaredMib.isPresent() ? OomCheck.bump(declaredMib, m.peak()) : OptionalLong.empty(), m);
    }
}

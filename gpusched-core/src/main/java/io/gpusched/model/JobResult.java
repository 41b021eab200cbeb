package io.gpusched.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The outcome of one job.
 *
 * @param key the job's identity key
 * @param no its persistent display number (job 1, job 2, ...)
 * @param command the shell command
 * @param gpus the GPU indices of its last attempt; empty if it never started
 * @param status how it ended
 * @param exitCode its exit code (128 + signal when killed; 1 for infeasible; 0 for cancelled before start)
 * @param declaredMib its per-GPU declaration for the last attempt, in MiB
 * @param peakMib per-GPU peak in MiB, by GPU index; empty when never attributed
 * @param verdict what the peak says about the declaration
 * @param avgUtilPercent average device utilisation over its GPUs and samples, when known
 * @param duration wall time of its last attempt; for a job that ended while no scheduler watched, as
 *     its run files' times tell it, and zero when they cannot
 * @param measurement how its peak was measured, or why there is none
 * @param cause why it failed when its exit status alone does not say: for a job with a
 *     {@code setup} or {@code conda} environment that ended before its command ran, e.g.
 *     {@code setup exited 1; the command did not run} or {@code conda=torch but no 'conda' on PATH};
 *     empty otherwise, and for outcomes of an earlier run (the journal does not keep it)
 * @param owner the user it ran for (its submitter, or the scheduler's user for a jobs-file line), when
 *     known
 * @param learned for a job whose declaration was learned ({@code vram=auto}), what it was learned from,
 *     e.g. {@code learned: job 3 peaked at 1500 MiB, +10%}, or that nothing was learned yet; empty for
 *     other jobs, and for outcomes of an earlier run
 */
public record JobResult(
        String key,
        int no,
        String command,
        List<Integer> gpus,
        JobStatus status,
        int exitCode,
        OptionalLong declaredMib,
        Map<Integer, Long> peakMib,
        Verdict verdict,
        OptionalDouble avgUtilPercent,
        Duration duration,
        Measurement measurement,
        Optional<String> cause,
        Optional<String> owner,
        Optional<String> learned) {

    /**
     * Copies the collections (peaks sorted by GPU index).
     *
     * @param key see {@link #key()}
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param gpus see {@link #gpus()}
     * @param status see {@link #status()}
     * @param exitCode see {@link #exitCode()}
     * @param declaredMib see {@link #declaredMib()}
     * @param peakMib see {@link #peakMib()}
     * @param verdict see {@link #verdict()}
     * @param avgUtilPercent see {@link #avgUtilPercent()}
     * @param duration see {@link #duration()}
     * @param measurement see {@link #measurement()}
     * @param cause see {@link #cause()}
     * @param owner see {@link #owner()}
     * @param learned see {@link #learned()}
     */
    public JobResult {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(declaredMib, "declaredMib");
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(avgUtilPercent, "avgUtilPercent");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(measurement, "measurement");
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(learned, "learned");
        gpus = List.copyOf(gpus);
        peakMib = java.util.Collections.unmodifiableMap(new TreeMap<>(peakMib));
    }

    /**
     * A result whose declaration was not learned.
     *
     * @param key see {@link #key()}
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param gpus see {@link #gpus()}
     * @param status see {@link #status()}
     * @param exitCode see {@link #exitCode()}
     * @param declaredMib see {@link #declaredMib()}
     * @param peakMib see {@link #peakMib()}
     * @param verdict see {@link #verdict()}
     * @param avgUtilPercent see {@link #avgUtilPercent()}
     * @param duration see {@link #duration()}
     * @param measurement see {@link #measurement()}
     * @param cause see {@link #cause()}
     * @param owner see {@link #owner()}
     */
    public JobResult(String key, int no, String command, List<Integer> gpus, JobStatus status, int exitCode,
                     OptionalLong declaredMib, Map<Integer, Long> peakMib, Verdict verdict,
                     OptionalDouble avgUtilPercent, Duration duration, Measurement measurement, Optional<String> cause,
                     Optional<String> owner) {
        this(key, no, command, gpus, status, exitCode, declaredMib, peakMib, verdict, avgUtilPercent, duration, measurement,
                cause, owner, Optional.empty());
    }

    /**
     * A result without a {@link #cause()} and whose owner is not given.
     *
     * @param key see {@link #key()}
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param gpus see {@link #gpus()}
     * @param status see {@link #status()}
     * @param exitCode see {@link #exitCode()}
     * @param declaredMib see {@link #declaredMib()}
     * @param peakMib see {@link #peakMib()}
     * @param verdict see {@link #verdict()}
     * @param avgUtilPercent see {@link #avgUtilPercent()}
     * @param duration see {@link #duration()}
     * @param measurement see {@link #measurement()}
     */
    public JobResult(String key, int no, String command, List<Integer> gpus, JobStatus status, int exitCode,
                     OptionalLong declaredMib, Map<Integer, Long> peakMib, Verdict verdict,
                     OptionalDouble avgUtilPercent, Duration duration, Measurement measurement) {
        this(key, no, command, gpus, status, exitCode, declaredMib, peakMib, verdict, avgUtilPercent, duration, measurement,
                Optional.empty(), Optional.empty());
    }

    /**
     * A result without a cause or owner whose measurement follows from the rest: {@link Measurement#MEASURED} with peaks,
     * {@link Measurement#NOT_RUN} without GPUs, else {@link Measurement#NONE_SEEN}.
     *
     * @param key see {@link #key()}
     * @param no see {@link #no()}
     * @param command see {@link #command()}
     * @param gpus see {@link #gpus()}
     * @param status see {@link #status()}
     * @param exitCode see {@link #exitCode()}
     * @param declaredMib see {@link #declaredMib()}
     * @param peakMib see {@link #peakMib()}
     * @param verdict see {@link #verdict()}
     * @param avgUtilPercent see {@link #avgUtilPercent()}
     * @param duration see {@link #duration()}
     */
    public JobResult(String key, int no, String command, List<Integer> gpus, JobStatus status, int exitCode,
                     OptionalLong declaredMib, Map<Integer, Long> peakMib, Verdict verdict,
                     OptionalDouble avgUtilPercent, Duration duration) {
        this(key, no, command, gpus, status, exitCode, declaredMib, peakMib, verdict, avgUtilPercent, duration,
                !peakMib.isEmpty() ? Measurement.MEASURED : gpus.isEmpty() ? Measurement.NOT_RUN : Measurement.NONE_SEEN);
    }

    /** @return the largest per-GPU peak in MiB, or 0 when never attributed */
    public long overallPeakMib() {
        return peakMib.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** @return whether any GPU memory was attributed to the job */
    public boolean attributed() {
        return verdict != Verdict.UNATTRIBUTED && !peakMib.isEmpty();
    }
}

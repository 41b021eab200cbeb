package io.gpusched.model;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * One job's GPU memory over time, as the scheduler sampled it, immutable: for dashboards and charts.
 * Kept in a bounded ring (at most {@link #MAX_POINTS} points): when it fills, neighbouring points are
 * merged into the higher of the two, so a long job keeps its whole span at a coarser step and its
 * highest sample is never lost. Spans every attempt of the job (OOM retries, requeues) on one time axis.
 *
 * @param no the job's display number
 * @param startedAt when its first attempt in this run started; every {@code since} counts from here
 * @param points the samples, oldest first: each the largest per-GPU use of the job at that moment, in MiB
 *     (a merged point is the highest of the samples it stands for, at that sample's time)
 * @param attempts each attempt's start and declaration, oldest first
 * @param oomRetries the moments an attempt failed with CUDA out-of-memory and was queued again
 * @param peakMib the highest sample of every attempt, in MiB (0 before any): for a job of one attempt, its
 *     measured peak ({@link JobResult#overallPeakMib()})
 */
public record VramTimeline(int no, Instant startedAt, List<Point> points, List<Attempt> attempts,
                           List<OomRetry> oomRetries, long peakMib) {
    /** The most points a timeline holds. */
    public static final int MAX_POINTS = 512;

    /**
     * Copies the lists.
     *
     * @param no see {@link #no()}
     * @param startedAt see {@link #startedAt()}
     * @param points see {@link #points()}
     * @param attempts see {@link #attempts()}
     * @param oomRetries see {@link #oomRetries()}
     * @param peakMib see {@link #peakMib()}
     */
    public VramTimeline {
        Objects.requireNonNull(startedAt, "startedAt");
        points = List.copyOf(points);
        attempts = List.copyOf(attempts);
        oomRetries = List.copyOf(oomRetries);
    }

    /**
     * One sample.
     *
     * @param since time since {@link #startedAt()}
     * @param usedMib the job's largest per-GPU use then, in MiB
     */
    public record Point(Duration since, long usedMib) {
        /**
         * Checks for null.
         *
         * @param since see {@link #since()}
         * @param usedMib see {@link #usedMib()}
         */
        public Point {
            Objects.requireNonNull(since, "since");
        }
    }

    /**
     * The start of one attempt.
     *
     * @param number 1 for the first attempt this scheduler saw, then 2, 3...
     * @param since time since {@link #startedAt()}
     * @param declaredMib its per-GPU declaration, in MiB (bumped after an OOM); empty when undeclared
     */
    public record Attempt(int number, Duration since, OptionalLong declaredMib) {
        /**
         * Checks for nulls.
         *
         * @param number see {@link #number()}
         * @param since see {@link #since()}
         * @param declaredMib see {@link #declaredMib()}
         */
        public Attempt {
            Objects.requireNonNull(since, "since");
            Objects.requireNonNull(declaredMib, "declaredMib");
        }
    }

    /**
     * An attempt that failed with CUDA out-of-memory and was retried.
     *
     * @param since time since {@link #startedAt()}
     * @param attempt which attempt failed
     * @param nextMib the declaration of the next attempt, in MiB, when there was one to bump
     */
    public record OomRetry(Duration since, int attempt, OptionalLong nextMib) {
        /**
         * Checks for nulls.
         *
         * @param since see {@link #since()}
         * @param attempt see {@link #attempt()}
         * @param nextMib see {@link #nextMib()}
         */
        public OomRetry {
            Objects.requireNonNull(since, "since");
            Objects.requireNonNull(nextMib, "nextMib");
        }
    }
}

package io.gpusched.engine.observe;

import io.gpusched.engine.spawn.RunningJob;

import io.gpusched.model.VramTimeline;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every job's {@link VramTrack}, by display number: those running, and the last {@link #KEEP_ENDED} that
 * ended. The loop writes; any thread reads a job's immutable timeline without waiting for the loop.
 */
public final class Timelines {
    /** Ended jobs whose timelines stay readable: each is at most 512 points, about 8 KiB. */
    static final int KEEP_ENDED = 256;
    /** Points of a timeline the journal's {@code done} event keeps. */
    static final int SUMMARY_POINTS = 32;
    private final Map<Integer, VramTrack> tracks = new ConcurrentHashMap<>();
    /** Loop thread only: the order jobs ended in, to forget the oldest. */
    private final ArrayDeque<Integer> ended = new ArrayDeque<>();
    /** Whether anything is kept: a simulation's timelines would be read by nobody. */
    private final boolean kept;

    /** Timelines that are kept, for {@link #timeline} and the journal's {@code done} events. */
    public Timelines() {
        this(true);
    }

    private Timelines(boolean kept) {
        this.kept = kept;
    }

    /**
     * Timelines of a run that keeps nothing (a simulation: its journal is thrown away and nobody asks
     * for a timeline while it runs): every sample is dropped, {@link #timeline} is always empty and
     * {@link #ended} gives no points.
     *
     * @return timelines that keep nothing
     */
    public static Timelines none() {
        return new Timelines(false);
    }

    /** Loop thread: one sample of a running attempt, after its peaks were updated. */
    void sample(RunningJob rj, Instant now) {
        if (!kept) {
            return;
        }
        tracks.computeIfAbsent(rj.no, no -> new VramTrack(no, rj.startedAt)).sample(rj, now);
    }

    /**
     * Loop thread: job {@code no}'s attempt, started at {@code started}, failed with CUDA OOM and is
     * retried. Marked even when it ended before its first sample.
     */
    public void oomRetry(int no, long run, Instant started, OptionalLong declared, OptionalLong next, Instant now) {
        if (!kept) {
            return;
        }
        tracks.computeIfAbsent(no, n -> new VramTrack(n, started)).oomRetry(run, started, declared, next, now);
    }

    /**
     * Loop thread: job {@code no} ended for good, its last attempt (run {@code run}, started at
     * {@code started}, declared {@code declared}) with it; that attempt is kept even if never sampled.
     *
     * @return its timeline's summary for the journal, at most {@link #SUMMARY_POINTS} points, each
     *     {@code {ms since its start, MiB}}; empty when it was never sampled
     */
    public List<long[]> ended(int no, long run, Instant started, OptionalLong declared) {
        if (!kept) {
            return List.of();
        }
        VramTrack t = tracks.computeIfAbsent(no, n -> new VramTrack(n, started));
        t.attempt(run, started, declared);
        ended.remove(no);
        ended.add(no);
        while (ended.size() > KEEP_ENDED) {
            tracks.remove(ended.poll());
        }
        return t.summary(SUMMARY_POINTS);
    }

    /** Any thread. */
    public Optional<VramTimeline> timeline(int no) {
        VramTrack t = tracks.get(no);
        return t == null ? Optional.empty() : Optional.of(t.snapshot());
    }
}

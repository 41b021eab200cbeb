package io.gpusched.engine.observe;

import io.gpusched.engine.spawn.RunningJob;

import io.gpusched.model.VramTimeline;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * One job's memory timeline while the scheduler knows it: written by the loop (each sample, each OOM
 * retry), read as an immutable {@link VramTimeline} by any thread. The lock is held for an append or a
 * copy of at most {@link VramTimeline#MAX_POINTS} points, and is all but never contended.
 */
final class VramTrack {
    private final int no;
    private final Instant origin;
    private final VramRing ring = new VramRing(VramTimeline.MAX_POINTS);
    private final List<VramTimeline.Attempt> attempts = new ArrayList<>();
    private final List<VramTimeline.OomRetry> ooms = new ArrayList<>();
    private long peak;
    /** The run number of the attempt sampled last: a new one starts a new attempt. */
    private long run = -1;

    VramTrack(int no, Instant origin) {
        this.no = no;
        this.origin = origin;
    }

    /** A sample of a running attempt: its largest per-GPU use now. */
    synchronized void sample(RunningJob rj, Instant now) {
        attempt(rj.run, rj.startedAt, rj.declaredMib);
        long mib = 0;
        for (long m : rj.currentMib.values()) {
            mib = Math.max(mib, m);
        }
        peak = Math.max(peak, mib);
        ring.add(since(now).toMillis(), mib);
    }

    /**
     * An attempt failed with CUDA OOM and goes back to the queue; one that ended before its first sample is
     * added as an attempt here, so its declaration shows too.
     */
    synchronized void oomRetry(long run, Instant started, OptionalLong declared, OptionalLong next, Instant now) {
        attempt(run, started, declared);
        ooms.add(new VramTimeline.OomRetry(since(now), attempts.size(), next));
    }

    /** The attempt of run {@code run}: a new one unless it is the one seen last. */
    synchronized void attempt(long run, Instant started, OptionalLong declared) {
        if (run != this.run) {
            this.run = run;
            attempts.add(new VramTimeline.Attempt(attempts.size() + 1, since(started), declared));
        }
    }

    synchronized VramTimeline snapshot() {
        List<VramTimeline.Point> points = new ArrayList<>();
        for (long[] p : ring.points()) {
            points.add(new VramTimeline.Point(Duration.ofMillis(p[0]), p[1]));
        }
        return new VramTimeline(no, origin, points, attempts, ooms, peak);
    }

    /** @return at most {@code n} points, each {@code {ms since the start, MiB}}, the highest kept */
    synchronized List<long[]> summary(int n) {
        return VramRing.downsample(ring.points(), n);
    }

    private Duration since(Instant t) {
        Duration d = Duration.between(origin, t);
        return d.isNegative() ? Duration.ZERO : d;
    }
}

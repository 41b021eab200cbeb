package io.gpusched.dashboard;

import io.gpusched.event.QueueSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Each GPU's memory in use and utilisation over the last few minutes, for the page's small per-GPU
 * charts: one point per queue snapshot the scheduler's loop published (its rounds, every {@code --poll}
 * and whenever a job starts or ends), which carry the backend's last reading; nothing is read from the
 * GPUs for it. At most one point per {@link #MIN_STEP_MS} and {@link #MAX_POINTS} per GPU (the oldest
 * go), so a fast {@code --poll} cannot make it large. Only the dashboard's tick thread uses it.
 */
final class GpuHistory {
    /** The points kept per GPU: 25 minutes at the default 5 s poll, 5 minutes at the fastest. */
    static final int MAX_POINTS = 300;
    /** The least time between two points, in ms. */
    static final long MIN_STEP_MS = 1000;

    private final Map<Integer, Deque<List<Object>>> byGpu = new TreeMap<>();
    private Instant last = Instant.MIN;

    /**
     * Adds a point per GPU of {@code s} unless it was taken less than {@link #MIN_STEP_MS} after the last
     * point (the same snapshot again, or a burst of rounds); one from before the last point (the clock
     * was set back) is taken, so the chart does not stop until the clock catches up.
     *
     * @return the points added, by GPU index; empty when none was
     */
    Map<Integer, List<List<Object>>> record(QueueSnapshot s) {
        if (s.gpus().isEmpty() || !s.at().isBefore(last) && s.at().isBefore(last.plusMillis(MIN_STEP_MS))) {
            return Map.of();
        }
        last = s.at();
        Map<Integer, List<List<Object>>> added = new TreeMap<>();
        for (GpuStat g : s.gpus()) {
            List<Object> p = point(s.at(), g);
            Deque<List<Object>> ring = byGpu.computeIfAbsent(g.index(), i -> new ArrayDeque<>());
            ring.addLast(p);
            while (ring.size() > MAX_POINTS) {
                ring.removeFirst();
            }
            added.put(g.index(), List.of(p));
        }
        return added;
    }

    /** @return every point kept, oldest first, by GPU index */
    Map<Integer, List<List<Object>>> all() {
        Map<Integer, List<List<Object>>> out = new TreeMap<>();
        byGpu.forEach((gpu, ring) -> out.put(gpu, new ArrayList<>(ring)));
        return out;
    }

    /**
     * One point as the page reads it: {@code [ms since the epoch, MiB in use by anyone, utilisation 0-100
     * or null where the GPU reports none]}; an array, not an object, as a page gets hundreds of them.
     */
    private static List<Object> point(Instant at, GpuStat g) {
        return Arrays.asList(at.toEpochMilli(), g.usedMib(), g.utilPercent().isPresent() ? g.utilPercent().getAsInt() : null);
    }
}

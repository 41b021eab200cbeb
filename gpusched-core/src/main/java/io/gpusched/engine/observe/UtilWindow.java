package io.gpusched.engine.observe;

import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Each GPU's recent utilisation for {@code --max-util}: the mean of its readings (the backend's
 * util_percent) over the last {@link #WINDOW}. A mean over a window, not the last reading, so one busy or
 * idle sample does not flip placement; 30 s, so a GPU that just went idle takes jobs again within seconds
 * (after a long busy spell the mean falls below 80 % once about 4 s of idle readings are in it).
 */
final class UtilWindow {
    /** How far back readings count. */
    static final Duration WINDOW = Duration.ofSeconds(30);
    /** Readings kept per GPU at most, whatever the sample interval, so memory stays bounded. */
    static final int MAX_READINGS = 1024;

    private record Reading(Instant at, int percent) {
    }

    private final Map<Integer, ArrayDeque<Reading>> byGpu = new HashMap<>();

    /**
     * Adds a sample's readings; GPUs without one keep their earlier readings until these age out. A
     * reading dated after {@code now} was taken before the wall clock was set back: how old it is cannot be
     * told, so it goes (kept, it counted until the clock caught up with it, a day after a day's step, or
     * until {@link #MAX_READINGS} newer ones pushed it out: minutes of a GPU held back by readings of before).
     *
     * @param now when the sample was taken
     * @param snap the sample
     */
    void record(Instant now, GpuSnapshot snap) {
        for (GpuStat g : snap.gpus()) {
            ArrayDeque<Reading> readings = byGpu.computeIfAbsent(g.index(), i -> new ArrayDeque<>());
            g.utilPercent().ifPresent(p -> readings.addLast(new Reading(now, p)));
            while (!readings.isEmpty() && (readings.size() > MAX_READINGS
                    || readings.peekFirst().at().isBefore(now.minus(WINDOW)) || readings.peekFirst().at().isAfter(now))) {
                readings.removeFirst();
            }
        }
    }

    /**
     * @param gpu a GPU index
     * @return the mean of its readings in the window in whole percent (rounded half up); empty when it
     *     has none
     */
    OptionalInt recent(int gpu) {
        ArrayDeque<Reading> readings = byGpu.get(gpu);
        if (readings == null || readings.isEmpty()) {
            return OptionalInt.empty();
        }
        long sum = 0;
        for (Reading r : readings) {
            sum += r.percent();
        }
        return OptionalInt.of((int) ((2 * sum + readings.size()) / (2L * readings.size())));
    }
}

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

    /**
     * The readings of GPUs the backend names, by UUID: when it renumbers them (MIG instances created or
     * destroyed on an earlier GPU), the device that takes an index does not inherit the mean of the one
     * that left it, and the one that moved keeps its own.
     */
    private final Map<String, ArrayDeque<Reading>> byUuid = new HashMap<>();
    /** The readings of GPUs without a UUID (simulated ones), by index. */
    private final Map<Integer, ArrayDeque<Reading>> byIndex = new HashMap<>();

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
        int named = 0;
        for (GpuStat g : snap.gpus()) {
            ArrayDeque<Reading> readings;
            if (g.uuid().isPresent()) {
                named++;
                readings = byUuid.computeIfAbsent(g.uuid().get(), u -> new ArrayDeque<>());
            } else {
                readings = byIndex.computeIfAbsent(g.index(), i -> new ArrayDeque<>());
            }
            g.utilPercent().ifPresent(p -> readings.addLast(new Reading(now, p)));
            while (!readings.isEmpty() && (readings.size() > MAX_READINGS
                    || readings.peekFirst().at().isBefore(now.minus(WINDOW)) || readings.peekFirst().at().isAfter(now))) {
                readings.removeFirst();
            }
        }
        if (byUuid.size() > named) {
            // A device no longer listed (a destroyed MIG instance's UUID never comes back): its readings go,
            // or every reconfiguration would leave a window behind for good. Rare: the map is checked by size.
            java.util.Set<String> listed = new java.util.HashSet<>();
            snap.gpus().forEach(g -> g.uuid().ifPresent(listed::add));
            byUuid.keySet().retainAll(listed);
        }
    }

    /**
     * @param gpu a GPU as just read
     * @return the mean of its readings in the window in whole percent (rounded half up), found by its
     *     UUID where it has one and by its index where not; empty when it has none
     */
    OptionalInt recent(GpuStat gpu) {
        return mean(gpu.uuid().isPresent() ? byUuid.get(gpu.uuid().get()) : byIndex.get(gpu.index()));
    }

    /**
     * @param gpu the index of a GPU without a UUID
     * @return the mean of its readings in the window in whole percent (rounded half up); empty when it
     *     has none
     */
    OptionalInt recent(int gpu) {
        return mean(byIndex.get(gpu));
    }

    private static OptionalInt mean(ArrayDeque<Reading> readings) {
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

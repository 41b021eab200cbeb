package io.gpusched.engine;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Where each waiting job stands beside its priority: since when it waits (for aging and reservations),
 * and, for a job whose time slice ended, its place at the back of the queue. Kept in memory: after a
 * restart file jobs wait from the restart (submissions from their submit time) and time-sliced jobs are
 * back at their source position.
 */
final class QueuePositions {
    private final Map<String, Instant> since = new HashMap<>();
    private final Map<String, Long> atTheBack = new HashMap<>();
    private long backs;

    /** @return since when the job waits, fixed the first time it is asked for */
    Instant since(String key, Function<String, Instant> firstSeen) {
        return since.computeIfAbsent(key, firstSeen);
    }

    /** @return its position: the source's, or its place at the back once its time slice ended */
    long position(String key, long sourcePosition) {
        return atTheBack.getOrDefault(key, sourcePosition);
    }

    /** Its time slice ended: behind every job, waiting from now. */
    void toTheBack(String key, Instant now) {
        atTheBack.put(key, Long.MAX_VALUE / 2 + backs++);
        since.put(key, now);
    }

    /** It ended for good: forget it. */
    void forget(String key) {
        since.remove(key);
        atTheBack.remove(key);
    }
}

package io.gpusched.jobs;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;

/**
 * Bytes the current thread allocates while some code runs: a deterministic measure of memory cost,
 * unlike heap occupancy, which depends on when the collector ran. Reached by reflection because the
 * tests compile inside the {@code io.gpusched} module, which does not read {@code jdk.management}.
 */
public final class AllocationMeter {
    private AllocationMeter() {
    }

    /**
     * @param r the code to measure, run on the calling thread
     * @return bytes allocated by this thread while it ran
     */
    public static long allocatedBy(Runnable r) {
        Method current;
        Object bean;
        try {
            bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            Class<?> hotspot = Class.forName("com.sun.management.ThreadMXBean");
            assumeTrue(hotspot.isInstance(bean), "no per-thread allocation counter on this JVM");
            current = hotspot.getMethod("getCurrentThreadAllocatedBytes");
            long before = (Long) current.invoke(bean);
            assumeTrue(before >= 0, "per-thread allocation counting is off");
            r.run();
            return (Long) current.invoke(bean) - before;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("cannot read the thread allocation counter", e);
        }
    }
}

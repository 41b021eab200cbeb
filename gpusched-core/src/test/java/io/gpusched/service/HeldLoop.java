package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.jobs.JobSpec;
import io.gpusched.model.SubmitContext;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Holds a scheduler's loop still on demand, so a test can see what waits for it: a listener (run on the
 * loop's thread) that, once {@link #hold} armed it, blocks at the next board until {@link #release}
 * (30 s at most).
 */
final class HeldLoop implements Consumer<SchedulerEvent>, AutoCloseable {
    private final AtomicBoolean armed = new AtomicBoolean();
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void accept(SchedulerEvent e) {
        if (e instanceof SchedulerEvent.StatusUpdated && armed.getAndSet(false)) {
            held.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Holds the running scheduler's loop at its next board (a submission of its own brings one on at once) and
     * returns once it is held.
     */
    void hold(Scheduler s, Path dir) throws InterruptedException {
        armed.set(true);
        s.submitWithoutWaiting(JobSpec.parse("[vram=1G] echo wake"), new SubmitContext("ada", dir, Optional.of(Map.of()),
                Optional.empty(), Optional.empty(), OptionalInt.empty()));
        assertTrue(held.await(20, TimeUnit.SECONDS), "the loop is held");
    }

    /** Lets the loop go on. */
    void release() {
        release.countDown();
    }

    @Override
    public void close() {
        release();
    }
}

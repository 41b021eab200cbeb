package io.gpusched.engine.observe;

import io.gpusched.engine.FaultyBackend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BoundedBackendTest {
    private static final Duration BOUND = Duration.ofMillis(200);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private static GpuSnapshot idle() {
        return new GpuSnapshot(List.of(GpuStat.of(0, 24_000, 0)), List.of());
    }

    @Test
    void answersInTimeArePassedThroughFromOneWorkerThread() {
        FaultyBackend gpus = new FaultyBackend(24_000);
        gpus.usedMib = 1234;
        try (BoundedBackend bounded = new BoundedBackend(gpus, Duration.ofSeconds(30))) {
            for (int i = 0; i < 5; i++) {
                assertEquals(1234, bounded.snapshot().gpus().get(0).usedMib());
            }
        }
        assertEquals(5, gpus.calls.get());
        assertEquals(1, gpus.callers.size(), "every call runs on the one worker");
        assertTrue(gpus.callers.stream().noneMatch(t -> t == Thread.currentThread()), "never on the caller's thread");
    }

    @Test
    void backendFailuresKeepTheirMessageAndOtherExceptionsTheirType() {
        FaultyBackend gpus = new FaultyBackend(24_000);
        gpus.failing = n -> n == 1;
        try (BoundedBackend bounded = new BoundedBackend(gpus, Duration.ofSeconds(30))) {
            assertEquals("injected failure of call 1", assertThrows(BackendException.class, bounded::snapshot).getMessage());
            assertEquals(24_000, bounded.snapshot().gpus().get(0).totalMib(), "a failure does not poison later calls");
            gpus.failing = n -> {
                throw new UnsupportedOperationException("not on this driver");
            };
            assertEquals("not on this driver", assertThrows(UnsupportedOperationException.class, bounded::snapshot).getMessage());
        }
    }

    @Test
    void aCallOverTheBoundFailsAndWhileItHangsNoOtherCallIsMade() throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        try (BoundedBackend bounded = new BoundedBackend(gpus, BOUND)) {
            gpus.hangNextCall(idle());
            BackendException first = assertThrows(BackendException.class, bounded::snapshot);
            assertEquals("GPU backend did not answer within 0.2 s", first.getMessage());
            assertTrue(gpus.hanging());
            for (int i = 0; i < 20; i++) {
                BackendException again = assertThrows(BackendException.class, bounded::snapshot);
                assertTrue(again.getMessage().startsWith("GPU backend still stuck on a query sent "), again.getMessage());
                assertTrue(again.getMessage().contains("over the 0.2 s bound"), again.getMessage());
            }
            assertEquals(1, gpus.calls.get(), "calls were stacked on a hung one");
            assertEquals(1, gpus.callers.size());
            gpus.release();
            assertTrue(FaultyBackend.await(() -> !gpus.hanging(), WAIT));
            gpus.usedMib = 777;
            // The late answer (an idle GPU, as it was when asked) is dropped: the next call asks again.
            assertTrue(FaultyBackend.await(() -> {
                try {
                    return bounded.snapshot().gpus().get(0).usedMib() == 777;
                } catch (BackendException stillFinishing) {
                    return false;
                }
            }, WAIT));
            // More than 2 only if a retry itself overran on a loaded machine; never two at once.
            assertTrue(gpus.calls.get() >= 2);
            assertEquals(1, gpus.mostAtOnce.get());
            assertEquals(1, gpus.callers.size(), "the worker survives an overrun");
        }
    }

    @Test
    void closeEndsTheWorkerEvenWhileACallHangs() throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        BoundedBackend bounded = new BoundedBackend(gpus, BOUND);
        gpus.hangNextCall(idle());
        assertThrows(BackendException.class, bounded::snapshot);
        Thread worker = gpus.callers.iterator().next();
        assertTrue(worker.isDaemon(), "a stuck driver call must not keep the JVM alive");
        bounded.close();
        assertTrue(FaultyBackend.await(() -> !worker.isAlive(), WAIT), "the worker outlived close()");
        assertEquals(1, gpus.callers.size());
    }

    @Test
    void boundIsShownInSecondsAsTheUserGaveIt() {
        assertEquals("10 s", BoundedBackend.seconds(Duration.ofSeconds(10)));
        assertEquals("0.25 s", BoundedBackend.seconds(Duration.ofMillis(250)));
        assertEquals("1.5 s", BoundedBackend.seconds(Duration.ofMillis(1500)));
    }

    private static void awaitCalls(FaultyBackend gpus, int n) throws InterruptedException {
        for (int i = 0; i < 2000 && gpus.calls.get() < n; i++) {
            Thread.sleep(5);
        }
        assertEquals(n, gpus.calls.get());
    }

    @Test
    void aSnapshotAskedAtAnExit_isTakenByTheRoundThatFollows_withoutAskingTheBackendAgain() throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        gpus.usedMib = 777;
        try (BoundedBackend bounded = new BoundedBackend(gpus, Duration.ofSeconds(30))) {
            bounded.ask();
            awaitCalls(gpus, 1); // the backend works before anyone waits for it
            bounded.ask(); // asked already: not twice
            assertEquals(777, bounded.snapshot().gpus().get(0).usedMib());
            assertEquals(1, gpus.calls.get(), "the asked answer was taken, not asked again");
            bounded.snapshot();
            assertEquals(2, gpus.calls.get(), "taken once: the next call asks anew");
        }
    }

    @Test
    void anAskedSnapshotNotTakenInTime_isNotPassedOffAsTheGpusNow() throws Exception {
        FaultyBackend gpus = new FaultyBackend(24_000);
        try (BoundedBackend bounded = new BoundedBackend(gpus, Duration.ofSeconds(30))) {
            gpus.usedMib = 100;
            bounded.ask();
            awaitCalls(gpus, 1);
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(BoundedBackend.ASKED_FRESH_NANOS) + 50);
            gpus.usedMib = 200;
            assertEquals(200, bounded.snapshot().gpus().get(0).usedMib(), "an old answer was taken");
            assertEquals(2, gpus.calls.get());
        }
    }

    @Test
    void aBackendAskedInline_isNotAskedAhead() {
        FaultyBackend gpus = new FaultyBackend(24_000);
        BoundedBackend inline = BoundedBackend.inline(gpus);
        inline.ask();
        assertEquals(0, gpus.calls.get());
        inline.snapshot();
        assertEquals(1, gpus.calls.get());
    }
}

package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** NVML failing as a whole after start-up, its recovery, and shutting down. */
class NvmlRecoveryTest {
    private static final String MISMATCH = "fail fn=nvmlDeviceGetCount_v2 rc=18";

    @TempDir
    Path dir;

    private final ManualNanoClock clock = new ManualNanoClock();
    private FakeNvml fake;
    private NvmlBackend backend;

    @BeforeEach
    void open() {
        fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        backend = fake.open(clock);
    }

    @AfterEach
    void close() {
        backend.close();
    }

    @Test
    void versionMismatchDuringASnapshotThrowsNamingTheCause() {
        fake.state(FakeNvml.TWO_GPUS, MISMATCH);
        BackendException e = assertThrows(BackendException.class, backend::snapshot);
        assertTrue(e.getMessage().startsWith("NVML: driver/library version mismatch — the NVIDIA driver was probably"
                + " upgraded without a reboot; reboot or reload the kernel module"), e.getMessage());
    }

    @Test
    void unloadedDriverDuringASnapshotThrowsNamingTheCause() {
        fake.state(FakeNvml.TWO_GPUS, "fail fn=nvmlDeviceGetMemoryInfo gpu=1 rc=9");
        BackendException e = assertThrows(BackendException.class, backend::snapshot);
        assertTrue(e.getMessage().contains("kernel driver is not loaded"), e.getMessage());
    }

    @Test
    void reinitIsAttemptedAtMostOnceEveryFiveSeconds() {
        fake.state(FakeNvml.TWO_GPUS, MISMATCH);
        assertThrows(BackendException.class, backend::snapshot);
        int initsAfterFailure = fake.initCalls();
        clock.advance(Duration.ofSeconds(4));
        assertThrows(BackendException.class, backend::snapshot);
        assertEquals(initsAfterFailure, fake.initCalls(), "no re-init within 5 s of the failure");
        clock.advance(Duration.ofSeconds(1));
        assertThrows(BackendException.class, backend::snapshot);
        assertEquals(initsAfterFailure + 1, fake.initCalls(), "one re-init once 5 s have passed");
        assertThrows(BackendException.class, backend::snapshot);
        assertEquals(initsAfterFailure + 1, fake.initCalls());
    }

    @Test
    void failedReinitKeepsNamingTheCause() {
        fake.state(FakeNvml.TWO_GPUS, MISMATCH, "fail fn=nvmlInit_v2 rc=18");
        assertThrows(BackendException.class, backend::snapshot);
        clock.advance(Duration.ofSeconds(5));
        BackendException e = assertThrows(BackendException.class, backend::snapshot);
        assertTrue(e.getMessage().contains("driver/library version mismatch"), e.getMessage());
    }

    @Test
    void backendRecoversOnceReinitSucceeds() {
        fake.state(FakeNvml.TWO_GPUS, MISMATCH);
        assertThrows(BackendException.class, backend::snapshot);
        fake.state(FakeNvml.TWO_GPUS);
        clock.advance(Duration.ofSeconds(5));
        assertEquals(2, backend.snapshot().gpus().size());
        assertEquals(1, fake.refCount(), "the failed session was shut down before the new init");
    }

    @Test
    void closeShutsNvmlDownExactlyOnce() {
        assertEquals(1, fake.refCount());
        backend.close();
        assertEquals(0, fake.refCount());
        assertDoesNotThrow(backend::close);
        assertEquals(0, fake.refCount());
    }

    @Test
    void snapshotAfterCloseThrowsIllegalState() {
        backend.close();
        assertThrows(IllegalStateException.class, backend::snapshot);
    }

    @Test
    void closingAFailedBackendDoesNotShutDownTwice() {
        fake.state(FakeNvml.TWO_GPUS, MISMATCH);
        assertThrows(BackendException.class, backend::snapshot);
        assertEquals(0, fake.refCount());
        assertDoesNotThrow(backend::close);
        assertEquals(0, fake.refCount());
    }
}

package io.gpusched.testkit.fake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import io.gpusched.gpu.GpuStat;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ScriptedGpuBackendTest {
    @Test
    void reportsWhatWasScripted() {
        var b = ScriptedGpuBackend.withGpus(2, 24_000).used(0, 3_000).process(0, 42, 5_000).process(1, 43, 1_000)
                .util(1, 70).warning("w");
        GpuSnapshot s = b.snapshot();
        GpuStat g0 = s.gpu(0).orElseThrow();
        assertEquals(24_000, g0.totalMib());
        assertEquals(8_000, g0.usedMib(), "unaccounted use plus processes");
        assertEquals(OptionalInt.empty(), g0.utilPercent());
        assertEquals(OptionalInt.of(70), s.gpu(1).orElseThrow().utilPercent());
        assertEquals(List.of(new GpuProcess(0, 42, 5_000), new GpuProcess(1, 43, 1_000)), s.processes());
        assertEquals(List.of("w"), s.warnings());
    }

    @Test
    void processesChangeAndLeave() {
        var b = ScriptedGpuBackend.withGpus(1, 10_000).process(0, 42, 1_000);
        b.process(0, 42, 2_500);
        assertEquals(List.of(new GpuProcess(0, 42, 2_500)), b.snapshot().processes());
        b.removeProcess(42);
        assertEquals(0, b.snapshot().gpu(0).orElseThrow().usedMib());
        b.process(0, 1, 20_000);
        assertEquals(10_000, b.snapshot().gpu(0).orElseThrow().usedMib(), "clamped at the total");
        b.clearProcesses();
        assertTrue(b.snapshot().processes().isEmpty());
    }

    @Test
    void sparseIndicesAndUnhealthyGpus() {
        var b = ScriptedGpuBackend.withGpus(1, 1_000).gpu(3, 2_000).healthy(3, false);
        GpuSnapshot s = b.snapshot();
        assertEquals(List.of(0, 3), s.gpus().stream().map(GpuStat::index).toList());
        assertFalse(s.gpu(3).orElseThrow().healthy());
        assertThrows(IllegalArgumentException.class, () -> b.used(1, 10));
        assertThrows(IllegalArgumentException.class, () -> b.process(0, 1, -1));
    }

    @Test
    void failNextSnapshotsThenRecovers() {
        var b = ScriptedGpuBackend.withGpus(1, 1_000).failNextSnapshots(2);
        assertThrows(BackendException.class, b::snapshot);
        assertThrows(BackendException.class, b::snapshot);
        b.snapshot();
        assertEquals(3, b.snapshotCount());
        assertEquals(2, b.failedSnapshotCount());
    }

    @Test
    void failAlwaysUntilSwitchedOff() {
        var b = ScriptedGpuBackend.withGpus(1, 1_000).failAlways(true);
        for (int i = 0; i < 5; i++) {
            assertThrows(BackendException.class, b::snapshot);
        }
        b.failAlways(false);
        b.snapshot();
        assertEquals(6, b.snapshotCount());
    }

    @Test
    void environmentDescribeAndClose() {
        var b = ScriptedGpuBackend.withGpus(2, 1_000).environment("A", "1");
        assertEquals(Map.of("A", "1"), b.jobEnvironment());
        assertEquals("scripted (2 GPUs)", b.describe());
        b.close();
        b.close();
        assertTrue(b.isClosed());
        assertThrows(BackendException.class, b::snapshot);
    }

    @Test
    void snapshotsStayConsistentWhileTheTestThreadMutates() throws Exception {
        var b = ScriptedGpuBackend.withGpus(2, 100_000);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> problem = new AtomicReference<>();
        Thread scheduler = new Thread(() -> {
            while (!stop.get()) {
                GpuSnapshot s = b.snapshot();
                long listed = s.processes().stream().filter(p -> p.gpu() == 0).mapToLong(GpuProcess::usedMib).sum();
                if (listed != s.gpu(0).orElseThrow().usedMib()) {
                    problem.set("torn snapshot: " + s);
                }
            }
        });
        scheduler.start();
        assertTrue(b.awaitSnapshotCount(1, Duration.ofSeconds(10)));
        for (int i = 0; i < 20_000; i++) {
            b.process(0, i % 50, i % 1000);
            if (i % 7 == 0) {
                b.removeProcess((i + 3) % 50);
            }
        }
        stop.set(true);
        scheduler.join();
        assertEquals(null, problem.get());
    }

    @Test
    void awaitSnapshotCountTimesOut() throws Exception {
        var b = ScriptedGpuBackend.withGpus(1, 1_000);
        assertFalse(b.awaitSnapshotCount(1, Duration.ofMillis(20)));
    }
}

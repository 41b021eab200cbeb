package io.gpusched.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class GpuBackendsTest {

    @Test
    void providersAreFoundThroughServiceLoaderByDescendingPriority() {
        List<String> names = GpuBackends.providers().stream().map(GpuBackendProvider::name).toList();
        assertEquals(List.of("test-missing", "test-present", "test-sim"), names);
    }

    @Test
    void loadByNamePassesTheOptions() {
        try (GpuBackend b = GpuBackends.load("test-present", BackendOptions.of("tag", "x"))) {
            assertEquals("test-present x", b.describe());
            assertEquals(1, b.snapshot().gpus().size());
        }
    }

    @Test
    void unknownNameListsWhatWasFound() {
        BackendException e = assertThrows(BackendException.class, () -> GpuBackends.load("dcgm", BackendOptions.none()));
        assertEquals("unknown GPU backend 'dcgm'; found: test-missing, test-present, test-sim", e.getMessage());
    }

    @Test
    void loadingAnUnavailableBackendGivesItsReason() {
        BackendException e = assertThrows(BackendException.class, () -> GpuBackends.load("test-missing", BackendOptions.none()));
        assertEquals("test-missing: library not here", e.getMessage());
    }

    @Test
    void detectSkipsUnavailableAndNeverPicksSimulations() {
        try (GpuBackend b = GpuBackends.detect(BackendOptions.none())) {
            assertTrue(b.describe().startsWith("test-present"));
        }
    }

    @Test
    void snapshotRejectsDuplicateGpuIndices() {
        assertThrows(IllegalArgumentException.class,
                () -> new GpuSnapshot(List.of(GpuStat.of(0, 1, 0), GpuStat.of(0, 1, 0)), List.of()));
    }
}

package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendException;
import io.gpusched.gpu.BackendOptions;
import io.gpusched.gpu.GpuBackend;
import io.gpusched.gpu.GpuBackendProvider;
import io.gpusched.gpu.GpuBackends;
import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SimulatedGpuBackendProviderTest {
    @TempDir
    Path dir;

    private static BackendOptions options(String... keyValues) {
        Map<String, String> m = new java.util.HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return new BackendOptions(m);
    }

    @Test
    void loadsByNameThroughServiceLoader() {
        try (GpuBackend b = GpuBackends.load("sim", BackendOptions.of("gpus", "2"))) {
            SimulatedGpuBackend sim = assertInstanceOf(SimulatedGpuBackend.class, b);
            assertEquals(2, sim.gpuCount());
            assertEquals(2, b.snapshot().gpus().size());
        }
    }

    @Test
    void isRegisteredWithNegativePriority() {
        GpuBackendProvider sim = GpuBackends.providers().stream().filter(p -> p.name().equals("sim")).findFirst()
                .orElseThrow();
        assertTrue(sim.priority() < 0);
    }

    @Test
    void detectNeverPicksSim() {
        try (GpuBackend b = GpuBackends.detect(BackendOptions.of("gpus", "2"))) {
            assertFalse(b instanceof SimulatedGpuBackend, "detect chose the simulation: " + b.describe());
        } catch (BackendException expected) {
            // no real backend on this class path: refusing is right
        }
    }

    @Test
    void allOptions() {
        var o = options("gpus", "3", "mib", "80G", "external", "0=1200, 2=0.5G", "dir", dir.toString());
        try (var b = (SimulatedGpuBackend) new SimulatedGpuBackendProvider().create(o)) {
            assertEquals(81_920, b.totalMib());
            assertEquals(Map.of(0, 1200L, 2, 512L), b.externalMib());
            assertEquals(dir, b.directory());
            GpuSnapshot s = b.snapshot();
            assertEquals(List.of(new GpuProcess(0, SimulatedGpuBackend.EXTERNAL_PID, 1200),
                    new GpuProcess(2, SimulatedGpuBackend.EXTERNAL_PID, 512)), s.processes());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "mib=100", "gpus=0", "gpus=two", "gpus=2;mib=lots", "gpus=2;external=2=100",
            "gpus=2;external=0:100", "gpus=2;external=x=100", "gpus=2;external=0=much", "gpus=2;gpu=2"})
    void badOptionsAreRefusedWithAReason(String spec) {
        Map<String, String> m = new java.util.HashMap<>();
        for (String kv : spec.split(";")) {
            if (!kv.isEmpty()) {
                int eq = kv.indexOf('=');
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        var o = new BackendOptions(m);
        var provider = new SimulatedGpuBackendProvider();
        var availability = provider.availability(o);
        assertFalse(availability.available());
        assertTrue(availability.reason().startsWith("sim: "), availability.reason());
        var e = assertThrows(BackendException.class, () -> provider.create(o));
        assertEquals(availability.reason(), e.getMessage());
    }
}

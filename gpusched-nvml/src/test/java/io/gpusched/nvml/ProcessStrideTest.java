package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.GpuProcess;
import io.gpusched.gpu.GpuSnapshot;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Process lists decode correctly whatever the driver generation, including the R535 drivers that
 * wrote 32-byte entries through a symbol that promised 24. Several processes per GPU, because the
 * first entry decodes the same at every stride and a one-process test proves nothing.
 */
class ProcessStrideTest {
    private static final String[] THREE_PROCESSES = {
        "gpu uuid=GPU-0 name=X bus=00000000:01:00.0 total_mib=24576 used_mib=9000 util=50",
        "gpu uuid=GPU-1 name=X bus=00000000:02:00.0 total_mib=24576 used_mib=100 util=0",
        "proc gpu=0 pid=101 used_mib=2000",
        "proc gpu=0 pid=202 used_mib=3000",
        "proc gpu=0 pid=4000000 used=na",
        "proc gpu=1 pid=303 used_mib=100",
    };
    private static final List<GpuProcess> EXPECTED = List.of(
            new GpuProcess(0, 101, 2000), new GpuProcess(0, 202, 3000), new GpuProcess(0, 4_000_000, 0),
            new GpuProcess(1, 303, 100));

    @TempDir
    Path dir;

    private NvmlBackend backend;

    @AfterEach
    void close() {
        if (backend != null) {
            backend.close();
        }
    }

    private NvmlBackend open(FakeNvml.Variant variant) {
        backend = FakeNvml.start(variant, dir).state(THREE_PROCESSES).open();
        return backend;
    }

    @ParameterizedTest
    @EnumSource(FakeNvml.Variant.class)
    void severalProcessesPerGpuDecodeUnderEveryDriverVariant(FakeNvml.Variant variant) {
        assertEquals(EXPECTED, open(variant).snapshot().processes());
        assertEquals(EXPECTED, backend.snapshot().processes(), "and again on the next snapshot");
    }

    @Test
    void legacyDriverListsProcessesThroughV1WithSixteenByteEntries() {
        open(FakeNvml.Variant.LEGACY).snapshot();
        assertEquals(16, backend.processStride());
    }

    @Test
    void driverWithoutV3ListsProcessesThroughV2() {
        open(FakeNvml.Variant.NO_V3).snapshot();
        assertEquals(24, backend.processStride());
    }

    @Test
    void legacyDriverHasNoPciBusIdAndNoMig() {
        GpuSnapshot s = open(FakeNvml.Variant.LEGACY).snapshot();
        assertTrue(s.gpus().stream().allMatch(g -> g.pciBusId().isEmpty()));
        assertEquals(2, s.gpus().size());
    }

    @Test
    void r535DriverIsRecognisedBySymbolsAndDecodedAtThirtyTwoBytesWithoutWarning() {
        GpuSnapshot s = open(FakeNvml.Variant.R535).snapshot();
        assertEquals(32, backend.processStride());
        assertEquals(List.of(), s.warnings());
    }

    @Test
    void unlabelledR535EntriesSwitchTheStrideOnceWithOneWarning() {
        GpuSnapshot first = open(FakeNvml.Variant.R535_UNLABELLED).snapshot();
        assertEquals(EXPECTED, first.processes());
        assertEquals(32, backend.processStride());
        assertEquals(1, first.warnings().size(), first.warnings().toString());
        assertTrue(first.warnings().get(0).contains("32-byte process entries where 24 were expected"));
        assertEquals(List.of(), backend.snapshot().warnings(), "the switch is announced once");
    }

    @Test
    void wrongGuessOfThirtyTwoBytesIsUndoneOnAFixedDriver() {
        GpuSnapshot first = open(FakeNvml.Variant.R535_FIXED).snapshot();
        assertEquals(EXPECTED, first.processes());
        assertEquals(24, backend.processStride());
    }

    @Test
    void singleProcessDecidesNothingAboutTheStride() {
        backend = FakeNvml.start(FakeNvml.Variant.R535_UNLABELLED, dir)
                .state(THREE_PROCESSES[0], "proc gpu=0 pid=77 used_mib=5").open();
        assertEquals(List.of(new GpuProcess(0, 77, 5)), backend.snapshot().processes());
        assertEquals(24, backend.processStride());
    }
}

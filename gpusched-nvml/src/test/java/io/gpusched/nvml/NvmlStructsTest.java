package io.gpusched.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JNA layouts must match what a C compiler makes of the same structs, byte for byte in size. */
class NvmlStructsTest {
    @TempDir
    Path dir;

    @Test
    void jnaStructSizesEqualTheCSizes() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        assertEquals(fake.sizeOf("memory"), new NvmlStructs.Memory().size());
        assertEquals(fake.sizeOf("memory_v2"), new NvmlStructs.MemoryV2().size());
        assertEquals(fake.sizeOf("utilization"), new NvmlStructs.Utilization().size());
        assertEquals(fake.sizeOf("pci"), new NvmlStructs.PciInfo().size());
    }

    @Test
    void declaredSizesEqualTheResearchedLayouts() {
        assertEquals(NvmlStructs.MEMORY_SIZE, new NvmlStructs.Memory().size());
        assertEquals(NvmlStructs.MEMORY_V2_SIZE, new NvmlStructs.MemoryV2().size());
        assertEquals(NvmlStructs.UTILIZATION_SIZE, new NvmlStructs.Utilization().size());
        assertEquals(NvmlStructs.PCI_INFO_SIZE, new NvmlStructs.PciInfo().size());
    }

    @Test
    void processEntryStridesEqualTheCSizes() {
        FakeNvml fake = FakeNvml.start(FakeNvml.Variant.MODERN, dir);
        assertEquals(fake.sizeOf("proc_v1"), NvmlSymbols.STRIDE_V1);
        assertEquals(fake.sizeOf("proc_v2"), NvmlSymbols.STRIDE_V2);
        assertEquals(fake.sizeOf("proc_r535"), NvmlSymbols.STRIDE_R535);
    }

    @Test
    void returnCodesAreFourBytesAsJnaExpectsOfAnInt() {
        assertEquals(4, FakeNvml.start(FakeNvml.Variant.MODERN, dir).sizeOf("return"));
    }
}

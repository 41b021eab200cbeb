package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Headroom;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Rejection;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Worked examples of DESIGN §4, with the arithmetic in comments, where a property would hide it. */
class AllocatorExamplesTest {
    private static final long GIB = 1024;
    private static final PlacementPolicy DEFAULTS = PlacementPolicy.defaults(); // margin 512, idle 200, spike 0.10

    private static Tenant declared(long declared, long current, long peak) {
        return new Tenant("aaaaaaaaaaaa#0", OptionalLong.of(declared), current, peak);
    }

    private static GpuView gpu(int index, long total, long used, long externalPeaks, Tenant... tenants) {
        return new GpuView(index, total, used, externalPeaks, List.of(tenants), true);
    }

    @Test
    void justStartedJobReservesItsWholeDeclarationAtZeroMibUsed() {
        // 24576 total − 18432 reserved by a job that has not allocated anything yet = 6144 MiB.
        GpuView g = gpu(0, 24 * GIB, 0, 0, declared(18 * GIB, 0, 0));
        assertEquals(6 * GIB, Headroom.effective(g, 0.10));
        // 6144 < 6144 + 512, so a second 6 GiB job must wait even though the GPU reads empty.
        assertInstanceOf(Placement.Blocked.class, new Allocator(DEFAULTS).place(Request.declared(6 * GIB, 1), List.of(g)));
    }

    @Test
    void jobOverItsDeclarationIsBudgetedAtItsPeakPlusSpikeBuffer() {
        // Declared 10000, peaked at 12000: budget ⌈12000 × 1.10⌉ = 13200, not 10000.
        assertEquals(13_200, Headroom.budget(declared(10_000, 9_000, 12_000), 0.10));
        // A job using more now than any budget rule gives is counted at its current use.
        assertEquals(15_000, Headroom.budget(declared(10_000, 15_000, 12_000), 0.10));
    }

    @Test
    void spikeBufferIsAppliedInDecimal_1000MibAt10PercentIs1100() {
        // ⌈1000 × 1.10⌉ = 1100; binary floating point gives 1100.0000000000002 and would round to 1101.
        assertEquals(1_100, Headroom.buffered(1_000, 0.10));
        assertEquals(3_806, Headroom.buffered(3_460, 0.10));
        assertEquals(1_001, Headroom.buffered(1_000, 0.0001));
        // Nothing seen stays nothing, whatever the buffer (its shortcut skips the decimal arithmetic).
        assertEquals(0, Headroom.buffered(0, 0.10));
        assertEquals(0, Headroom.buffered(0, 3.5));
        assertEquals(1, Headroom.buffered(1, 0.0));
    }

    @Test
    void externalProcessIsHeldAtItsBufferedPeakDuringATrough() {
        // Others use 1000 now but peaked at 8000: effective external use max(1000, ⌈8000 × 1.10⌉) = 8800.
        GpuView g = gpu(0, 24 * GIB, 1_000, 8_000);
        assertEquals(8_800, Headroom.effectiveExternal(g, 0.10));
        assertEquals(24 * GIB - 8_800, Headroom.effective(g, 0.10));
    }

    @Test
    void undeclaredJobOfOursMakesItsGpuUnavailableToEveryoneElse() {
        GpuView held = gpu(0, 80 * GIB, 100, 0, new Tenant("bbbbbbbbbbbb#0", OptionalLong.empty(), 100, 100));
        Placement p = new Allocator(DEFAULTS).place(Request.declared(1, 1), List.of(held));
        Placement.Blocked blocked = assertInstanceOf(Placement.Blocked.class, p);
        assertEquals(List.of(new Rejection(0, Rejection.Check.NO_UNDECLARED_TENANT, 0, 0)), blocked.rejections());
    }

    @Test
    void bestFitTakesTheSmallestSufficientHoleAndKeepsTheLargeOneFree() {
        // Need 8192 + 512 = 8704: gpu0 has 81920, gpu1 has 24576 − 12288 = 12288, gpu2 has 8192 (too small).
        List<GpuView> gpus = List.of(gpu(0, 80 * GIB, 0, 0), gpu(1, 24 * GIB, 0, 0, declared(12 * GIB, 0, 0)), gpu(2, 8 * GIB, 0, 0));
        assertEquals(new Placement.Placed(List.of(1)), new Allocator(DEFAULTS).place(Request.declared(8 * GIB, 1), gpus));
    }

    @Test
    void equalHeadroomIsBrokenByLowerIndex_andTheResultIsSorted() {
        List<GpuView> gpus = List.of(gpu(3, 24 * GIB, 0, 0), gpu(1, 24 * GIB, 0, 0), gpu(2, 24 * GIB, 0, 0));
        assertEquals(new Placement.Placed(List.of(1, 2)), new Allocator(DEFAULTS).place(Request.declared(GIB, 2), gpus));
    }

    @Test
    void undeclaredJobNeedsExternalUseStrictlyBelowTheIdleThreshold() {
        Allocator allocator = new Allocator(DEFAULTS);
        assertInstanceOf(Placement.Placed.class, allocator.place(Request.undeclared(1), List.of(gpu(0, 24 * GIB, 199, 0))));
        assertInstanceOf(Placement.Blocked.class, allocator.place(Request.undeclared(1), List.of(gpu(0, 24 * GIB, 200, 0))));
    }

    @Test
    void tooFewAllowedGpusIsInfeasible_evenWhenTheGpusAreBusy() {
        PlacementPolicy only0 = new PlacementPolicy(512, 200, 0.10, false, Optional.of(Set.of(0)));
        Placement p = new Allocator(only0).place(Request.declared(GIB, 2), List.of(gpu(0, 80 * GIB, 0, 0), gpu(1, 80 * GIB, 0, 0)));
        assertEquals(new Placement.Infeasible("needs 2 GPUs but only 1 is allowed by --gpus"), p);
    }

    @Test
    void declarationPlusMarginAboveEveryAllowedTotalIsInfeasible() {
        // 24064 + 512 = 24576 fits a 24 GiB GPU exactly; one MiB more never will.
        Allocator allocator = new Allocator(DEFAULTS);
        List<GpuView> gpus = List.of(gpu(0, 24 * GIB, 20 * GIB, 0));
        assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(24 * GIB - 512, 1), gpus));
        Placement p = allocator.place(Request.declared(24 * GIB - 511, 1), gpus);
        Placement.Infeasible infeasible = assertInstanceOf(Placement.Infeasible.class, p);
        assertTrue(infeasible.reason().contains("24577 MiB"), infeasible.reason());
    }

    @Test
    void blockedRejectionsAreListedByGpuIndexWhateverOrderTheBackendReportedThem() {
        // Found by outputDoesNotDependOnTheOrderOfTheGpuList: the rejections used to follow the input order.
        List<GpuView> reported = List.of(gpu(2, 24 * GIB, 20 * GIB, 0), gpu(0, 24 * GIB, 20 * GIB, 0), gpu(1, 24 * GIB, 20 * GIB, 0));
        Placement.Blocked blocked = assertInstanceOf(Placement.Blocked.class,
                new Allocator(DEFAULTS).place(Request.declared(8 * GIB, 1), reported));
        assertEquals(List.of(0, 1, 2), blocked.rejections().stream().map(Rejection::gpu).toList());
    }

    @Test
    void blockedReasonPointsAtTheNearestMiss() {
        List<GpuView> gpus = List.of(gpu(0, 24 * GIB, 0, 0, declared(20 * GIB, 0, 0)), gpu(1, 24 * GIB, 12 * GIB, 0));
        Placement.Blocked blocked = assertInstanceOf(Placement.Blocked.class,
                new Allocator(DEFAULTS).place(Request.declared(18 * GIB, 1), gpus));
        // Need 18432 + 512 = 18944; gpu1 offers 24576 − 12288 = 12288, gpu0 only 4096.
        assertEquals("needs 1 GPU with ≥ 18944 MiB headroom; best is gpu1 with 12288 MiB", blocked.reason());
    }
}

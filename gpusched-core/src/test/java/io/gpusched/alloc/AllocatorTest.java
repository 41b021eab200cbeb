package io.gpusched.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One test per placement rule. GPUs are 24000 MiB unless stated; margin 512, idle threshold 200,
 * spike buffer 0.10 (the defaults), with the arithmetic in comments.
 */
class AllocatorTest {
    private final Allocator allocator = new Allocator(PlacementPolicy.defaults());

    private static GpuView gpu(int index, long used, Tenant... tenants) {
        return new GpuView(index, 24_000, used, 0, List.of(tenants), true);
    }

    private static Tenant declared(String key, long declared, long current, long peak) {
        return new Tenant(key, OptionalLong.of(declared), current, peak);
    }

    private static List<Integer> placed(Placement p) {
        return assertInstanceOf(Placement.Placed.class, p).gpus();
    }

    @Test
    void declaredJobFitsWhenHeadroomCoversDeclarationPlusMargin() {
        // 24000 - 0 >= 18432 + 512
        assertEquals(List.of(0), placed(allocator.place(Request.declared(18432, 1), List.of(gpu(0, 0)))));
        // 24000 - 5100 = 18900 < 18944 -> blocked
        assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(18432, 1), List.of(gpu(0, 5100))));
    }

    @Test
    void justStartedJobReservesItsFullDeclarationAtZeroUse() {
        // tenant uses 0 now but declared 12000: headroom 24000 - 12000 = 12000 < 12000 + 512
        GpuView g = gpu(0, 0, declared("a#0", 12000, 0, 0));
        assertEquals(12000, allocator.headroomMib(g));
        assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(12000, 1), List.of(g)));
        assertEquals(List.of(0), placed(allocator.place(Request.declared(11000, 1), List.of(g))));
    }

    @Test
    void jobWithinItsDeclarationIsBudgetedAtTheDeclaration() {
        // used 6000 (all ours), declared 10000: budget 10000, headroom 14000
        assertEquals(14000, allocator.headroomMib(gpu(0, 6000, declared("a#0", 10000, 6000, 8000))));
    }

    @Test
    void escalatedBudgetShrinksHeadroom() {
        // declared 8000 but peaked 10000: budget ceil(10000 * 1.1) = 11000; headroom 24000 - 11000 = 13000
        GpuView g = gpu(0, 9000, declared("a#0", 8000, 9000, 10000));
        assertEquals(13000, allocator.headroomMib(g));
        // 12800 + 512 = 13312 > 13000: would have fitted under the stale declaration (16000), not now
        assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(12800, 1), List.of(g)));
    }

    @Test
    void budgetIsNeverLessThanCurrentUse() {
        // current 10500 read before the peak caught up (peak 10000 <= declared 10000): budget 10500, not 10000
        assertEquals(10500, Headroom.budget(declared("a#0", 10000, 10500, 10000), 0.1));
        // an undeclared job counts what it uses now
        assertEquals(12000, Headroom.budget(new Tenant("u#0", OptionalLong.empty(), 12000, 12000), 0.1));
    }

    @Test
    void externalTroughIsNotPackable() {
        // an external process peaked at 10000 and now uses 2000: held at ceil(10000 * 1.1) = 11000
        GpuView g = new GpuView(0, 24_000, 2000, 10_000, List.of(), true);
        assertEquals(13000, allocator.headroomMib(g));
        // 15000 + 512 would fit in 24000 - 2000 but not in 13000
        assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(15000, 1), List.of(g)));
    }

    @Test
    void instantaneousExternalUseCountsWhenAbovePeaks() {
        // external processes unseen as processes (e.g. another namespace): used 5000, none ours
        assertEquals(19000, allocator.headroomMib(gpu(0, 5000)));
    }

    @Test
    void undeclaredJobWaitsForFullyIdleGpu() {
        GpuView busy = gpu(0, 300);              // 300 MiB external >= 200 threshold
        GpuView shared = gpu(1, 0, declared("a#0", 1000, 0, 0));
        Placement p = allocator.place(Request.undeclared(1), List.of(busy, shared));
        Placement.Blocked b = assertInstanceOf(Placement.Blocked.class, p);
        assertEquals(Rejection.Check.IDLE, b.rejections().get(0).check());
        assertEquals(Rejection.Check.NO_TENANT, b.rejections().get(1).check());
        assertEquals(List.of(2), placed(allocator.place(Request.undeclared(1), List.of(busy, shared, gpu(2, 150)))));
    }

    @Test
    void undeclaredJobTakesLowestIdleIndex() {
        assertEquals(List.of(1), placed(allocator.place(Request.undeclared(1), List.of(gpu(3, 0), gpu(1, 0), gpu(2, 0)))));
    }

    @Test
    void undeclaredTenantMakesItsGpuUnavailableToEveryone() {
        GpuView g = gpu(0, 100, new Tenant("u#0", OptionalLong.empty(), 100, 100));
        Placement.Blocked b = assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(1000, 1), List.of(g)));
        assertEquals(Rejection.Check.NO_UNDECLARED_TENANT, b.rejections().get(0).check());
    }

    @Test
    void bestFitPicksSmallestSufficientHeadroom() {
        // headrooms: gpu0 24000, gpu1 9000, gpu2 6000; need 5000 + 512 -> gpu2 is the tightest fit
        List<GpuView> gpus = List.of(gpu(0, 0), gpu(1, 15000), gpu(2, 18000));
        assertEquals(List.of(2), placed(allocator.place(Request.declared(5000, 1), gpus)));
        // need 8000 + 512: gpu2 too small, gpu1 is the tightest that fits
        assertEquals(List.of(1), placed(allocator.place(Request.declared(8000, 1), gpus)));
    }

    @Test
    void bestFitTiesGoToLowestIndex() {
        assertEquals(List.of(1), placed(allocator.place(Request.declared(1000, 1), List.of(gpu(2, 0), gpu(1, 0)))));
    }

    @Test
    void multiGpuTakesDistinctGpusEachMeetingTheNeedSortedByIndex() {
        // need 10000 + 512 on each. Headrooms: gpu0 24000, gpu1 8000 (too small), gpu2 24000, gpu3 12000.
        // Best fit takes gpu3 (tightest), then gpu0 (tie with gpu2, lower index); returned sorted.
        List<GpuView> gpus = List.of(gpu(2, 0), gpu(1, 16000), gpu(0, 0), gpu(3, 12000));
        assertEquals(List.of(0, 3), placed(allocator.place(Request.declared(10000, 2), gpus)));
    }

    @Test
    void exclusiveNeverCoLocatesOwnJobs() {
        Allocator exclusive = new Allocator(new PlacementPolicy(512, 200, 0.1, true, Optional.empty()));
        GpuView g = gpu(0, 0, declared("a#0", 1000, 0, 0));
        Placement.Blocked b = assertInstanceOf(Placement.Blocked.class, exclusive.place(Request.declared(1000, 1), List.of(g)));
        assertEquals(Rejection.Check.EXCLUSIVE, b.rejections().get(0).check());
    }

    @Test
    void onlyAllowedGpusAreUsed() {
        Allocator only1 = new Allocator(new PlacementPolicy(512, 200, 0.1, false, Optional.of(Set.of(1))));
        assertEquals(List.of(1), placed(only1.place(Request.declared(1000, 1), List.of(gpu(0, 0), gpu(1, 20000)))));
    }

    @Test
    void infeasibleReason_pinnedGpuTheMachineLacks_namesItAndTheGpusHere() {
        List<GpuView> two = List.of(gpu(0, 0), gpu(1, 0));
        assertEquals(Optional.of("needs 1 GPU but only 0 of its gpu-ids are present (no GPU 2 here; this machine has GPUs 0,1)"),
                allocator.infeasibleReason(Request.declared(1000, 1).pinnedTo(Set.of(2)), two));
        assertEquals(Optional.of("needs 3 GPUs but only 2 of its gpu-ids are present (no GPU 5 here; this machine has GPUs 0,1)"),
                allocator.infeasibleReason(Request.declared(1000, 3).pinnedTo(Set.of(0, 1, 5)), two));
        // Pins the machine has, but fewer than asked for: nothing is missing to name.
        assertEquals(Optional.of("needs 3 GPUs but only 2 are present"),
                allocator.infeasibleReason(Request.declared(1000, 3), two));
    }

    @Test
    void unhealthyGpuIsNeverChosen() {
        GpuView lost = new GpuView(0, 24_000, 0, 0, List.of(), false);
        Placement.Blocked b = assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(1000, 1), List.of(lost)));
        assertEquals(Rejection.Check.HEALTHY, b.rejections().get(0).check());
    }

    @Test
    void aLostGpuWhoseSizeWasNeverReadBlocksADeclaredJobAndNeverMakesItInfeasible() {
        // Lost before its first read (a restart after Xid 79): the backend knows no size, and says 0.
        GpuView lost = new GpuView(1, 0, 0, 0, List.of(), false);
        Placement both = allocator.place(Request.declared(10_000, 2), List.of(gpu(0, 0), lost));
        Placement.Blocked b = assertInstanceOf(Placement.Blocked.class, both);
        assertEquals(Rejection.Check.HEALTHY, b.rejections().get(0).check());
        Placement pinned = allocator.place(Request.declared(10_000, 1).pinnedTo(Set.of(1)), List.of(gpu(0, 0), lost));
        assertInstanceOf(Placement.Blocked.class, pinned);
        // One whose size was read is judged by it, lost or not.
        GpuView lostSmall = new GpuView(1, 8_000, 8_000, 0, List.of(), false);
        assertInstanceOf(Placement.Infeasible.class,
                allocator.place(Request.declared(10_000, 1).pinnedTo(Set.of(1)), List.of(gpu(0, 0), lostSmall)));
    }

    @Test
    void tooLargeForAnyEmptyGpuIsInfeasible() {
        // 23600 + 512 > 24000
        Placement p = allocator.place(Request.declared(23600, 1), List.of(gpu(0, 0), gpu(1, 0)));
        Placement.Infeasible i = assertInstanceOf(Placement.Infeasible.class, p);
        assertTrue(i.reason().contains("24112 MiB"), i.reason());
    }

    @Test
    void moreGpusThanAllowedIsInfeasible() {
        Allocator only1 = new Allocator(new PlacementPolicy(512, 200, 0.1, false, Optional.of(Set.of(1))));
        Placement.Infeasible i = assertInstanceOf(Placement.Infeasible.class,
                only1.place(Request.undeclared(2), List.of(gpu(0, 0), gpu(1, 0))));
        assertTrue(i.reason().contains("allowed by --gpus"), i.reason());
    }

    @Test
    void blockedNowIsNotInfeasible() {
        // fits an empty GPU, not the busy one now
        assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(20000, 1), List.of(gpu(0, 10000))));
    }

    @Test
    void blockedReasonNamesTheNearestMiss() {
        List<GpuView> gpus = List.of(gpu(0, 20000), gpu(1, 11970));
        Placement.Blocked b = assertInstanceOf(Placement.Blocked.class, allocator.place(Request.declared(18432, 1), gpus));
        assertEquals("needs 1 GPU with ≥ 18944 MiB headroom; best is gpu1 with 12030 MiB", b.reason());
        assertEquals(2, b.rejections().size());
    }

    @Test
    void multiGpuBlockedReasonSaysHowManyQualify() {
        Placement.Blocked b = assertInstanceOf(Placement.Blocked.class,
                allocator.place(Request.declared(10000, 2), List.of(gpu(0, 0), gpu(1, 20000))));
        assertEquals("needs 2 GPUs with ≥ 10512 MiB headroom; only 1 has it now", b.reason());
    }
}

package io.gpusched.alloc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The board's words for a GPU over {@code --max-util} and for a share that does not fit. */
class BusyAndShareReasonTest {
    private static final PlacementPolicy LIMIT_80 = new PlacementPolicy(512, 200, 0.10, false, Optional.empty(), OptionalInt.of(80));

    @Test
    void aGpuAboveTheLimitIsNamedWithItsUtilisationAndTheLimit() {
        List<GpuView> gpus = List.of(GpuView.empty(0, 24000).withRecentUtil(OptionalInt.of(40)),
                GpuView.empty(1, 24000).withRecentUtil(OptionalInt.of(97)));
        Placement p = new Allocator(LIMIT_80).place(Request.declared(8192, 1).pinnedTo(java.util.Set.of(1)), gpus);
        assertEquals("needs 1 GPU with ≥ 8704 MiB headroom; gpu1 is 97% busy (limit --max-util 80)",
                ((Placement.Blocked) p).reason());
        // At the limit is not above it; without a reading a GPU is never held back.
        assertEquals(new Placement.Placed(List.of(0)), new Allocator(LIMIT_80).place(Request.declared(8192, 1),
                List.of(GpuView.empty(0, 24000).withRecentUtil(OptionalInt.of(80)))));
        assertEquals(new Placement.Placed(List.of(0)), new Allocator(LIMIT_80).place(Request.declared(8192, 1),
                List.of(GpuView.empty(0, 24000))));
        // Two GPUs too busy for a 2-GPU job: one limit after both.
        Placement both = new Allocator(LIMIT_80).place(Request.declared(1024, 2), List.of(
                GpuView.empty(0, 24000).withRecentUtil(OptionalInt.of(90)), GpuView.empty(1, 24000).withRecentUtil(OptionalInt.of(85))));
        assertEquals("needs 2 GPUs with ≥ 1536 MiB headroom; gpu0 is 90% busy, gpu1 is 85% busy (limit --max-util 80)",
                ((Placement.Blocked) both).reason());
    }

    @Test
    void aShareThatFitsNowhereSaysWhatItCameToOnTheNearestGpu() {
        GpuShare half = GpuShare.parse("0.5").orElseThrow();
        Tenant big = new Tenant("a", OptionalLong.of(20000), 0, 0);
        List<GpuView> gpus = List.of(new GpuView(0, 24000, 0, 0, List.of(big), true),
                new GpuView(1, 80000, 0, 0, List.of(new Tenant("b", OptionalLong.of(50000), 0, 0)), true));
        Placement p = new Allocator(PlacementPolicy.defaults()).place(Request.share(half), gpus);
        assertEquals("needs 0.5 of one GPU's memory; best is gpu1 with 30000 MiB free of the 40000 its share is there",
                ((Placement.Blocked) p).reason());
    }
}

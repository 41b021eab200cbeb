package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.testkit.arbitraries.AllocationCase;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.GpuArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** {@code --max-util}: a GPU busier than the limit is set aside like a paused one; no reading, no effect. */
class MaxUtilPropertiesTest {
    private static final int TRIES = 1000;

    /** A case whose GPUs carry random recent utilisation (a quarter without a reading) and a limit. */
    private record Busy(AllocationCase c, int limit) {
    }

    private static Gen<Busy> cases() {
        return (random, size) -> {
            AllocationCase c = GpuArbitraries.allocationCases().next(random, size);
            List<GpuView> gpus = new ArrayList<>();
            for (GpuView g : c.gpus()) {
                gpus.add(g.withRecentUtil(random.nextInt(4) == 0 ? OptionalInt.empty() : OptionalInt.of(random.nextInt(0, 101))));
            }
            PlacementPolicy p = c.policy();
            int limit = random.nextInt(0, 101);
            PlacementPolicy limited = new PlacementPolicy(p.marginMib(), p.idleThresholdMib(), p.spikeBuffer(), p.exclusive(),
                    p.allowedGpus(), OptionalInt.of(limit));
            return new Busy(new AllocationCase(limited, gpus, c.request()), limit);
        };
    }

    @Test
    void placementUnderALimitIsPlacementWithTheBusyGpusPaused_andNeverOnAGpuAboveIt() {
        Property.forAll(cases()).tries(TRIES).check(b -> {
            AllocationCase c = b.c();
            Placement limited = c.place();
            PlacementPolicy p = c.policy();
            List<GpuView> pausedInstead = c.gpus().stream()
                    .map(g -> g.recentUtilPercent().isPresent() && g.recentUtilPercent().getAsInt() > b.limit()
                            ? g.withPaused(true) : g)
                    .toList();
            Placement oracle = new Allocator(new PlacementPolicy(p.marginMib(), p.idleThresholdMib(), p.spikeBuffer(),
                    p.exclusive(), p.allowedGpus())).place(c.request(), pausedInstead);
            assertEquals(oracle.getClass(), limited.getClass(), limited + " vs " + oracle);
            if (limited instanceof Placement.Placed placed) {
                assertEquals(oracle, limited);
                for (int g : placed.gpus()) {
                    OptionalInt u = c.gpu(g).recentUtilPercent();
                    assertTrue(u.isEmpty() || u.getAsInt() <= b.limit(), "gpu" + g + " at " + u + " over " + b.limit());
                }
            }
            if (limited instanceof Placement.Blocked blocked) {
                assertTrue(!blocked.reason().contains("busy") || blocked.reason().contains("(limit --max-util " + b.limit() + ")"),
                        blocked.reason());
            }
        });
    }

    @Test
    void withoutReadingsALimitChangesNothing() {
        Property.forAll(cases()).tries(TRIES).check(b -> {
            AllocationCase c = b.c();
            List<GpuView> unread = c.gpus().stream().map(g -> g.withRecentUtil(OptionalInt.empty())).toList();
            PlacementPolicy p = c.policy();
            Placement none = new Allocator(new PlacementPolicy(p.marginMib(), p.idleThresholdMib(), p.spikeBuffer(),
                    p.exclusive(), p.allowedGpus())).place(c.request(), unread);
            assertEquals(none, new Allocator(p).place(c.request(), unread));
        });
    }
}

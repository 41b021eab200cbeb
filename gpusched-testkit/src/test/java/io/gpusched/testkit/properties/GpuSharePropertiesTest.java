package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuShare;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Headroom;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.jobs.JobSpec;
import io.gpusched.testkit.arbitraries.AllocationCase;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.GpuArbitraries;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Shares of one GPU ({@code gpus=0.5}): their MiB, their placement and their jobs-file syntax. */
class GpuSharePropertiesTest {
    private static final int TRIES = 1000;

    /** An independent floor: unscaled × total ÷ 10^scale in whole numbers, at least 1. */
    private static long oracleMib(GpuShare share, long totalMib) {
        BigInteger num = share.fraction().unscaledValue().multiply(BigInteger.valueOf(totalMib));
        long floor = num.divide(BigInteger.TEN.pow(share.fraction().scale())).longValueExact();
        return Math.max(1, floor);
    }

    @Test
    void theMibReservedIsTheFloorOfTheShareOfThatGpusOwnTotal_andSharesThatAddUpToOneFitTheCard() {
        Gen<List<Object>> cases = (random, size) -> List.of(JobSpecArbitraries.gpuShares().next(random, size),
                GpuArbitraries.totalMib().next(random, size), JobSpecArbitraries.gpuShares().next(random, size));
        Property.forAll(cases).tries(TRIES).check(c -> {
            GpuShare a = (GpuShare) c.get(0);
            long total = Math.max(2, (Long) c.get(1));
            assertEquals(oracleMib(a, total), a.mibOf(total), a + " of " + total);
            assertTrue(a.mibOf(total) <= total, "never more than the card");
            assertEquals(a.mibOf(total), Request.share(a).declaredOn(total).getAsLong(), "the request says the same");
            // The complement: what is left of the card always holds the other share.
            GpuShare rest = new GpuShare(java.math.BigDecimal.ONE.subtract(a.fraction()));
            assertTrue(a.mibOf(total) + rest.mibOf(total) <= total, a + " + " + rest + " of " + total);
            GpuShare b = (GpuShare) c.get(2);
            if (a.fraction().compareTo(b.fraction()) <= 0) {
                assertTrue(a.mibOf(total) <= b.mibOf(total), "a larger share never reserves less");
            }
        });
    }

    /** A GPU's generated state with a request for a share of one GPU, often pinned. */
    private static Gen<AllocationCase> shareCases() {
        return (random, size) -> {
            AllocationCase c = GpuArbitraries.allocationCases().next(random, size);
            Request r = Request.share(JobSpecArbitraries.gpuShares().next(random, size));
            if (random.nextInt(4) == 0) {
                List<Integer> indices = c.gpus().stream().map(GpuView::index).toList();
                r = r.pinnedTo(Set.of(indices.get(random.nextInt(indices.size()))));
            }
            return new AllocationCase(c.policy(), c.gpus(), r);
        };
    }

    @Test
    void aShareIsPlacedOnExactlyOneGpuWithHeadroomForItsShareOfThatGpu_wheneverOneHasIt() {
        Property.forAll(shareCases()).tries(TRIES).check(c -> {
            GpuShare share = c.request().share().orElseThrow();
            Allocator allocator = new Allocator(c.policy());
            Placement p = c.place();
            // Could any GPU take it? Usable (allowed, pinned, healthy, not paused, no undeclared job of
            // ours, not exclusive-held) with headroom for the share of its own total (no margin).
            boolean anyFits = c.gpus().stream().anyMatch(g -> c.policy().allows(g.index()) && c.request().mayUse(g.index())
                    && g.healthy() && !g.paused() && g.tenants().stream().allMatch(Tenant::declared)
                    && !(c.policy().exclusive() && !g.tenants().isEmpty())
                    && allocator.headroomMib(g) >= share.mibOf(g.totalMib()));
            assertFalse(p instanceof Placement.Infeasible && anyFits, "infeasible though a GPU fits: " + p);
            if (p instanceof Placement.Placed placed) {
                assertEquals(1, placed.gpus().size(), "a share never spans two GPUs");
                GpuView g = c.gpu(placed.gpus().get(0));
                assertTrue(allocator.headroomMib(g) >= share.mibOf(g.totalMib()),
                        "placed on gpu" + g.index() + " without room for " + share.mibOf(g.totalMib()) + " MiB");
            } else {
                assertFalse(anyFits, "not placed though a GPU fits: " + p);
            }
        });
    }

    @Test
    void placingSharesOneAfterAnotherNeverOvercommitsAGpu_andFillsAnEmptyCardWithHalves() {
        Gen<List<Object>> cases = (random, size) -> {
            int n = random.nextInt(1, 5);
            List<GpuView> gpus = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                gpus.add(GpuView.empty(i, GpuArbitraries.totalMib().next(random, size)));
            }
            List<GpuShare> shares = new ArrayList<>();
            for (int i = random.nextInt(1, 30); i > 0; i--) {
                shares.add(JobSpecArbitraries.gpuShares().next(random, size));
            }
            return List.of(gpus, shares, random.nextLong(0, 2048));
        };
        Property.forAll(cases).tries(TRIES).check(c -> {
            @SuppressWarnings("unchecked") List<GpuView> gpus = (List<GpuView>) c.get(0);
            @SuppressWarnings("unchecked") List<GpuShare> shares = (List<GpuShare>) c.get(1);
            // Any margin: a share adds none, so it must not change where shares go.
            Allocator allocator = new Allocator(new PlacementPolicy((Long) c.get(2), 200, 0.10, false, Optional.empty()));
            int k = 0;
            for (GpuShare s : shares) {
                Placement p = allocator.place(Request.share(s), gpus);
                if (p instanceof Placement.Placed placed) {
                    int gpu = placed.gpus().get(0);
                    long mib = s.mibOf(gpus.stream().filter(g -> g.index() == gpu).findFirst().orElseThrow().totalMib());
                    gpus = GpuView.withTenant(gpus, placed.gpus(), new Tenant("s" + k++, OptionalLong.of(mib), 0, 0));
                }
            }
            for (GpuView g : gpus) {
                long reserved = g.tenants().stream().mapToLong(t -> t.declaredMib().getAsLong()).sum();
                assertTrue(reserved <= g.totalMib(), "gpu" + g.index() + " holds " + reserved + " of " + g.totalMib() + " MiB");
                assertTrue(Headroom.effective(g, 0.10) >= 0);
            }
            // Two halves fill one empty card, whatever its size and the margin.
            // (A card of 2 MiB or more: on a 1 MiB card every share is its 1 MiB minimum.)
            List<GpuView> one = List.of(GpuView.empty(0, Math.max(2, gpus.get(0).totalMib())));
            GpuShare half = GpuShare.parse("0.5").orElseThrow();
            Placement first = allocator.place(Request.share(half), one);
            assertEquals(new Placement.Placed(List.of(0)), first);
            one = GpuView.withTenant(one, List.of(0), new Tenant("a", OptionalLong.of(half.mibOf(one.get(0).totalMib())), 0, 0));
            assertEquals(new Placement.Placed(List.of(0)), allocator.place(Request.share(half), one));
        });
    }

    @Test
    void aShareParsesAndRoundTripsThroughToLine_asTheSameDecimal() {
        Property.forAll(JobSpecArbitraries.gpuShares()).tries(TRIES).check(share -> {
            assertEquals(Optional.of(share), GpuShare.parse(share.toString()));
            JobSpec spec = JobSpec.parse("[gpus=" + share + " retries=1] python train.py");
            assertEquals(Optional.of(share), spec.share());
            assertEquals(1, spec.gpus());
            assertTrue(spec.vramMib().isEmpty());
            assertTrue(spec.declared());
            assertEquals("[gpus=" + share + " retries=1] python train.py", spec.toLine());
            assertEquals(spec, JobSpec.parse(spec.toLine()));
            // Trailing zeros and a bare leading point read as the same share.
            assertEquals(spec.share(), JobSpec.parse("[gpus=" + share + "000] x").share());
            assertEquals(spec.share(), JobSpec.parse("[gpus=" + share.toString().substring(1) + "] x").share());
        });
    }
}

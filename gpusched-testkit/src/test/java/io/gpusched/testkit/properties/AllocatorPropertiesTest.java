package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Headroom;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.Rejection;
import io.gpusched.alloc.Tenant;
import io.gpusched.testkit.arbitraries.AllocationCase;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.GpuArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The allocator's invariants (STYLE §2.4, DESIGN §4), each over 1,000 generated cases. */
class AllocatorPropertiesTest {
    private static final int TRIES = 1000;

    @Test
    void placedGpusAreExactlyTheRequestedNumber_distinct_allowed_healthy_andAscending() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Placed placed) {
                List<Integer> gpus = placed.gpus();
                assertEquals(c.request().gpus(), gpus.size(), "number of GPUs");
                assertEquals(gpus.size(), new HashSet<>(gpus).size(), "distinct");
                assertEquals(gpus.stream().sorted().toList(), gpus, "ascending");
                for (int index : gpus) {
                    assertTrue(c.policy().allows(index), "gpu" + index + " allowed");
                    assertTrue(c.gpu(index).healthy(), "gpu" + index + " healthy");
                }
            }
        });
    }

    /** Some GPUs of a case paused, chosen by the case's own random stream. */
    private static AllocationCase withSomePaused(AllocationCase c, java.util.random.RandomGenerator r) {
        return c.withGpus(c.gpus().stream().map(g -> g.withPaused(r.nextInt(3) == 0)).toList());
    }

    @Test
    void aPausedGpuIsNeverChosen_andPausingNeverMakesAJobInfeasible_onlyBlocked() {
        Gen<AllocationCase> cases = (r, size) -> withSomePaused(GpuArbitraries.allocationCases().next(r, size), r);
        Property.forAll(cases).tries(TRIES).check(c -> {
            Placement p = c.place();
            if (p instanceof Placement.Placed placed) {
                for (int index : placed.gpus()) {
                    assertFalse(c.gpu(index).paused(), "paused gpu" + index + " chosen");
                }
            }
            AllocationCase unpaused = c.withGpus(c.gpus().stream().map(g -> g.withPaused(false)).toList());
            assertEquals(unpaused.place() instanceof Placement.Infeasible, p instanceof Placement.Infeasible,
                    "pausing changed feasibility");
            if (unpaused.place() instanceof Placement.Placed && !(p instanceof Placement.Placed)) {
                assertInstanceOf(Placement.Blocked.class, p);
                assertTrue(((Placement.Blocked) p).reason().contains("paused"), ((Placement.Blocked) p).reason());
            }
        });
    }

    @Test
    void declaredJobIsNeverPlacedWhereEffectiveHeadroomIsBelowDeclarationPlusMargin() {
        Property.forAll(GpuArbitraries.declaredCases()).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Placed placed) {
                long need = c.request().vramMib().getAsLong() + c.policy().marginMib();
                for (int index : placed.gpus()) {
                    GpuView g = c.gpu(index);
                    assertTrue(Headroom.effective(g, c.policy().spikeBuffer()) >= need, "Headroom.effective of gpu" + index);
                    // Also against the oracle's exact arithmetic, in case Headroom itself is optimistic.
                    assertTrue(AllocatorOracle.headroom(g, c.policy().spikeBuffer()) >= need, "oracle headroom of gpu" + index);
                }
            }
        });
    }

    @Test
    void undeclaredJobLandsOnlyOnGpusWithNoJobOfOursAndExternalUseBelowIdleThreshold() {
        Property.forAll(GpuArbitraries.undeclaredCases()).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Placed placed) {
                for (int index : placed.gpus()) {
                    GpuView g = c.gpu(index);
                    assertTrue(g.tenants().isEmpty(), "gpu" + index + " has no job of ours");
                    assertTrue(AllocatorOracle.externalUse(g, c.policy().spikeBuffer()) < c.policy().idleThresholdMib(),
                            "gpu" + index + " is idle");
                }
            }
        });
    }

    @Test
    void gpuHeldByAnUndeclaredJobOfOursIsNeverChosen() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Placed placed) {
                for (int index : placed.gpus()) {
                    assertFalse(AllocatorOracle.hasUndeclaredTenant(c.gpu(index)), "gpu" + index + " has an undeclared job");
                }
            }
        });
    }

    @Test
    void exclusivePolicyNeverPutsAJobNextToAnotherOfOurs() {
        Gen<AllocationCase> exclusive = GpuArbitraries.allocationCases().map(c -> new AllocationCase(
                new io.gpusched.alloc.PlacementPolicy(c.policy().marginMib(), c.policy().idleThresholdMib(),
                        c.policy().spikeBuffer(), true, c.policy().allowedGpus()), c.gpus(), c.request()));
        Property.forAll(exclusive).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Placed placed) {
                for (int index : placed.gpus()) {
                    assertTrue(c.gpu(index).tenants().isEmpty(), "gpu" + index + " already runs a job");
                }
            }
        });
    }

    @Test
    void bestFit_noUnchosenEligibleGpuHasSmallerSufficientHeadroomThanAChosenOne() {
        Property.forAll(GpuArbitraries.declaredCases()).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Placed placed) {
                Allocator allocator = new Allocator(c.policy());
                Set<Integer> chosen = Set.copyOf(placed.gpus());
                for (GpuView unchosen : c.gpus()) {
                    if (chosen.contains(unchosen.index()) || !AllocatorOracle.eligible(unchosen, c.request(), c.policy())) {
                        continue;
                    }
                    long other = allocator.headroomMib(unchosen);
                    for (int index : chosen) {
                        long mine = allocator.headroomMib(c.gpu(index));
                        assertTrue(other > mine || (other == mine && unchosen.index() > index),
                                "unchosen gpu" + unchosen.index() + " (" + other + " MiB) fits tighter than chosen gpu" + index
                                        + " (" + mine + " MiB)");
                    }
                }
            }
        });
    }

    @Test
    void undeclaredJobTakesTheLowestIndexedIdleGpus() {
        Property.forAll(GpuArbitraries.undeclaredCases()).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Placed placed) {
                int highestChosen = placed.gpus().get(placed.gpus().size() - 1);
                for (GpuView g : c.gpus()) {
                    if (g.index() < highestChosen && !placed.gpus().contains(g.index())) {
                        assertFalse(AllocatorOracle.eligible(g, c.request(), c.policy()), "skipped eligible gpu" + g.index());
                    }
                }
            }
        });
    }

    @Test
    void placementMatchesAnIndependentReferenceModel() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            AllocatorOracle.Expected expected = AllocatorOracle.expected(c);
            Placement actual = c.place();
            if (expected.infeasible()) {
                assertInstanceOf(Placement.Infeasible.class, actual);
            } else if (expected.placed().isPresent()) {
                assertEquals(new Placement.Placed(expected.placed().get()), actual);
            } else {
                assertInstanceOf(Placement.Blocked.class, actual);
            }
        });
    }

    @Test
    void effectiveHeadroomIsTotalMinusEffectiveExternalUseMinusBudgets_inExactArithmetic() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            double sb = c.policy().spikeBuffer();
            for (GpuView g : c.gpus()) {
                assertEquals(AllocatorOracle.externalUse(g, sb), Headroom.effectiveExternal(g, sb), "external use of gpu" + g.index());
                for (Tenant t : g.tenants()) {
                    assertEquals(AllocatorOracle.budget(t, sb), Headroom.budget(t, sb), "budget of " + t);
                }
                assertEquals(AllocatorOracle.headroom(g, sb), Headroom.effective(g, sb), "headroom of gpu" + g.index());
            }
        });
    }

    @Test
    void freeingMemoryNeverTurnsAPlacedJobIntoABlockedOrInfeasibleOne() {
        Gen<AllocationCase> placeable = GpuArbitraries.allocationCases().filter(c -> c.place() instanceof Placement.Placed);
        Gen<Freed> freed = placeable.flatMap(c -> (random, size) -> free(c, new Random(random.nextLong())));
        Property.forAll(freed).tries(TRIES).check(f -> {
            Placement after = f.freer().place();
            if (!(after instanceof Placement.Placed)) {
                fail("was placed, after " + f.how() + " it is " + after + "; freer case: " + f.freer());
            }
        });
    }

    @Test
    void infeasibleExactlyWhenTheRequestCannotBePlacedOnTheSameAllowedGpusEmptyAndHealthy() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            List<GpuView> emptied = c.gpus().stream().map(g -> GpuView.empty(g.index(), g.totalMib())).toList();
            Placement onEmpty = c.withGpus(emptied).place();
            boolean infeasible = c.place() instanceof Placement.Infeasible;
            assertEquals(!(onEmpty instanceof Placement.Placed), infeasible, "infeasible now vs. placeable on empty GPUs: " + onEmpty);
            assertEquals(AllocatorOracle.infeasible(c), infeasible, "oracle: too few allowed GPUs, or too few large enough");
        });
    }

    @Test
    void sameInputGivesEqualOutput() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            AllocationCase copy = new AllocationCase(c.policy(), new ArrayList<>(c.gpus()), c.request());
            assertEquals(c.place(), copy.place());
            assertEquals(c.place(), new Allocator(c.policy()).place(c.request(), c.gpus()));
        });
    }

    @Test
    void outputDoesNotDependOnTheOrderOfTheGpuList() {
        Gen<AllocationCase[]> shuffledPairs = GpuArbitraries.allocationCases().flatMap(c -> (random, size) -> {
            List<GpuView> shuffled = new ArrayList<>(c.gpus());
            Collections.shuffle(shuffled, new Random(random.nextLong()));
            return new AllocationCase[] {c, c.withGpus(shuffled)};
        });
        Property.forAll(shuffledPairs.map(List::of)).tries(TRIES).check(pair ->
                assertEquals(pair.get(0).place(), pair.get(1).place(), "same GPUs in another order: " + pair.get(1).gpus().stream()
                        .map(GpuView::index).toList()));
    }

    @Test
    void blockedNamesEachIneligibleGpuOnceWithTruthfulAmountsAndGivesAOneLineReason() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            if (!(c.place() instanceof Placement.Blocked blocked)) {
                return;
            }
            assertFalse(blocked.reason().isBlank(), "reason is blank");
            assertTrue(blocked.reason().lines().count() == 1 && blocked.reason().indexOf('\r') < 0, "reason is one line: " + blocked.reason());
            List<Integer> rejected = blocked.rejections().stream().map(Rejection::gpu).toList();
            assertEquals(rejected.size(), new HashSet<>(rejected).size(), "each GPU at most once: " + rejected);
            // Blocked means fewer than N GPUs are eligible; every other GPU must say which rule rejected it.
            Set<Integer> ineligible = new HashSet<>();
            for (GpuView g : c.gpus()) {
                if (!AllocatorOracle.eligible(g, c.request(), c.policy())) {
                    ineligible.add(g.index());
                }
            }
            assertTrue(c.gpus().size() - ineligible.size() < c.request().gpus(), "blocked although enough GPUs are eligible");
            assertEquals(ineligible, Set.copyOf(rejected), "rejected GPUs are exactly the ineligible ones");
            for (Rejection r : blocked.rejections()) {
                assertFalse(r.describe().isBlank());
                switch (r.check()) {
                    case HEADROOM -> {
                        assertEquals(AllocatorOracle.perGpuNeed(c.request(), c.policy()), r.requiredMib(), "required of " + r);
                        assertEquals(AllocatorOracle.headroom(c.gpu(r.gpu()), c.policy().spikeBuffer()), r.availableMib(), "available of " + r);
                        assertTrue(r.availableMib() < r.requiredMib(), "rejected although it fits: " + r);
                    }
                    case IDLE -> {
                        assertEquals(c.policy().idleThresholdMib(), r.requiredMib(), "threshold of " + r);
                        assertTrue(r.availableMib() >= r.requiredMib(), "rejected although idle: " + r);
                    }
                    case ALLOWED -> assertFalse(c.policy().allows(r.gpu()), "rejected although allowed: " + r);
                    case HEALTHY -> assertFalse(c.gpu(r.gpu()).healthy(), "rejected although healthy: " + r);
                    default -> {
                        // The tenant rules carry no amounts; their truth is covered by the eligibility check above.
                    }
                }
            }
        });
    }

    @Test
    void infeasibleReasonIsOneNonBlankLine() {
        Property.forAll(GpuArbitraries.allocationCases()).tries(TRIES).check(c -> {
            if (c.place() instanceof Placement.Infeasible infeasible) {
                assertFalse(infeasible.reason().isBlank());
                assertTrue(infeasible.reason().lines().count() == 1, "one line: " + infeasible.reason());
            }
        });
    }

    /** A placeable case and a copy with strictly more room somewhere, and what was changed. */
    record Freed(AllocationCase original, AllocationCase freer, String how) {
        @Override
        public String toString() {
            return how + " on " + original;
        }
    }

    /** Gives one to all GPUs more room: more total, less use, lower peaks, a job gone or shrunk, or health back. */
    private static Freed free(AllocationCase c, Random random) {
        List<GpuView> gpus = new ArrayList<>(c.gpus());
        List<String> how = new ArrayList<>();
        int changes = 1 + random.nextInt(gpus.size());
        for (int n = 0; n < changes; n++) {
            int i = random.nextInt(gpus.size());
            GpuView g = gpus.get(i);
            long k = 1 + (long) (random.nextDouble() * Math.max(1, g.totalMib() / 2));
            List<Tenant> tenants = new ArrayList<>(g.tenants());
            GpuView freer;
            switch (random.nextInt(6)) {
                case 0 -> {
                    freer = new GpuView(g.index(), g.totalMib() + k, g.usedMib(), g.externalPeaksMib(), tenants, g.healthy());
                    how.add("gpu" + g.index() + " total +" + k);
                }
                case 1 -> {
                    freer = new GpuView(g.index(), g.totalMib(), Math.max(0, g.usedMib() - k), g.externalPeaksMib(), tenants, g.healthy());
                    how.add("gpu" + g.index() + " used -" + k);
                }
                case 2 -> {
                    freer = new GpuView(g.index(), g.totalMib(), g.usedMib(), Math.max(0, g.externalPeaksMib() - k), tenants, g.healthy());
                    how.add("gpu" + g.index() + " external peaks -" + k);
                }
                case 3 -> {
                    if (tenants.isEmpty()) {
                        continue;
                    }
                    Tenant gone = tenants.remove(random.nextInt(tenants.size()));
                    freer = new GpuView(g.index(), g.totalMib(), Math.max(0, g.usedMib() - gone.currentMib()), g.externalPeaksMib(),
                            tenants, g.healthy());
                    how.add("gpu" + g.index() + " " + gone + " exited");
                }
                case 4 -> {
                    if (tenants.isEmpty()) {
                        continue;
                    }
                    int t = random.nextInt(tenants.size());
                    Tenant old = tenants.get(t);
                    long peak = (long) (old.peakMib() * random.nextDouble());
                    long current = (long) (old.currentMib() * random.nextDouble());
                    tenants.set(t, new Tenant(old.key(), old.declaredMib(), current, peak));
                    freer = new GpuView(g.index(), g.totalMib(), Math.max(0, g.usedMib() - (old.currentMib() - current)),
                            g.externalPeaksMib(), tenants, g.healthy());
                    how.add("gpu" + g.index() + " " + old + " shrank to cur=" + current + " peak=" + peak);
                }
                default -> {
                    freer = new GpuView(g.index(), g.totalMib(), g.usedMib(), g.externalPeaksMib(), tenants, true);
                    how.add("gpu" + g.index() + " healthy");
                }
            }
            gpus.set(i, freer);
        }
        return new Freed(c, c.withGpus(gpus), how.isEmpty() ? "nothing" : String.join(", ", how));
    }
}

package io.gpusched.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Recent GPU time per owner, and what it does to the order of a queue shared by several owners. */
class FairShareTest {
    private static final Instant T0 = Instant.parse("2026-11-23T08:00:00Z");

    @Test
    void gpuTimeHalvesEveryHalfLife() {
        FairShare f = new FairShare(Duration.ofHours(4));
        f.add("alice", 2, Duration.ofHours(3), T0); // 6 GPU-hours
        assertEquals(6.0, f.recent(T0).get("alice"), 1e-9);
        assertEquals(3.0, f.recent(T0.plus(Duration.ofHours(4))).get("alice"), 1e-9);
        assertEquals(1.5, f.recent(T0.plus(Duration.ofHours(8))).get("alice"), 1e-9);
    }

    @Test
    void newUseAddsToWhatIsLeftOfTheOld() {
        FairShare f = new FairShare(Duration.ofHours(1));
        f.add("bob", 1, Duration.ofHours(4), T0);
        f.add("bob", 1, Duration.ofHours(1), T0.plus(Duration.ofHours(1)));
        assertEquals(3.0, f.recent(T0.plus(Duration.ofHours(1))).get("bob"), 1e-9);
    }

    @Test
    void anOwnerWhoseTimeHasDecayedAwayIsForgotten() {
        FairShare f = new FairShare(Duration.ofMinutes(1));
        f.add("carol", 1, Duration.ofMinutes(6), T0);
        assertTrue(f.recent(T0.plus(Duration.ofHours(1))).isEmpty());
    }

    private static Candidate job(String key, int no, String owner) {
        return new Candidate(key, no, Request.declared(20000, 1), 0, no, T0, owner, Optional.empty());
    }

    @Test
    void withSeveralOwnersWaitingTheOneWhoUsedLessGoesFirst_andTheReasonSaysWhy() {
        QueuePolicy policy = new QueuePolicy(new Allocator(PlacementPolicy.defaults()), PolicyOptions.defaults());
        List<Candidate> queue = List.of(job("sweep1", 1, "alice"), job("sweep2", 2, "alice"), job("single", 3, "bob"));
        Map<String, Double> usage = Map.of("alice", 12.4);
        Plan plan = policy.plan(T0, queue, List.of(), List.of(GpuView.empty(0, 24000)), usage);
        assertEquals(new Decision.Start("single", List.of(0)), plan.decisions().get(0));
        String reason = ((Decision.Wait) plan.decisions().get(1)).reason();
        assertTrue(reason.endsWith("; fair share: alice used 12.4 GPU-h recently (priority −12)"), reason);
    }

    @Test
    void aSingleOwnersQueueIsNotReorderedByItsOwnUse() {
        QueuePolicy policy = new QueuePolicy(new Allocator(PlacementPolicy.defaults()), PolicyOptions.defaults());
        List<Candidate> queue = List.of(job("a", 1, "alice"), job("b", 2, "alice"));
        Plan plan = policy.plan(T0, queue, List.of(), List.of(GpuView.empty(0, 24000)), Map.of("alice", 50.0));
        assertEquals(new Decision.Start("a", List.of(0)), plan.decisions().get(0));
        assertTrue(!((Decision.Wait) plan.decisions().get(1)).reason().contains("fair share"));
    }
}

package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.Placement;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.policy.Candidate;
import io.gpusched.policy.Decision;
import io.gpusched.policy.Occupant;
import io.gpusched.policy.Plan;
import io.gpusched.policy.PolicyOptions;
import io.gpusched.policy.QueuePolicy;
import io.gpusched.policy.Reservation;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The queue policy's invariants over random queues, running jobs and GPUs (one plan each). */
class QueuePolicyPropertiesTest {
    private static final int TRIES = 1000;
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    private static final PolicyOptions OPTIONS = PolicyOptions.defaults();
    private static final Allocator ALLOCATOR = new Allocator(PlacementPolicy.defaults());
    private static final QueuePolicy POLICY = new QueuePolicy(ALLOCATOR, OPTIONS);

    /** One planning situation. */
    record Situation(List<Candidate> queue, List<Occupant> running, List<GpuView> views, Map<String, Double> usage) {
        Plan plan() {
            return POLICY.plan(NOW, queue, running, views, usage);
        }

        Candidate candidate(String key) {
            return queue.stream().filter(c -> c.key().equals(key)).findFirst().orElseThrow();
        }
    }

    static Gen<Situation> situations() {
        return (r, size) -> {
            int gpus = 1 + r.nextInt(4);
            List<Long> totals = new ArrayList<>();
            for (int g = 0; g < gpus; g++) {
                totals.add(r.nextBoolean() ? 24000L : 81920L);
            }
            List<Occupant> running = new ArrayList<>();
            Map<Integer, List<Tenant>> tenants = new HashMap<>();
            int occupants = r.nextInt(2 * gpus + 1);
            for (int i = 0; i < occupants; i++) {
                int g = r.nextInt(gpus);
                long mib = 1000 + r.nextInt(20000);
                String key = "run" + i;
                Optional<Duration> timeout = r.nextInt(3) == 0 ? Optional.empty()
                        : Optional.of(Duration.ofMinutes(5 + r.nextInt(180)));
                running.add(new Occupant(key, 100 + i, List.of(g), NOW.minus(Duration.ofMinutes(r.nextInt(120))), timeout,
                        r.nextInt(5) - 2, r.nextBoolean(), r.nextInt(8) == 0));
                tenants.computeIfAbsent(g, k -> new ArrayList<>()).add(new Tenant(key, OptionalLong.of(mib), mib / 2, mib / 2));
            }
            List<GpuView> views = new ArrayList<>();
            for (int g = 0; g < gpus; g++) {
                List<Tenant> ts = tenants.getOrDefault(g, List.of());
                long used = ts.stream().mapToLong(Tenant::currentMib).sum();
                views.add(new GpuView(g, totals.get(g), Math.min(used, totals.get(g)), 0, ts, r.nextInt(10) != 0,
                        r.nextInt(8) == 0));
            }
            List<Candidate> queue = new ArrayList<>();
            int n = r.nextInt(Math.max(2, Math.min(size, 14)));
            for (int i = 0; i < n; i++) {
                queue.add(candidate(r, i, gpus));
            }
            Map<String, Double> usage = new HashMap<>();
            if (r.nextBoolean()) {
                usage.put("alice", r.nextDouble() * 5);
            }
            return new Situation(queue, running, views, usage);
        };
    }

    private static Candidate candidate(RandomGenerator r, int i, int gpus) {
        Request req = r.nextInt(4) == 0 ? Request.undeclared(1 + r.nextInt(Math.min(2, gpus)))
                : Request.declared(1000 + r.nextInt(40000), 1 + r.nextInt(gpus));
        if (r.nextInt(4) == 0) {
            Set<Integer> pins = new HashSet<>();
            for (int g = 0; g < gpus; g++) {
                if (r.nextBoolean()) {
                    pins.add(g);
                }
            }
            pins.add(r.nextInt(gpus));
            req = req.pinnedTo(pins);
        }
        Optional<Duration> timeout = r.nextBoolean() ? Optional.empty() : Optional.of(Duration.ofMinutes(1 + r.nextInt(240)));
        return new Candidate("job" + i, i + 1, req, r.nextInt(7) - 3, i, NOW.minus(Duration.ofMinutes(r.nextInt(240))),
                r.nextBoolean() ? "alice" : "bob", timeout);
    }

    @Test
    void aStartedJobOnlyUsesGpusItIsPinnedTo() {
        Property.forAll(situations()).tries(TRIES).check(s -> {
            for (Decision d : s.plan().decisions()) {
                if (d instanceof Decision.Start start) {
                    Request req = s.candidate(d.key()).request();
                    start.gpus().forEach(g -> assertTrue(req.mayUse(g), "job " + d.key() + " on gpu" + g + " outside its pins"));
                }
            }
        });
    }

    @Test
    void decisionsFollowEffectivePriority_tiesInQueueOrder() {
        Property.forAll(situations()).tries(TRIES).check(s -> {
            boolean shared = s.queue().stream().map(Candidate::owner).distinct().count() > 1;
            Map<String, Double> usage = shared ? s.usage() : Map.of();
            List<Decision> ds = s.plan().decisions();
            assertEquals(s.queue().size(), ds.size(), "one decision per job");
            for (int i = 1; i < ds.size(); i++) {
                Candidate a = s.candidate(ds.get(i - 1).key());
                Candidate b = s.candidate(ds.get(i).key());
                long ea = POLICY.effective(a, NOW, usage);
                long eb = POLICY.effective(b, NOW, usage);
                assertTrue(ea > eb || (ea == eb && a.position() < b.position()), a + " before " + b);
            }
        });
    }

    @Test
    void aJobLeftWaitingAheadOfAStartedOneCouldNotHaveBeenPlacedAtItsTurn() {
        Property.forAll(situations()).tries(TRIES).check(s -> {
            Plan plan = s.plan();
            List<GpuView> views = s.views();
            boolean pastReserved = false;
            for (Decision d : plan.decisions()) {
                Candidate c = s.candidate(d.key());
                if (d instanceof Decision.Wait w) {
                    // After the reservation's job, reserved GPUs are closed to it (at most: backfill opens some).
                    Set<Integer> closed = pastReserved ? Set.copyOf(plan.reservation().orElseThrow().gpus()) : Set.of();
                    assertFalse(ALLOCATOR.place(c.request(), views, closed) instanceof Placement.Placed,
                            "job " + c.key() + " waits (" + w.reason() + ") though it fits");
                } else if (d instanceof Decision.Start start) {
                    views = GpuView.withTenant(views, start.gpus(), new Tenant(c.key(), c.request().vramMib(), 0, 0));
                }
                if (plan.reservation().isPresent() && plan.reservation().get().key().equals(d.key())) {
                    pastReserved = true;
                }
            }
        });
    }

    @Test
    void aJobAfterTheReservedOneUsesAReservedGpuOnlyIfItEndsBeforeEveryJobThere() {
        Property.forAll(situations()).tries(TRIES).check(s -> {
            Plan plan = s.plan();
            if (plan.reservation().isEmpty()) {
                return;
            }
            Reservation res = plan.reservation().get();
            List<Occupant> occupants = new ArrayList<>(s.running());
            boolean past = false;
            for (Decision d : plan.decisions()) {
                Candidate c = s.candidate(d.key());
                if (d instanceof Decision.Start start) {
                    for (int g : start.gpus()) {
                        if (past && res.gpus().contains(g)) {
                            assertTrue(c.timeout().isPresent(), c.key() + " backfilled reserved gpu" + g + " without a timeout");
                            Instant end = NOW.plus(c.timeout().get());
                            List<Occupant> there = occupants.stream().filter(o -> o.gpus().contains(g)).toList();
                            assertFalse(there.isEmpty(), "backfilled an empty reserved gpu" + g);
                            for (Occupant o : there) {
                                assertTrue(!o.stopping() && o.endsBy().map(e -> !e.isBefore(end)).orElse(true),
                                        c.key() + " on reserved gpu" + g + " may outlast " + o.key());
                            }
                        }
                    }
                    occupants.add(new Occupant(c.key(), c.no(), start.gpus(), NOW, c.timeout(), c.priority(), false, false));
                }
                if (d.key().equals(res.key())) {
                    past = true;
                }
            }
        });
    }

    @Test
    void onlyRunningPreemptibleJobsOfLowerPriorityArePreempted_andOnlyForAJobThatWaitedPastTheThreshold() {
        Property.forAll(situations()).tries(TRIES).check(s -> {
            Plan plan = s.plan();
            if (plan.preempt().isEmpty()) {
                return;
            }
            Reservation res = plan.reservation().orElseThrow(() -> new AssertionError("preemption without a reservation"));
            Candidate head = s.candidate(res.key());
            assertTrue(Duration.between(head.queuedAt(), NOW).compareTo(OPTIONS.reserveAfter()) >= 0);
            for (String k : plan.preempt()) {
                Occupant o = s.running().stream().filter(x -> x.key().equals(k)).findFirst().orElseThrow();
                assertTrue(o.preemptible() && !o.stopping() && o.priority() < head.priority(), o + " preempted for " + head);
                assertTrue(o.gpus().stream().anyMatch(res.gpus()::contains), o + " holds none of the reserved GPUs");
            }
        });
    }

    @Test
    void withoutPrioritiesOrWaitingTheQueueKeepsFileOrder() {
        Property.forAll(situations()).tries(TRIES).check(s -> {
            List<Candidate> plain = s.queue().stream().map(c -> new Candidate(c.key(), c.no(), c.request(), 0, c.position(),
                    NOW, "me", c.timeout())).toList();
            List<String> order = POLICY.order(NOW, plain, Map.of()).stream().map(Candidate::key).toList();
            assertEquals(plain.stream().map(Candidate::key).toList(), order);
        });
    }

}

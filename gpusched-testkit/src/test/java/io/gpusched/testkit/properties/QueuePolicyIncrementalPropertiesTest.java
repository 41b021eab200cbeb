package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.alloc.Allocator;
import io.gpusched.alloc.GpuView;
import io.gpusched.alloc.PlacementPolicy;
import io.gpusched.alloc.Request;
import io.gpusched.alloc.Tenant;
import io.gpusched.policy.Candidate;
import io.gpusched.policy.Decision;
import io.gpusched.policy.Occupant;
import io.gpusched.policy.Plan;
import io.gpusched.policy.PolicyOptions;
import io.gpusched.policy.QueuePolicy;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * A job planned alone ({@link QueuePolicy#admit}) and placed in the queue's order by a binary search
 * ({@link QueuePolicy#orderAt}) gets what planning the whole queue again gives: the same decision for
 * it, the same for every other job, the same reservation and the same order, over random sequences of
 * submissions, ends and cancels.
 */
class QueuePolicyIncrementalPropertiesTest {
    private static final int TRIES = 300;
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    private static final Allocator ALLOCATOR = new Allocator(PlacementPolicy.defaults());

    /** A machine with running jobs, a queue, and what happens to it next. */
    record Story(List<GpuView> views, List<Occupant> running, List<Candidate> queue, Map<String, Double> usage,
                 List<Step> steps, PolicyOptions options) {
    }

    /** A submission of {@code job}, or the end (or cancel) of the waiting job at {@code index}. */
    record Step(Optional<Candidate> job, int index) {
    }

    static Gen<Story> stories() {
        return (r, size) -> {
            int gpus = 1 + r.nextInt(3);
            List<Occupant> running = new ArrayList<>();
            Map<Integer, List<Tenant>> tenants = new HashMap<>();
            // Mostly busy GPUs, as behind a long queue: every GPU has a job, some two.
            int occupants = gpus + r.nextInt(gpus + 1);
            for (int i = 0; i < occupants; i++) {
                int g = i < gpus ? i : r.nextInt(gpus);
                long mib = 12000 + r.nextInt(12000);
                String key = "run" + i;
                Optional<Duration> timeout = r.nextInt(3) == 0 ? Optional.empty()
                        : Optional.of(Duration.ofMinutes(5 + r.nextInt(180)));
                running.add(new Occupant(key, 1000 + i, List.of(g), NOW.minus(Duration.ofMinutes(r.nextInt(120))), timeout,
                        r.nextInt(5) - 2, r.nextBoolean(), r.nextInt(8) == 0));
                tenants.computeIfAbsent(g, k -> new ArrayList<>()).add(new Tenant(key, OptionalLong.of(mib), mib / 2, mib / 2));
            }
            List<GpuView> views = new ArrayList<>();
            for (int g = 0; g < gpus; g++) {
                List<Tenant> ts = tenants.getOrDefault(g, List.of());
                long used = ts.stream().mapToLong(Tenant::currentMib).sum();
                views.add(new GpuView(g, 24000, Math.min(used, 24000), 0, ts, true, r.nextInt(10) == 0));
            }
            List<Candidate> queue = new ArrayList<>();
            int n = r.nextInt(Math.max(2, Math.min(size, 12)));
            for (int i = 0; i < n; i++) {
                queue.add(candidate(r, i, gpus, NOW.minus(Duration.ofMinutes(r.nextInt(240)))));
            }
            List<Step> steps = new ArrayList<>();
            int next = n;
            for (int s = 0; s < 1 + r.nextInt(12); s++) {
                if (r.nextInt(3) == 0) {
                    steps.add(new Step(Optional.empty(), r.nextInt(64)));
                } else {
                    // A submission: now, or (sent again after a restart) a while ago.
                    Instant at = r.nextInt(4) == 0 ? NOW.minus(Duration.ofMinutes(r.nextInt(60))) : NOW;
                    steps.add(new Step(Optional.of(candidate(r, next, gpus, at)), 0));
                    next++;
                }
            }
            Map<String, Double> usage = new HashMap<>();
            if (r.nextBoolean()) {
                usage.put("alice", r.nextDouble() * 5);
            }
            PolicyOptions options = r.nextInt(4) == 0
                    ? new PolicyOptions(Duration.ofMinutes(15), Duration.ZERO, Duration.ofHours(4), java.util.OptionalInt.empty(), false)
                    : PolicyOptions.defaults();
            return new Story(views, running, queue, usage, steps, options);
        };
    }

    private static Candidate candidate(RandomGenerator r, int i, int gpus, Instant queuedAt) {
        Request req = r.nextInt(5) == 0 ? Request.undeclared(1)
                : Request.declared(4000 + r.nextInt(30000), 1 + r.nextInt(gpus));
        if (r.nextInt(5) == 0) {
            Set<Integer> pins = new HashSet<>();
            pins.add(r.nextInt(gpus));
            req = req.pinnedTo(pins);
        }
        Optional<Duration> timeout = r.nextBoolean() ? Optional.empty() : Optional.of(Duration.ofMinutes(1 + r.nextInt(240)));
        return new Candidate("job" + i, i + 1, req, r.nextInt(5) - 2, i, queuedAt, r.nextInt(3) == 0 ? "bob" : "alice",
                timeout);
    }

    /** What the engine keeps between plans: the order, each job's decision, and what admits the next. */
    private static final class Kept {
        List<Candidate> order;
        Map<String, Decision> decisions;
        QueuePolicy.Standing standing;
        Optional<io.gpusched.policy.Reservation> reservation;

        /** Plans the whole queue, as a round does. */
        void planAll(QueuePolicy policy, Story s, List<Candidate> queue) {
            Plan plan = policy.plan(NOW, queue, s.running(), s.views(), s.usage());
            decisions = new HashMap<>();
            order = new ArrayList<>();
            Map<String, Candidate> byKey = new HashMap<>();
            queue.forEach(c -> byKey.put(c.key(), c));
            for (Decision d : plan.decisions()) {
                decisions.put(d.key(), d);
                order.add(byKey.get(d.key()));
            }
            Set<String> owners = new HashSet<>();
            queue.forEach(c -> owners.add(c.owner()));
            boolean started = plan.decisions().stream().anyMatch(d -> !(d instanceof Decision.Wait));
            Optional<Candidate> holder = plan.reservation().map(res -> byKey.get(res.key()));
            standing = new QueuePolicy.Standing(plan.reservation(), holder, owners, started);
            reservation = plan.reservation();
        }
    }

    @Test
    void aJobPlannedAloneGetsWhatPlanningTheWholeQueueGives_andChangesNoOtherDecisionNorTheOrder() {
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        Property.forAll(stories()).tries(TRIES).check(s -> {
            QueuePolicy policy = new QueuePolicy(ALLOCATOR, s.options());
            List<Candidate> queue = new ArrayList<>(s.queue());
            Kept kept = new Kept();
            kept.planAll(policy, s, queue);
            for (Step step : s.steps()) {
                if (step.job().isEmpty()) {
                    // An end or a cancel: the engine plans the whole queue again.
                    if (!queue.isEmpty()) {
                        queue.remove(step.index() % queue.size());
                    }
                    kept.planAll(policy, s, queue);
                    continue;
                }
                Candidate c = step.job().get();
                queue.add(c);
                Optional<String> alone = policy.admit(NOW, c, kept.standing, s.running(), s.views(), s.usage());
                if (alone.isEmpty()) {
                    refused.incrementAndGet();
                    kept.planAll(policy, s, queue);
                    continue;
                }
                admitted.incrementAndGet();
                Set<String> owners = new HashSet<>(kept.standing.owners());
                owners.add(c.owner());
                Map<String, Double> usage = owners.size() > 1 ? s.usage() : Map.of();
                List<Candidate> order = new ArrayList<>(kept.order);
                int at = Collections.binarySearch(order, c, policy.orderAt(NOW, usage));
                order.add(at < 0 ? -at - 1 : at, c);
                Map<String, Decision> decisions = new HashMap<>(kept.decisions);
                decisions.put(c.key(), new Decision.Wait(c.key(), alone.get()));

                Kept full = new Kept();
                full.planAll(policy, s, queue);
                assertEquals(keys(full.order), keys(order), "the order with " + c.key() + " placed by a binary search");
                assertEquals(full.decisions, decisions, "every decision, " + c.key() + "'s planned alone");
                assertEquals(full.reservation, kept.reservation, "the reservation");
                kept.order = order;
                kept.decisions = decisions;
                kept.standing = new QueuePolicy.Standing(kept.standing.reservation(), kept.standing.holder(), owners, false);
            }
        });
        // How many are planned alone varies with the seed (59 of 300 in one CI run, near a fifth): a tenth
        // still says the comparison ran on many, without failing on an unlucky draw.
        assertTrue(admitted.get() > TRIES / 10, "too few jobs planned alone to say anything: " + admitted.get());
        assertTrue(refused.get() > 0, "never needed the whole queue planned: the stories are too easy");
    }

    private static List<String> keys(List<Candidate> cs) {
        return cs.stream().map(Candidate::key).toList();
    }
}

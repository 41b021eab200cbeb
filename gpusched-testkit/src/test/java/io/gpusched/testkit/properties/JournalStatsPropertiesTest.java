package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.journal.JournalEntry;
import io.gpusched.journal.JournalEvent;
import io.gpusched.stats.Bar;
import io.gpusched.stats.Figures;
import io.gpusched.stats.JournalStats;
import io.gpusched.stats.Stats;
import io.gpusched.stats.StatsQuery;
import io.gpusched.stats.Waits;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * {@code gpusched stats}' invariants over generated journals, each property over 1,000 of them: lives of
 * jobs as a scheduler writes them (queued, runs ended by OOM retries, requeues, interruptions, an outcome
 * or none yet, owners, declarations, peaks, some lines without times, as older versions wrote them) and
 * arbitrary event sequences; periods with and without a start, any user. GPU-hours add up over users and
 * equal the chart's bars; percentiles are ordered; utilisation is a share; one user's figures are the
 * whole's row for them, and the users' figures add up to the whole.
 */
class JournalStatsPropertiesTest {
    private static final int TRIES = 1000;
    private static final List<String> OWNERS = List.of("alice", "bob", "carol", "ada");
    private static final List<String> OUTCOMES = List.of("ok", "ok", "ok", "failed", "timeout", "failed_oom", "cancelled");
    private static final long MIN = 60_000;

    /** A journal and a question about it. */
    record Case(List<JournalEntry> journal, StatsQuery query) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder(query + "\n");
            journal.forEach(e -> sb.append("    ").append(e).append('\n'));
            return sb.toString();
        }
    }

    @Test
    void gpuHoursAreTheSumOfEachUsersGpuHours_andOfTheChartsBars() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            Stats s = JournalStats.compute(c.journal(), c.query());
            if (c.query().user().isEmpty()) {
                assertEquals(s.total().gpuMillis(), s.users().stream().mapToLong(u -> u.figures().gpuMillis()).sum());
            }
            assertEquals(s.total().gpuMillis(), s.bars().stream().mapToLong(b -> b.endMillis() - b.startMillis()).sum());
            assertTrue(s.total().gpuMillis() >= 0);
        });
    }

    @Test
    void waitPercentilesAreOrdered_p50AtMostP95AtMostMax_forEveryoneAndEachUser() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            Stats s = JournalStats.compute(c.journal(), c.query());
            ordered(s.total().waits());
            s.users().forEach(u -> ordered(u.figures().waits()));
        });
    }

    @Test
    void utilisationIsAShareInZeroToOne_perGpuAndInAll_andNoMoreThanTheBarsOnIt() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            Stats s = JournalStats.compute(c.journal(), c.query());
            List<Figures> all = new ArrayList<>(List.of(s.total()));
            s.users().forEach(u -> all.add(u.figures()));
            for (Figures f : all) {
                for (int gpu : s.gpus()) {
                    double share = f.utilisation().share(gpu);
                    assertTrue(share >= 0 && share <= 1, "gpu" + gpu + " " + share);
                }
                assertTrue(f.utilisation().all() >= 0 && f.utilisation().all() <= 1, "all " + f.utilisation().all());
            }
            for (int gpu : s.gpus()) {
                long busy = s.total().utilisation().busyMillis().get(gpu);
                long bars = s.bars().stream().filter(b -> b.gpu() == gpu).mapToLong(b -> b.endMillis() - b.startMillis()).sum();
                long longest = s.bars().stream().filter(b -> b.gpu() == gpu).mapToLong(b -> b.endMillis() - b.startMillis())
                        .max().orElse(0);
                assertTrue(busy <= bars && busy >= longest, "gpu" + gpu + " busy " + busy + ", bars " + bars);
            }
        });
    }

    @Test
    void filteringByUserThenSummingEqualsTheWhole_andEachUsersFiguresAreTheirRow() {
        Property.forAll(cases().map(c -> new Case(c.journal(), new StatsQuery(c.query().fromMillis(), c.query().toMillis(),
                Optional.empty(), c.query().tolerance(), c.query().fileJobsOwner())))).tries(TRIES).check(c -> {
            Stats whole = JournalStats.compute(c.journal(), c.query());
            Map<String, Integer> byStatus = new TreeMap<>();
            Figures.STATUSES.forEach(st -> byStatus.put(st, 0));
            long gpuMillis = 0;
            int waits = 0;
            int judged = 0;
            int within = 0;
            int bars = 0;
            for (Stats.UserFigures row : whole.users()) {
                Stats one = JournalStats.compute(c.journal(), c.query().forUser(row.user()));
                assertEquals(row.figures(), one.total(), row.user());
                assertEquals(List.of(row), one.users(), row.user());
                one.total().byStatus().forEach((st, n) -> byStatus.merge(st, n, Integer::sum));
                gpuMillis += one.total().gpuMillis();
                waits += one.total().waits().count();
                judged += one.total().declarations().judged();
                within += one.total().declarations().within();
                bars += one.bars().size();
                assertTrue(one.bars().stream().allMatch(b -> b.owner().equals(row.user())));
            }
            assertEquals(new TreeMap<>(whole.total().byStatus()), byStatus);
            assertEquals(whole.total().gpuMillis(), gpuMillis);
            assertEquals(whole.total().waits().count(), waits);
            assertEquals(whole.total().declarations().judged(), judged);
            assertEquals(whole.total().declarations().within(), within);
            assertEquals(whole.bars().size(), bars);
        });
    }

    @Test
    void declarationsAddUp_andTheMedianIsOneOfTheJudgedRatios() {
        Property.forAll(cases()).tries(TRIES).check(c -> {
            Stats s = JournalStats.compute(c.journal(), c.query());
            var d = s.total().declarations();
            assertEquals(d.judged(), d.within() + d.underDeclared() + d.overDeclared());
            assertEquals(d.judged() > 0, d.medianPeakOverDeclared().isPresent());
            assertTrue(d.medianPeakOverDeclared().orElse(1) >= 0);
            double shares = d.share(d.within()) + d.share(d.underDeclared()) + d.share(d.overDeclared());
            assertTrue(d.judged() == 0 ? shares == 0 : Math.abs(shares - 1) < 1e-9, "shares " + shares);
        });
    }

    private static void ordered(Waits w) {
        assertEquals(w.count() > 0, w.p50Millis().isPresent());
        if (w.count() > 0) {
            long p50 = w.p50Millis().getAsLong();
            long p95 = w.p95Millis().getAsLong();
            long max = w.maxMillis().getAsLong();
            assertTrue(0 <= p50 && p50 <= p95 && p95 <= max, p50 + " " + p95 + " " + max);
        }
    }

    // ---- generators -----------------------------------------------------------------------------

    static Gen<Case> cases() {
        Gen<List<JournalEntry>> journals = Gen.<List<JournalEntry>>weighted()
                .add(4, JournalStatsPropertiesTest::lives)
                .add(1, JournalStatsPropertiesTest::arbitrary)
                .build();
        return (r, size) -> {
            List<JournalEntry> journal = journals.next(r, size);
            long last = journal.stream().mapToLong(e -> e.atMillis().orElse(0)).max().orElse(0);
            long to = last + (r.nextInt(3) == 0 ? 0 : r.nextLong(0, 120 * MIN));
            OptionalLong from = r.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(to - r.nextLong(1, to + 2));
            Optional<String> user = r.nextInt(3) == 0 ? Optional.of(OWNERS.get(r.nextInt(OWNERS.size()))) : Optional.empty();
            double tolerance = r.nextInt(4) == 0 ? 0 : r.nextDouble(0, 0.5);
            return new Case(journal, new StatsQuery(from, to, user, tolerance, "ada"));
        };
    }

    /** Jobs' lives as a scheduler writes them, interleaved by time; some lines without one. */
    static List<JournalEntry> lives(RandomGenerator r, int size) {
        int jobs = r.nextInt(0, 2 + Math.min(size, 12));
        boolean olderLines = r.nextInt(4) == 0;
        List<long[]> order = new ArrayList<>();
        List<JournalEntry> lines = new ArrayList<>();
        for (int j = 1; j <= jobs; j++) {
            String key = r.nextBoolean() ? "s" + j : String.format("%012x#0", j);
            long t = r.nextLong(0, 600) * MIN / 10;
            OptionalLong declared = r.nextInt(4) == 0 ? OptionalLong.empty() : OptionalLong.of(r.nextLong(100, 40_000));
            List<JournalEvent> events = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            if (key.startsWith("s")) {
                events.add(new JournalEvent.Submitted(key, j, "cmd", declared, 1, OptionalLong.empty(), 2, "api",
                        OWNERS.get(r.nextInt(OWNERS.size())), "/w", t, Optional.empty(), Optional.empty()));
            } else {
                events.add(new JournalEvent.Seen(key, j, "cmd"));
            }
            times.add(t);
            int runs = r.nextInt(0, 4);
            boolean ended = r.nextInt(5) > 0;
            for (int run = 0; run < runs; run++) {
                t += r.nextLong(0, 90) * MIN / 3;
                List<Integer> gpus = new ArrayList<>(new java.util.TreeSet<>(Gen.listOf(Gen.ints(0, 3), 1, 3).next(r, size)));
                events.add(new JournalEvent.Started(key, 100 + j, gpus, declared));
                times.add(t);
                t += r.nextLong(0, 180) * MIN / 3;
                boolean lastRun = run == runs - 1;
                if (lastRun && !ended) {
                    break; // still running
                }
                if (lastRun) {
                    String status = OUTCOMES.get(r.nextInt(OUTCOMES.size()));
                    Map<Integer, Long> peaks = new TreeMap<>();
                    if (r.nextInt(4) > 0) {
                        for (int g : gpus) {
                            peaks.put(g, declared.orElse(8000) * r.nextLong(50, 150) / 100);
                        }
                    }
                    events.add(new JournalEvent.Done(key, status, status.equals("ok") ? 0 : 1, peaks, OptionalDouble.empty()));
                } else {
                    switch (r.nextInt(3)) {
                        case 0 -> {
                            declared = OptionalLong.of(declared.orElse(4000) * 5 / 4);
                            events.add(new JournalEvent.Oom(key, run + 1, declared));
                        }
                        case 1 -> events.add(new JournalEvent.Requeued(key, JournalEvent.Requeued.PREEMPTED));
                        default -> events.add(new JournalEvent.Interrupted(key));
                    }
                }
                times.add(t);
            }
            if (runs == 0 && ended) {
                events.add(new JournalEvent.Done(key, r.nextBoolean() ? "cancelled" : "infeasible", 1, Map.of(),
                        OptionalDouble.empty()));
                times.add(t + r.nextLong(0, 30) * MIN);
            }
            for (int i = 0; i < events.size(); i++) {
                boolean untimed = olderLines && r.nextInt(3) == 0;
                order.add(new long[] {times.get(i), lines.size()});
                lines.add(untimed ? JournalEntry.untimed(events.get(i)) : JournalEntry.at(events.get(i), times.get(i)));
            }
        }
        // The file's order is the order of writing: by time, each job's lines in their order.
        order.sort(Comparator.<long[]>comparingLong(o -> o[0]).thenComparingLong(o -> o[1]));
        return order.stream().map(o -> lines.get((int) o[1])).toList();
    }

    /** Any events over a few keys, in any order, at non-decreasing times or none: what a damaged history folds. */
    static List<JournalEntry> arbitrary(RandomGenerator r, int size) {
        List<JournalEvent> events = JournalCompactionPropertiesTest.journals().next(r, size);
        List<JournalEntry> out = new ArrayList<>();
        long t = 0;
        for (JournalEvent e : events) {
            t += r.nextLong(0, 30 * MIN);
            out.add(r.nextInt(5) == 0 ? JournalEntry.untimed(e) : JournalEntry.at(e, t));
        }
        return out;
    }
}

package io.gpusched.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpusched.journal.JournalEntry;
import io.gpusched.journal.JournalEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The rules of {@link JournalStats} one at a time, on small journals; times are in minutes. */
class JournalStatsTest {
    private static final long MIN = 60_000;

    private final List<JournalEntry> journal = new ArrayList<>();

    private JournalStatsTest at(long minute, JournalEvent e) {
        journal.add(JournalEntry.at(e, minute * MIN));
        return this;
    }

    private JournalStatsTest untimed(JournalEvent e) {
        journal.add(JournalEntry.untimed(e));
        return this;
    }

    private static JournalEvent.Submitted submitted(String key, String owner, long minute, long vram) {
        return new JournalEvent.Submitted(key, Integer.parseInt(key.substring(1)), "cmd", OptionalLong.of(vram), 1,
                OptionalLong.empty(), 0, "api", owner, "/", minute * MIN, Optional.empty(), Optional.empty());
    }

    private static JournalEvent.Started started(String key, long vram, Integer... gpus) {
        return new JournalEvent.Started(key, 100, List.of(gpus), vram == 0 ? OptionalLong.empty() : OptionalLong.of(vram));
    }

    private static JournalEvent.Done done(String key, String status, Map<Integer, Long> peaks) {
        return new JournalEvent.Done(key, status, 0, peaks, OptionalDouble.empty());
    }

    private Stats stats(OptionalLong fromMinute, long toMinute) {
        return JournalStats.compute(journal, new StatsQuery(fromMinute.isPresent()
                ? OptionalLong.of(fromMinute.getAsLong() * MIN) : OptionalLong.empty(), toMinute * MIN, Optional.empty(), 0.1,
                "ada"));
    }

    @Test
    void aRunAcrossThePeriodsStartCountsOnlyItsPartInside_andAnOpenRunCountsToTheEnd() {
        at(0, new JournalEvent.Seen("a#0", 1, "x")).at(0, started("a#0", 0, 0)).at(90, done("a#0", "ok", Map.of()));
        at(0, new JournalEvent.Seen("b#0", 2, "y")).at(100, started("b#0", 0, 1));
        Stats s = stats(OptionalLong.of(60), 120);
        // a: minutes 60-90 of its run; b: 100-120, still running.
        assertEquals(50 * MIN, s.total().gpuMillis());
        assertEquals(0.5, s.total().utilisation().share(0));
        assertEquals(20.0 / 60, s.total().utilisation().share(1));
        assertEquals(1, s.notes().openRuns());
        assertEquals(List.of(new Bar(1, "ada", 0, 60 * MIN, 90 * MIN, 0, Bar.Height.NONE, "ok"),
                new Bar(2, "ada", 1, 100 * MIN, 120 * MIN, 0, Bar.Height.NONE, "running")), s.bars());
        // b first started in the period, 100 minutes after it was seen; a before it.
        assertEquals(1, s.total().waits().count());
        assertEquals(OptionalLong.of(100 * MIN), s.total().waits().maxMillis());
    }

    @Test
    void computeOwn_tellsNothingOfAnotherUsersJobs_notTheGpusTheyUsedNorWhenTheJournalBegan() {
        // alice: minutes 0-60 on gpu 1; bob: queued at 100, ran 110-130 on gpu 0.
        at(0, submitted("s1", "alice", 0, 1000)).at(0, started("s1", 1000, 1)).at(60, done("s1", "ok", Map.of(1, 900L)));
        at(100, submitted("s2", "bob", 100, 1000)).at(110, started("s2", 1000, 0)).at(130, done("s2", "ok", Map.of(0, 950L)));
        StatsQuery bobs = new StatsQuery(OptionalLong.empty(), 140 * MIN, Optional.of("bob"), 0.1, "ada");
        Stats own = JournalStats.computeOwn(journal, bobs);
        assertEquals(List.of(0), own.gpus(), "alice's gpu 1 is not named to bob");
        assertEquals(100 * MIN, own.fromMillis(), "his period starts at his own first time, not alice's");
        assertEquals(List.of("bob"), own.users().stream().map(Stats.UserFigures::user).toList());
        assertEquals(1, own.total().jobs());
        assertEquals(0.5, own.total().utilisation().share(0), "20 of his period's 40 minutes");
        own.bars().forEach(b -> assertEquals("bob", b.owner()));
        // The same query through compute, as the journal's reader runs it: the journal's GPUs and start.
        Stats read = JournalStats.compute(journal, bobs);
        assertEquals(List.of(0, 1), read.gpus());
        assertEquals(0, read.fromMillis());
        assertEquals(1, read.total().jobs());
        assertThrows(IllegalArgumentException.class, () -> JournalStats.computeOwn(journal, new StatsQuery(OptionalLong.empty(),
                140 * MIN, Optional.empty(), 0.1, "ada")), "computeOwn needs whose jobs");
    }

    @Test
    void aJournalWrittenAcrossAWallClockSetBack_showsNoNegativeGpuTimeOrWait() {
        // Submitted at minute 50 and started at 40, ended at 30: the clock was set back between the lines.
        at(50, submitted("s1", "alice", 50, 1000)).at(40, started("s1", 1000, 0)).at(30, done("s1", "ok", Map.of(0, 900L)));
        Stats s = stats(OptionalLong.empty(), 120);
        assertEquals(0, s.total().gpuMillis());
        assertEquals(OptionalLong.of(0), s.total().waits().maxMillis());
        s.bars().forEach(b -> assertEquals(true, b.endMillis() >= b.startMillis(), b.toString()));
    }

    @Test
    void jobsSharingAGpuAtOnceHoldItOnce_butEachCountsItsGpuTime() {
        at(0, submitted("s1", "alice", 0, 1000)).at(0, started("s1", 1000, 0)).at(60, done("s1", "ok", Map.of(0, 900L)));
        at(0, submitted("s2", "bob", 0, 1000)).at(30, started("s2", 1000, 0)).at(90, done("s2", "ok", Map.of(0, 1200L)));
        Stats s = stats(OptionalLong.empty(), 120);
        assertEquals(120 * MIN, s.total().gpuMillis());
        assertEquals(90 * MIN, s.total().utilisation().busyMillis().get(0));
        assertEquals(0.75, s.total().utilisation().all());
        assertEquals(List.of("alice", "bob"), s.users().stream().map(Stats.UserFigures::user).toList());
        // 900 of 1000 is at the band's edge (1000 x 0.9): within; 1200 is above 1100: under-declared.
        assertEquals(new Declarations(2, 1, 1, 0, OptionalDouble.of(0.9)), s.total().declarations());
    }

    @Test
    void aLaunchSettledAfterARestartIsOneRun_aStartOnOtherGpusEndsTheFirst() {
        at(0, new JournalEvent.Seen("a#0", 1, "x")).at(0, started("a#0", 0, 0)).at(10, started("a#0", 0, 0))
                .at(20, started("a#0", 0, 1)).at(30, done("a#0", "ok", Map.of()));
        Stats s = stats(OptionalLong.empty(), 30);
        assertEquals(List.of(new Bar(1, "ada", 0, 0, 20 * MIN, 0, Bar.Height.NONE, "interrupted"),
                new Bar(1, "ada", 1, 20 * MIN, 30 * MIN, 0, Bar.Height.NONE, "ok")), s.bars());
    }

    @Test
    void anOlderStartedLineWithoutItsDeclarationTakesTheSubmissionsOrTheOomsBump() {
        at(0, submitted("s1", "alice", 0, 1000)).untimed(started("s1", 0, 0))
                .untimed(new JournalEvent.Oom("s1", 1, OptionalLong.of(1250))).untimed(started("s1", 0, 0))
                .untimed(done("s1", "ok", Map.of(0, 1200L)));
        Stats s = stats(OptionalLong.empty(), 10);
        // Judged against the retry's 1250: within 10%.
        assertEquals(new Declarations(1, 1, 0, 0, OptionalDouble.of(1200.0 / 1250)), s.total().declarations());
        assertEquals(new Stats.Notes(2, 1, 0, 0, 0), s.notes());
        assertEquals(0, s.total().gpuMillis());
        assertEquals(List.of(), s.bars());
    }

    @Test
    void aJournalWithNoTimesAtAllCountsItsJobs_inAnEmptyPeriod() {
        untimed(new JournalEvent.Seen("a#0", 1, "x")).untimed(started("a#0", 0, 0)).untimed(done("a#0", "failed", Map.of()));
        Stats s = stats(OptionalLong.empty(), 500);
        assertEquals(500 * MIN, s.fromMillis());
        assertEquals(1, s.total().byStatus().get("failed"));
        assertEquals(0.0, s.total().utilisation().share(0));
        // With a --since, an end without a time cannot be placed in the period.
        Stats since = stats(OptionalLong.of(400), 500);
        assertEquals(0, since.total().jobs());
        assertEquals(1, since.notes().untimedEnds());
    }

    @Test
    void percentilesAreNearestRank() {
        assertEquals(new Waits(0, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty()), Waits.of(new long[0]));
        assertEquals(new Waits(1, OptionalLong.of(7), OptionalLong.of(7), OptionalLong.of(7)), Waits.of(new long[] {7}));
        long[] hundred = new long[100];
        for (int i = 0; i < 100; i++) {
            hundred[i] = 100 - i;
        }
        assertEquals(new Waits(100, OptionalLong.of(50), OptionalLong.of(95), OptionalLong.of(100)), Waits.of(hundred));
        assertEquals(new Waits(3, OptionalLong.of(2), OptionalLong.of(3), OptionalLong.of(3)), Waits.of(new long[] {3, 1, 2}));
    }

    @Test
    void aRetriedJobKeepsItsFirstStartForItsWait_andItsLastOutcome() {
        at(0, submitted("s1", "alice", 0, 1000)).at(5, started("s1", 1000, 0)).at(10, done("s1", "failed", Map.of()))
                .at(20, new JournalEvent.Retry("s1")).at(30, started("s1", 1000, 0)).at(40, done("s1", "ok", Map.of()));
        Stats s = stats(OptionalLong.empty(), 40);
        assertEquals(OptionalLong.of(5 * MIN), s.total().waits().p50Millis());
        assertEquals(1, s.total().byStatus().get("ok"));
        assertEquals(0, s.total().byStatus().get("failed"));
        assertEquals(15 * MIN, s.total().gpuMillis());
    }
}

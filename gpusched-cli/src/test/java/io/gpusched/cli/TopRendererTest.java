package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ScreenLine.Span;
import io.gpusched.cli.ScreenLine.Style;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** gpusched top's frames, exactly: the renderer is a function of the snapshot, the size and the selection. */
class TopRendererTest {
    private static final Span KEYS = new Span("q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU", Style.DIM);

    private static String frame(TopSnapshot s, int width, int height, OptionalInt selected, Optional<Span> status) {
        StringBuilder b = new StringBuilder();
        for (ScreenLine l : TopRenderer.render(s, new TopRenderer.View(width, height, selected, status,
                TopRenderer.Glyphs.UNICODE))) {
            b.append(l.plain()).append('\n');
        }
        return b.toString();
    }

    @Test
    void aBusyMachineOnAWideTerminal() {
        assertEquals("""
                gpusched top — 3 running, 2 pending, 2 done
                gpu0 [███████████████░░░░░▓▓▓▓▓▓▓▓▓▓▓▓▒▒▒▒▒▒▒▒▒▒▒                 ] 14.6G/23.4G  63% busy
                      █ 3 alice 5.9G/8.0G  ▓ 4 bob 4.4G/4.0G  ▒ others 4.4G  free 6.6G
                gpu1 [███████████████████████████████████████████████████         ] 20.0G/23.4G 100% busy PAUSED
                      █ 5 carol 20.0G/—  free 3.4G

                  JOB USER  PRI ST   GPU MEM          TIME COMMAND
                >   3 alice   0 run  0   5.9G/8.0G   12:34 python train.py --lr 3e-4
                    4 bob     2 run  0   4.4G/4.0G    1:05 python finetune.py
                    5 carol   0 stop 1   20.0G/—   1:02:03 ./render.sh
                    6 dave    5 wait     —/16.0G           needs 1 GPU with ≥ 16896 MiB headroom; best is gpu0 with…
                    7 alice   0 wait     —/—               needs 1 fully idle GPU — python eval.py

                latest results
                ✗   2 bob   failed-oom under-declared peak 2.1G/2.0G — python oom.py
                ✓   1 alice ok         within         peak 7.7G/8.0G — python prep.py



                q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU
                """, frame(TopFixtures.busy(), 100, 20, OptionalInt.of(3), Optional.of(KEYS)));
    }

    @Test
    void aNarrowSixtyColumnTerminal_cutsTextNeverTheMarks() {
        assertEquals("""
                gpusched top — 3 running, 2 pending, 2 done
                gpu0 [██████░░▓▓▓▓▓▒▒▒▒       ] 14.6G/23.4G  63% busy
                      █ 3 alice 5.9G/8.0G  ▓ 4 bob 4.4G/4.0G  ▒ others 4.4G…
                gpu1 [████████████████████    ] 20.0G/23.4G 100% busy PAUSED
                      █ 5 carol 20.0G/—  free 3.4G

                  JOB USER  PRI ST   GPU MEM       COMMAND
                    3 alice   0 run  0   5.9G/8.0G python train.py --lr 3e-4
                >   4 bob     2 run  0   4.4G/4.0G python finetune.py
                    5 carol   0 stop 1   20.0G/—   ./render.sh
                    6 dave    5 wait     —/16.0G   needs 1 GPU with ≥ 16896…
                    7 alice   0 wait     —/—       needs 1 fully idle GPU —…

                latest results
                ✗   2 bob   failed-oom under-declared peak 2.1G/2.0G — pyth…
                ✓   1 alice ok         within         peak 7.7G/8.0G — pyth…



                q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU
                """, frame(TopFixtures.busy(), 60, 20, OptionalInt.of(4), Optional.of(KEYS)));
    }

    @Test
    void aShortTerminalDropsBlankLinesThenResultsThenPendingJobs_keepingEveryRunningOne() {
        assertEquals("""
                gpusched top — 3 running, 2 pending, 2 done
                gpu0 [███████████░░░░▓▓▓▓▓▓▓▓▒▒▒▒▒▒▒▒▒            ] 14.6G/23.4G  63% busy
                      █ 3 alice 5.9G/8.0G  ▓ 4 bob 4.4G/4.0G  ▒ others 4.4G  free 6.6G
                gpu1 [██████████████████████████████████████      ] 20.0G/23.4G 100% busy PAUSED
                      █ 5 carol 20.0G/—  free 3.4G
                  JOB USER  PRI ST   GPU MEM       COMMAND
                >   3 alice   0 run  0   5.9G/8.0G python train.py --lr 3e-4
                    4 bob     2 run  0   4.4G/4.0G python finetune.py
                    5 carol   0 stop 1   20.0G/—   ./render.sh
                  … 2 more jobs
                q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU
                """, frame(TopFixtures.busy(), 80, 11, OptionalInt.of(3), Optional.of(KEYS)));
        assertEquals("""
                gpusched top — 3 running, 2 pending, 2 done
                gpu0 [███████████░░░░▓▓▓▓▓▓▓▓▒▒▒▒▒▒▒▒▒            ] 14.6G/23.4G  63% busy
                gpu1 [██████████████████████████████████████      ] 20.0G/23.4G 100% busy PAUSED
                  JOB USER  PRI ST   GPU MEM       COMMAND
                >   3 alice   0 run  0   5.9G/8.0G python train.py --lr 3e-4
                    4 bob     2 run  0   4.4G/4.0G python finetune.py
                    5 carol   0 stop 1   20.0G/—   ./render.sh
                  … 2 more jobs
                q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU
                """, frame(TopFixtures.busy(), 80, 9, OptionalInt.of(3), Optional.of(KEYS)), "the lines under the bars go next");
    }

    @Test
    void aTallQueueIsCutWithAMoreLine() {
        assertEquals("""
                gpusched top — 2 running, 30 pending, 0 done
                gpu0 [█░░▓▓▓                             ] 2.9G/23.4G PAUSED
                      █ 1 eve 1000M/2.0G  ▓ 2 eve 2.0G/2.0G  free 19.4G
                  JOB USER PRI ST   GPU MEM        COMMAND
                >   1 eve    0 run  0   1000M/2.0G a
                    2 eve    0 run  0   2.0G/2.0G  b
                   10 u0     0 wait     —/1.0G     gpu0 is paused — sleep 0
                   11 u1     1 wait     —/2.0G     gpu0 is paused — sleep 1
                   12 u2     2 wait     —/3.0G     gpu0 is paused — sleep 2
                   13 u0     3 wait     —/4.0G     gpu0 is paused — sleep 3
                   14 u1     0 wait     —/5.0G     gpu0 is paused — sleep 4
                   15 u2     1 wait     —/1.0G     gpu0 is paused — sleep 5
                  … 24 more jobs
                q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU
                """, frame(TopFixtures.tall(30), 60, 14, OptionalInt.of(1), Optional.of(KEYS)));
    }

    @Test
    void theListScrollsToKeepTheSelectedJobInSight() {
        assertEquals("""
                gpusched top — 2 running, 30 pending, 0 done
                gpu0 [█░░▓▓▓                             ] 2.9G/23.4G PAUSED
                      █ 1 eve 1000M/2.0G  ▓ 2 eve 2.0G/2.0G  free 19.4G
                  JOB USER PRI ST   GPU MEM        COMMAND
                   22 u0     0 wait     —/3.0G     gpu0 is paused — sleep 12
                   23 u1     1 wait     —/4.0G     gpu0 is paused — sleep 13
                   24 u2     2 wait     —/5.0G     gpu0 is paused — sleep 14
                >  25 u0     3 wait     —/1.0G     gpu0 is paused — sleep 15
                  … 28 more jobs
                q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU
                """, frame(TopFixtures.tall(30), 60, 10, OptionalInt.of(25), Optional.of(KEYS)));
    }

    @Test
    void onceFramesHaveNoStatusLineAndNoPadding_andAsciiTerminalsGetAsciiBars() {
        String once = frame(TopFixtures.busy(), 100, Integer.MAX_VALUE, OptionalInt.empty(), Optional.empty());
        assertEquals(16, once.lines().count(), once);
        assertTrue(once.endsWith("✓   1 alice ok         within         peak 7.7G/8.0G — python prep.py\n"), once);
        assertTrue(once.contains("\n    3 alice   0 run "), "nothing selected: " + once);
        List<String> ascii = TopRenderer.render(TopFixtures.busy(), new TopRenderer.View(70, 30, OptionalInt.empty(),
                Optional.empty(), TopRenderer.Glyphs.ASCII)).stream().map(ScreenLine::plain).toList();
        assertEquals(List.of("gpusched top - 3 running, 2 pending, 2 done",
                "gpu0 [#########---======++++++          ] 14.6G/23.4G  63% busy",
                "      # 3 alice 5.9G/8.0G  = 4 bob 4.4G/4.0G  + others 4.4G  free 6.6G",
                "gpu1 [#############################     ] 20.0G/23.4G 100% busy PAUSED",
                "      # 5 carol 20.0G/-  free 3.4G"), ascii.subList(0, 5));
    }

    @Test
    void anIdleMachineAndOneNotYetRead() {
        TopSnapshot idle = new TopSnapshot(List.of(new TopSnapshot.Gpu(0, 81_920, 300, OptionalInt.of(0), false, false)),
                List.of(), List.of(), List.of());
        assertEquals("""
                gpusched top — 0 running, 0 pending, 0 done
                gpu0 [                                          ] 300M/80.0G   0% busy UNHEALTHY
                      ▒ others 300M  free 79.7G
                """, frame(idle, 80, 30, OptionalInt.empty(), Optional.empty()));
        assertEquals("gpusched top — 0 running, 0 pending, 0 done\nno GPU readings yet\n",
                frame(new TopSnapshot(List.of(), List.of(), List.of(), List.of()), 80, 30, OptionalInt.empty(), Optional.empty()));
    }

    @Test
    void aJobKeepsItsColourInItsBarItsLegendAndItsRow() {
        List<ScreenLine> lines = TopRenderer.render(TopFixtures.busy(), new TopRenderer.View(100, 20, OptionalInt.of(4),
                Optional.of(KEYS), TopRenderer.Glyphs.UNICODE));
        String colour = "\u001b[" + sgr(Style.job(4)) + "m";
        assertTrue(lines.get(1).ansi().contains(colour + "▓▓▓▓"), lines.get(1).ansi());
        assertTrue(lines.get(2).ansi().contains(colour + "▓"), lines.get(2).ansi());
        assertTrue(lines.get(8).ansi().contains("\u001b[7;" + sgr(Style.job(4)) + "m  4"), "selected: reverse video, "
                + lines.get(8).ansi());
        assertTrue(lines.get(3).ansi().contains("\u001b[33m PAUSED\u001b[0m"), lines.get(3).ansi());
        assertTrue(lines.get(2).ansi().contains("\u001b[33m4.4G/4.0G\u001b[0m"), "over its declaration: " + lines.get(2).ansi());
    }

    private static String sgr(Style s) {
        return new ScreenLine(List.of(new Span("x", s)), false).ansi().replaceAll("^\u001b\\[([0-9;]*)m.*", "$1");
    }

    @Test
    void theBarSplitsAGpuByJobThenOthersThenHeadroom_cellsAlwaysAddUp() {
        TopSnapshot.Gpu gpu = new TopSnapshot.Gpu(0, 24_000, 13_000, OptionalInt.empty(), true, false);
        List<TopSnapshot.Running> jobs = List.of(
                new TopSnapshot.Running(2, "a", 0, List.of(0), Map.of(0, 3000L), OptionalLong.of(6000), 1, false, "x"),
                new TopSnapshot.Running(1, "b", 0, List.of(0, 1), Map.of(0, 4000L, 1, 9000L), OptionalLong.empty(), 1, false, "y"),
                new TopSnapshot.Running(3, "c", 0, List.of(1), Map.of(1, 9000L), OptionalLong.of(9000), 1, false, "z"));
        String bar = String.join("", MemoryBar.cells(MemoryBar.segments(gpu, jobs, TopRenderer.Glyphs.UNICODE), 24_000, 24)
                .stream().map(Span::text).toList());
        // job 1 holds 4000 (undeclared); job 2 holds 3000 of 6000 declared; others 6000; headroom 8000.
        assertEquals("████▓▓▓░░░▒▒▒▒▒▒        ", bar);
        assertEquals(6000, MemoryBar.external(gpu, jobs));
        assertEquals(8000, MemoryBar.headroom(gpu, jobs));
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.cli.ScreenLine.Span;
import io.gpusched.cli.ScreenLine.Style;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class TopSessionTest {
    private final TopSnapshot busy = TopFixtures.busy(); // running 3, 4, 5; pending 6, 7; gpus 0, 1

    private TopSession session(TopSnapshot snap) {
        TopSession s = new TopSession(true);
        s.refresh(snap);
        return s;
    }

    @Test
    void theFirstJobIsSelected_upDownAndJkMoveThroughRunningThenPending_wrapping() {
        TopSession s = session(busy);
        assertEquals(OptionalInt.of(3), s.selected());
        List<Integer> seen = new ArrayList<>();
        for (int key : new int[] {TopSession.DOWN, 'j', 'j', 'j', TopSession.DOWN, TopSession.UP, 'k'}) {
            assertEquals(new TopSession.Redraw(), s.handle(key, busy));
            seen.add(s.selected().getAsInt());
        }
        assertEquals(List.of(4, 5, 6, 7, 3, 7, 6), seen);
    }

    @Test
    void aNewSnapshotKeepsTheSelectedJob_orTheOneNowInItsPlace() {
        TopSession s = session(busy);
        s.handle('j', busy);
        s.handle('j', busy); // job 5, third in the list
        TopSnapshot reordered = new TopSnapshot(busy.gpus(), busy.running().subList(1, 3), busy.pending(), busy.finished());
        s.refresh(reordered);
        assertEquals(OptionalInt.of(5), s.selected(), "job 3 ended: 5 is still selected");
        TopSnapshot fiveGone = new TopSnapshot(busy.gpus(), busy.running().subList(1, 2), busy.pending(), busy.finished());
        s.refresh(fiveGone);
        assertEquals(OptionalInt.of(6), s.selected(), "5 ended: the job now second, where it was");
        s.refresh(new TopSnapshot(busy.gpus(), List.of(), List.of(), busy.finished()));
        assertEquals(OptionalInt.empty(), s.selected());
        assertEquals(new Span("no job to cancel", Style.DIM), statusAfter(s, 'c', busy));
    }

    private static Span statusAfter(TopSession s, int key, TopSnapshot snap) {
        s.handle(key, snap);
        return s.status(snap);
    }

    @Test
    void cancelAsksFirst_yesCancelsTheJobAskedAbout_anythingElseDoesNot() {
        TopSession s = session(busy);
        s.handle('j', busy);
        assertEquals(new Span("cancel job 4 (bob: python finetune.py)? y/n", Style.WARN), statusAfter(s, 'c', busy));
        assertEquals(new TopSession.Cancel(4), s.handle('y', busy));
        s.told(new Span("job 4: stopping (SIGTERM to its session)", Style.OK));
        assertEquals("job 4: stopping (SIGTERM to its session)", s.status(busy).text());
        s.handle('c', busy);
        assertEquals(new TopSession.Redraw(), s.handle('n', busy));
        assertEquals(new Span("job 4 not cancelled", Style.DIM), s.status(busy));
        assertEquals("q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU", statusAfter(s, 'x', busy).text(),
                "a key clears the last message");
    }

    @Test
    void pauseAndResumeAskWhichGpu_oneDigitIsEnoughWhenNoLongerIndexExists() {
        TopSession s = session(busy);
        assertEquals(new Span("pause which GPU (0-1)? Esc backs out: ", Style.WARN), statusAfter(s, 'p', busy));
        assertEquals(new TopSession.Pause(1, true), s.handle('1', busy));
        s.handle('r', busy);
        assertEquals(new TopSession.Pause(0, false), s.handle('0', busy));
        s.handle('r', busy);
        assertEquals(new TopSession.Redraw(), s.handle(TopSession.ESCAPE, busy));
        assertEquals("q quit  ↑↓/jk select  c cancel  p pause  r resume a GPU", s.status(busy).text());
    }

    @Test
    void onTwelveGpusIndicesTakeTwoDigitsOrEnter_backspaceErases() {
        List<TopSnapshot.Gpu> gpus = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            gpus.add(new TopSnapshot.Gpu(i, 80_000, 0, OptionalInt.empty(), true, false));
        }
        TopSnapshot twelve = new TopSnapshot(gpus, List.of(), List.of(), List.of());
        TopSession s = session(twelve);
        s.handle('p', twelve);
        assertEquals(new TopSession.Redraw(), s.handle('1', twelve));
        assertEquals("pause which GPU (0-11)? Enter ends it, Esc backs out: 1", s.status(twelve).text());
        assertEquals(new TopSession.Pause(11, true), s.handle('1', twelve));
        s.handle('r', twelve);
        s.handle('1', twelve);
        s.handle(127, twelve);
        assertEquals("resume which GPU (0-11)? Enter ends it, Esc backs out: ", s.status(twelve).text());
        s.handle('1', twelve);
        assertEquals(new TopSession.Pause(1, false), s.handle('\n', twelve));
        s.handle('p', twelve);
        assertEquals(new TopSession.Pause(7, true), s.handle('7', twelve), "no GPU 70 or above: 7 is whole");
    }

    @Test
    void qQuits_andCtrlCQuitsEvenMidQuestion() {
        TopSession s = session(busy);
        assertEquals(new TopSession.Quit(), s.handle('q', busy));
        s.handle('c', busy);
        assertEquals(new TopSession.Quit(), s.handle(TopSession.CTRL_C, busy));
    }
}

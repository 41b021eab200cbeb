package io.gpusched.engine.table;

import io.gpusched.engine.proc.ProcFs;
import io.gpusched.engine.spawn.RunningJob;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.journal.RunHandle;
import io.gpusched.model.JobId;
import io.gpusched.model.JobState;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The job table: one row per job, found by number, joining the journal's fold, the queue and the run. */
class JobTableTest {
    private final JournalState state = new JournalState();
    private final JobSpec line = JobSpec.parse("[vram=1G] train.py");
    private final JobsSource source = new JobsSource(Optional.empty(), List.of(line));
    private final JobTable table = new JobTable(() -> state, source, new ProcFs(Path.of("/nonexistent")), false);

    @Test
    void aJobIsFoundByItsNumber_withItsOwnerStateAndSpec() {
        state.apply(new JournalEvent.Seen(line.key(), 1, line.command()));
        source.submit(JobSpec.parse("echo hi").withKey("s2"));
        state.apply(new JournalEvent.Submitted("s2", 2, "echo hi", OptionalLong.empty(), 1, OptionalLong.empty(), 0,
                "api", "alice", "/tmp", 1L, Optional.empty(), Optional.empty()));
        state.apply(new JournalEvent.Launching("s2", 1, List.of(0)));
        state.apply(new JournalEvent.Started("s2", 4242, List.of(0)));

        JobTable.Job file = table.byNo(1).orElseThrow();
        assertEquals(new JobId.FileLine(line.key()), file.id());
        assertEquals(JobState.PENDING, file.state());
        assertEquals(System.getProperty("user.name", "?"), file.owner());
        assertEquals(Optional.of(line), file.spec());

        JobTable.Job sub = table.byNo(2).orElseThrow();
        assertEquals(new JobId.Submission(2), sub.id());
        assertEquals("alice", sub.owner());
        assertEquals(JobState.RUNNING, sub.state());
        assertEquals(Optional.of(new RunHandle.Session(4242)), sub.handle());
        assertTrue(table.byNo(3).isEmpty(), "a number the journal never gave");
    }

    @Test
    void aTimeSlicedJobGoesBehindEveryOther_untilItEnds() {
        Instant t0 = Instant.parse("2026-11-25T10:00:00Z");
        assertEquals(Optional.empty(), table.since("k"), "nothing fixed yet");
        assertEquals(t0, table.fixSince("k", t0));
        assertEquals(t0, table.fixSince("k", t0.plusSeconds(5)), "fixed the first time only");
        assertEquals(7, table.position("k", 7));
        table.toTheBack("k", t0.plusSeconds(60));
        assertTrue(table.position("k", 7) > 1_000_000, "at the back");
        assertEquals(Optional.of(t0.plusSeconds(60)), table.since("k"));
        assertEquals(t0.plusSeconds(60), table.fixSince("k", t0));
        table.forget("k");
        assertEquals(7, table.position("k", 7));
    }

    private RunningJob run(long session) {
        return new RunningJob(line, 1, OptionalLong.empty(), List.of(0), session, Path.of("/tmp/job001_gpu0.log"),
                Instant.EPOCH, 0, session, 0, Optional.empty());
    }

    @Test
    void aRunIsTheRowsUntilItsLeaderExits_andALateExitOfAnEarlierAttemptChangesNothing() {
        state.apply(new JournalEvent.Seen(line.key(), 1, line.command()));
        RunningJob first = run(4242);
        table.started(first);
        assertEquals(Optional.of(first), table.byNo(1).orElseThrow().run());
        assertTrue(table.isRunning(line.key()));
        assertEquals(Optional.of(first), table.runInSession(4242));
        assertTrue(table.otherSessions().contains(4242L), "a run's own session is never swept");

        RunningJob second = run(4343); // run again before the first attempt's exit was reaped
        table.started(second);
        assertFalse(table.runEnded(first), "not the current attempt");
        assertEquals(List.of(second), List.copyOf(table.runs()));

        assertTrue(table.runEnded(second));
        assertTrue(table.noneRunning());
        assertEquals(Optional.empty(), table.byNo(1).orElseThrow().run());
        assertFalse(table.otherSessions().contains(4343L));
    }

    @Test
    void aRowCarriesWhatTheJournalSaysOfItsJob_asOfEachLookup() {
        state.apply(new JournalEvent.Seen(line.key(), 1, line.command()));
        JobTable.Job seen = table.job(line.key());
        assertTrue(seen.numbered());
        assertEquals(0, seen.attempts());
        assertEquals(OptionalLong.empty(), seen.nextVramMib());

        state.apply(new JournalEvent.Launching(line.key(), 7, List.of(1)));
        JobTable.Job launching = table.job(line.key());
        assertTrue(launching.launching());
        assertEquals(OptionalLong.of(7), launching.runNo());
        assertEquals(OptionalLong.empty(), launching.session(), "no started line yet");
        assertEquals(List.of(launching.key()), table.launchingAtStart().stream().map(JobTable.Job::key).toList());

        state.apply(new JournalEvent.Started(line.key(), 4242, List.of(1)));
        state.apply(new JournalEvent.Oom(line.key(), 1, OptionalLong.of(2048)));
        JobTable.Job bumped = table.job(line.key());
        assertEquals(JobState.PENDING, bumped.state());
        assertEquals(1, bumped.attempts());
        assertEquals(OptionalLong.of(2048), bumped.nextVramMib(), "what the OOM taught");
        assertEquals(List.of(1), bumped.gpus());
        assertTrue(table.launchingAtStart().isEmpty());
        assertEquals(JobState.LAUNCHING, launching.state(), "a row looked up before is not changed behind its reader's back");

        state.apply(new JournalEvent.Done(line.key(), "failed", 3, java.util.Map.of(1, 1900L), java.util.OptionalDouble.empty()));
        JobTable.Job ended = table.job(line.key());
        assertTrue(ended.terminal());
        assertEquals(io.gpusched.model.JobStatus.FAILED, ended.status());
        assertEquals(java.util.OptionalInt.of(3), ended.returncode());
        assertEquals(java.util.Map.of(1, 1900L), ended.peakMib());
        assertEquals(2, ended.attempts());
        assertEquals(Optional.empty(), ended.submission(), "a jobs-file line");
    }

    @Test
    void aRunHandedToSlurmIsItsSlurmJob_whileItsStartedLineNamesASession() {
        state.apply(new JournalEvent.Seen(line.key(), 1, line.command()));
        state.apply(new JournalEvent.Launching(line.key(), 3, List.of()));
        state.apply(new JournalEvent.SlurmSubmitted(line.key(), 991, ""));
        state.apply(new JournalEvent.Started(line.key(), 4242, List.of()));
        JobTable.Job row = table.job(line.key());
        assertEquals(OptionalLong.of(991), row.slurmJob());
        assertEquals(Optional.of(new RunHandle.Slurm(991)), row.handle());
        assertEquals(Optional.of(new RunHandle.Session(4242)), row.startedAs());
        assertEquals(OptionalLong.of(4242), row.session());
    }

    @Test
    void rowsFollowTheFoldCompactionPutsInPlace_withNoRebuild() {
        JournalState[] fold = {state};
        JobTable t = new JobTable(() -> fold[0], source, new ProcFs(Path.of("/nonexistent")), false);
        state.apply(new JournalEvent.Seen(line.key(), 1, line.command()));
        assertEquals(1, t.job(line.key()).no());
        JournalState compacted = new JournalState();
        compacted.apply(new JournalEvent.Seen(line.key(), 1, line.command()));
        compacted.apply(new JournalEvent.Done(line.key(), "ok", 0, java.util.Map.of(), java.util.OptionalDouble.empty()));
        fold[0] = compacted;
        assertEquals(JobState.OK, t.job(line.key()).state());
        assertEquals(JobState.OK, t.byNo(1).orElseThrow().state());
    }

    @Test
    void aJobTheJournalNeverSawHasARowOfNumberZero_pending() {
        JobTable.Job unseen = table.job("nobody");
        assertFalse(unseen.numbered());
        assertEquals(0, unseen.no());
        assertEquals(JobState.PENDING, unseen.state());
        assertEquals(Optional.empty(), unseen.handle());
    }
}

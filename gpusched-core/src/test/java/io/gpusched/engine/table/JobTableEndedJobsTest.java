package io.gpusched.engine.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.engine.proc.ProcFs;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** The job table's facts of ended jobs: ended before this run, said once or retried once, edited since. */
class JobTableEndedJobsTest {
    /** The table as a run opens it on this journal. */
    private static JobTable opened(JournalState s, boolean retryFailed) {
        JobTable t = new JobTable(() -> s, new JobsSource(java.util.Optional.empty(), List.of()),
                new ProcFs(Path.of("/nonexistent")), retryFailed);
        t.open();
        return t;
    }

    private static JobSpec spec(String line) {
        return JobSpec.parse(line);
    }

    /** A journal where each job ended with the given status. */
    private static JournalState ended(Map<JobSpec, String> outcomes) {
        JournalState s = new JournalState();
        int no = 1;
        for (Map.Entry<JobSpec, String> e : outcomes.entrySet()) {
            s.apply(new JournalEvent.Seen(e.getKey().key(), no++, e.getKey().command()));
            s.apply(new JournalEvent.Done(e.getKey().key(), e.getValue(), e.getValue().equals("ok") ? 0 : 3,
                    Map.of(), OptionalDouble.empty()));
        }
        return s;
    }

    @Test
    void retryFailedRetriesEveryFailureOnceAndNeverOkOrCancelled() {
        List<String> statuses = List.of("ok", "failed", "timeout", "infeasible", "failed_oom", "cancelled");
        Map<JobSpec, String> outcomes = new java.util.LinkedHashMap<>();
        statuses.forEach(st -> outcomes.put(spec("echo " + st), st));
        JournalState s = ended(outcomes);
        JobTable ended = opened(s, true);
        for (JobSpec j : outcomes.keySet()) {
            JobTable.Job r = ended.job(j.key());
            boolean failure = JobStatus.fromJournal(r.state().journalName()).orElseThrow().isFailure();
            assertEquals(failure, ended.retryNow(j, r), j.command());
            assertFalse(ended.retryNow(j, r), "at most once: " + j.command());
        }
        JobTable without = opened(s, false);
        outcomes.keySet().forEach(j -> assertFalse(without.retryNow(j, without.job(j.key()))));
    }

    @Test
    void aLineMarkedCancelIsNotRetried() {
        JobSpec j = spec("[cancel] echo x");
        JournalState s = ended(Map.of(j, "failed"));
        JobTable table = opened(s, true);
        assertFalse(table.retryNow(j, table.job(j.key())));
    }

    @Test
    void earlierOutcomeIsReportedOnceAndLeavesWithItsLine() {
        JobSpec a = spec("[vram=1G] echo a");
        JobSpec b = spec("echo b");
        JournalState s = ended(Map.of(a, "failed", b, "cancelled"));
        JobTable ended = opened(s, false);
        var first = ended.firstSightOfEarlier(a, ended.job(a.key()), 1, "ada").orElseThrow();
        assertEquals(JobStatus.FAILED, first.status());
        assertEquals(java.util.Optional.of("ada"), first.owner());
        assertEquals(3, first.exitCode());
        assertEquals(Measurement.NOT_RUN, first.measurement());
        assertTrue(ended.firstSightOfEarlier(a, ended.job(a.key()), 1, "ada").isEmpty(), "said once");
        ended.firstSightOfEarlier(b, ended.job(b.key()), 2, "ada");
        assertEquals(2, ended.earlierCount());
        long changes = ended.earlierChanges();
        ended.retainQueue(List.of(b));
        assertEquals(List.of(b.key()), ended.earlierResults().stream().map(io.gpusched.model.JobResult::key).toList());
        assertTrue(ended.earlierChanges() > changes);
    }

    @Test
    void editOfAnEndedLineIsNoticedOncePerEditButNotAMoveOrRepeat() {
        JobTable ended = opened(new JournalState(), false);
        ended.ended(spec("[vram=30G] echo x"));
        assertFalse(ended.edited(spec("[vram=30G] echo x")), "same request");
        JobSpec moved = JobSpec.builder(spec("[vram=30G] echo x").command()).vramMib(spec("[vram=30G] echo x").vramMib())
                .line(7).key(spec("[vram=30G] echo x").key()).build();
        assertFalse(ended.edited(moved), "only the line number changed");
        assertTrue(ended.edited(spec("[vram=20G] echo x")));
        assertFalse(ended.edited(spec("[vram=20G] echo x")), "the same edit once");
        assertTrue(ended.edited(spec("[vram=20G cancel] echo x")), "cancel added");
    }
}

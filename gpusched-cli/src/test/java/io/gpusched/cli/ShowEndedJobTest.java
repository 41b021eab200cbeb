package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import io.gpusched.protocol.BoardList;
import io.gpusched.protocol.ListText;
import io.gpusched.protocol.Row;
import io.gpusched.service.GpuschedClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@code gpusched show N} on a job that ended says how: where it ran, for how long, its peak against its declaration. */
class ShowEndedJobTest {
    @Test
    void aMeasuredJobThatEndedOk_showsItsGpusTimePeakAndTheVerdictOnItsDeclaration() {
        Row.Ended e = ended(2, JobStatus.OK, 0, List.of(0), OptionalLong.of(3072), Map.of(0, 3018L), Verdict.WITHIN, 30.2,
                Measurement.MEASURED, Optional.empty());
        assertEquals("job 2 ended ok on gpu[0] after 30s, peak gpu0:3018 MiB (declared 3072 MiB: within)   [alice]\n"
                + "train.py --lr 0.1\n", show(e));
    }

    @Test
    void anUnderDeclaredTwoGpuJob_showsEachGpusPeak() {
        Row.Ended e = ended(5, JobStatus.OK, 0, List.of(0, 1), OptionalLong.of(2048), Map.of(1, 3590L, 0, 3500L),
                Verdict.OVER, 125, Measurement.MEASURED, Optional.empty());
        assertEquals("job 5 ended ok on gpu[0, 1] after 2m05s, peak gpu0:3500 MiB, gpu1:3590 MiB (declared 2048 MiB:"
                + " under-declared)   [alice]", show(e).lines().findFirst().orElseThrow());
    }

    @Test
    void aFailedJob_keepsItsExitStatusFirst_andSaysWhyItsPeakIsMissing_andItsCause() {
        Row.Ended e = ended(3, JobStatus.FAILED, 5, List.of(1), OptionalLong.empty(), Map.of(), Verdict.NOT_JUDGED, 2,
                Measurement.NONE_SEEN, Optional.of(ListText.whole("killed by the kernel's OOM killer")));
        assertEquals("job 3 ended failed, exit 5 on gpu[1] after 2s, peak n/a (no GPU memory seen) — killed by the kernel's"
                + " OOM killer   [alice]", show(e).lines().findFirst().orElseThrow());
    }

    @Test
    void aJobThatEndedWhileNoSchedulerWatched_hasNoDurationToShow_andSaysWhyItsPeakIsMissing() {
        Row.Ended e = ended(4, JobStatus.OK, 0, List.of(0), OptionalLong.of(1024), Map.of(), Verdict.UNATTRIBUTED, 0,
                Measurement.UNWATCHED, Optional.empty());
        assertEquals("job 4 ended ok on gpu[0], peak n/a (it ended while no scheduler watched) (declared 1024 MiB)   [alice]",
                show(e).lines().findFirst().orElseThrow());
    }

    @Test
    void aJobCancelledBeforeItStarted_saysOnlyThat() {
        Row.Ended e = ended(6, JobStatus.CANCELLED, 0, List.of(), OptionalLong.of(1024), Map.of(), Verdict.NOT_JUDGED, 0,
                Measurement.NOT_RUN, Optional.empty());
        assertEquals("job 6 ended cancelled   [alice]", show(e).lines().findFirst().orElseThrow());
    }

    private static Row.Ended ended(int no, JobStatus status, int exit, List<Integer> gpus, OptionalLong declared,
                                   Map<Integer, Long> peaks, Verdict verdict, double seconds, Measurement measurement,
                                   Optional<ListText> cause) {
        return new Row.Ended(ListText.whole("s" + no), no, ListText.whole("train.py --lr 0.1"), gpus, status, exit, declared,
                peaks, verdict, OptionalDouble.empty(), seconds, measurement, cause, Optional.of(ListText.whole("alice")),
                Optional.empty());
    }

    private static String show(Row.Ended row) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        QueueText.printJob(new PrintStream(out, true, StandardCharsets.UTF_8),
                new GpuschedClient.Job(BoardList.DONE, row, "train.py --lr 0.1"), false);
        return out.toString(StandardCharsets.UTF_8);
    }
}

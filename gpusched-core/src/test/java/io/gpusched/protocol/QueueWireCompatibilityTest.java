package io.gpusched.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.Notes;
import io.gpusched.gpu.GpuStat;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The queue answer's snapshot and rows, once written by reflecting over the engine's records
 * ({@code JsonEventWriter.listJson}), are written by the codec to the same bytes, every field and every
 * cut included; and they read back to the same typed value.
 */
class QueueWireCompatibilityTest {
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    /** A command over the list limit, ending in a character outside the Basic Multilingual Plane at the cut. */
    private static final String LONG = "python train.py " + "x".repeat(182) + "😀" + "y".repeat(50);
    private static final String LONG_TEXT = "needs \"quoted\"\tand\ncontrol " + "é".repeat(1200);

    /** A note of every shown attribute ({@code comment=}), each long enough to be cut. */
    private static final Notes<String> EVERY_NOTE = new Notes<>(Attribute.SHOWN.stream()
            .map(a -> new Notes.Note<>(a, a.key() + ": " + LONG_TEXT)).toList());

    private static QueueSnapshot everyField() {
        StatusBoard.Running r1 = StatusBoard.Running.builder(3, LONG).gpus(List.of(0, 1))
                .elapsed(Duration.ofMillis(1843_217)).currentMib(Map.of(1, 17_650L, 0, 2_048L)).peakMib(17_650)
                .stopping(Optional.of(SchedulerEvent.StopReason.TIME_SLICE)).owner(Optional.of("ada"))
                .declaredMib(OptionalLong.of(20_480)).priority(2).rule(Optional.of(LONG_TEXT)).notes(EVERY_NOTE).build();
        StatusBoard.Running r2 = StatusBoard.Running.builder(4, "sleep 1").build();
        StatusBoard.Pending p1 = StatusBoard.Pending.builder(5, "echo \u0001 ☃").declaredMib(OptionalLong.of(1024))
                .attempts(1).reason(LONG_TEXT).owner(Optional.of("bob")).held(true).priority(-3)
                .rule(Optional.of("torch-*")).notes(EVERY_NOTE).gpusAsked(Optional.of("1 on 0"))
                .since(Optional.of(Instant.parse("2024-11-24T09:29:00Z"))).tty(true).build();
        StatusBoard.Pending p2 = StatusBoard.Pending.builder(6, LONG).build();
        JobResult d1 = new JobResult("s1", 1, LONG, List.of(2), JobStatus.FAILED_OOM, 137, OptionalLong.of(8192),
                Map.of(2, 9_001L), Verdict.OVER, OptionalDouble.of(87.5), Duration.ofNanos(12_345_678_901L),
                Measurement.MEASURED, Optional.of(LONG_TEXT), Optional.of("ada"), Optional.of("learned: job 3 peaked"));
        JobResult d2 = new JobResult("a1b2c3d4#2", 2, "true", List.of(), JobStatus.CANCELLED, 0, OptionalLong.empty(),
                Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO, Measurement.NOT_RUN,
                Optional.empty(), Optional.empty(), Optional.empty());
        JobResult e1 = new JobResult("s0", 0, "true", List.of(0), JobStatus.OK, 0, OptionalLong.of(100), Map.of(0, 60L),
                Verdict.UNDER, OptionalDouble.of(3), Duration.ofSeconds(2), Measurement.MEASURED, Optional.empty(),
                Optional.of("ada"), Optional.empty());
        StatusBoard.Interrupted i1 = new StatusBoard.Interrupted(9, LONG, List.of(3), Duration.ofMillis(1));
        StatusBoard board = new StatusBoard(List.of(r1, r2), List.of(p1, p2), List.of(d1, d2), List.of(e1), List.of(i1));
        List<GpuStat> gpus = List.of(
                new GpuStat(0, Optional.of("GPU-" + "f".repeat(1100)), "NVIDIA H100 80GB HBM3", Optional.of("00000000:1B:00.0"),
                        81_559, 17_000, OptionalInt.of(93), true),
                new GpuStat(1, Optional.empty(), "simulated", Optional.empty(), 24_000, 0, OptionalInt.empty(), false));
        List<QueueSnapshot.GpuMemory> memory = List.of(new QueueSnapshot.GpuMemory(0, 81_559, 17_000, 512, -100,
                List.of(new QueueSnapshot.JobMemory(3, OptionalLong.of(20_480), 2_048, 2_048, 20_480),
                        new QueueSnapshot.JobMemory(4, OptionalLong.empty(), 0, 10, 10))));
        return new QueueSnapshot(Instant.parse("2024-11-24T09:30:00.123456789Z"), board, Set.of(1), List.of(11, 12),
                gpus, memory);
    }

    @Test
    void theSnapshotIsWrittenToTheBytesTheReflectingWriterWrote() {
        QueueSnapshot s = everyField();
        assertEquals(JsonEventWriter.listJson(s, ProtocolCodec.LIST_COMMAND_CHARS, ProtocolCodec.LIST_TEXT_CHARS),
                CODEC.encode(QueueView.listed(s)));
    }

    @Test
    void everyRowIsWrittenToTheBytesTheReflectingWriterWrote() {
        StatusBoard b = everyField().board();
        for (List<?> list : List.of(b.running(), b.pending(), b.done(), b.earlier(), b.interrupted())) {
            for (Object row : list) {
                assertEquals(JsonEventWriter.listJson(row, ProtocolCodec.LIST_COMMAND_CHARS, ProtocolCodec.LIST_TEXT_CHARS),
                        CODEC.encode(Row.listed(row)), row.toString());
            }
        }
    }

    @Test
    void aSnapshotReadsBackToTheSameValue_andWritesAgainToTheSameBytes() {
        QueueView v = QueueView.listed(everyField());
        String line = CODEC.encode(Answer.Queue.oneLine(v, Map.of(BoardList.PENDING, 98_812)));
        Answer back = CODEC.decode(line, ProtocolCodec.Expect.QUEUE);
        assertEquals(Answer.Queue.oneLine(v, Map.of(BoardList.PENDING, 98_812)), back);
        assertEquals(line, CODEC.encode(back));
    }

    @Test
    void aCutTextKeepsItsWholeLength_andNeverSplitsAPair() {
        ListText t = ListText.cut(LONG, ProtocolCodec.LIST_COMMAND_CHARS);
        assertEquals(OptionalInt.of(LONG.length()), t.wholeChars());
        assertEquals("python train.py " + "x".repeat(182) + "…", t.text(), "the pair at 198-199 goes whole or not at all");
        assertEquals(ListText.whole("short"), ListText.cut("short", ProtocolCodec.LIST_COMMAND_CHARS));
    }
}

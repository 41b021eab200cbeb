package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.gpusched.protocol.Answer;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.QueueView;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.Measurement;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.Verdict;
import io.gpusched.gpu.GpuStat;
import java.io.IOException;
import java.io.StringWriter;
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

/** top reads the queue answer as the daemon writes it: a QueueSnapshot in the protocol's fields. */
class TopSnapshotTest {
    @Test
    void aJobHandedToSlurmShowsItsSlurmJobAndStateBeforeItsCommand() throws IOException {
        StatusBoard board = new StatusBoard(
                List.of(StatusBoard.Running.builder(1, "python train.py").gpus(List.of(0))
                        .elapsed(Duration.ofSeconds(5)).owner(Optional.of("alice"))
                        .cluster(Optional.of("slurm job 41 RUNNING")).build(),
                        StatusBoard.Running.builder(2, "python eval.py").gpus(List.of(1)).elapsed(Duration.ofSeconds(5))
                                .owner(Optional.of("alice")).build()),
                List.of(), List.of(), List.of(), List.of());
        QueueSnapshot q = new QueueSnapshot(Instant.EPOCH, board, Set.of(), List.of(), List.of());

        TopSnapshot s = TopSnapshot.of(parse(new ProtocolCodec().encode(QueueView.listed(q))));

        assertEquals(List.of("(slurm job 41 RUNNING) python train.py", "python eval.py"),
                s.running().stream().map(TopSnapshot.Running::command).toList());
    }

    @Test
    void readsEveryFieldTopShowsFromTheDaemonsJson() throws IOException {
        StatusBoard board = new StatusBoard(
                List.of(StatusBoard.Running.builder(3, "python \u001b[31mtrain.py").gpus(List.of(0, 1))
                        .elapsed(Duration.ofMillis(12_600)).currentMib(Map.of(0, 6000L, 1, 5800L)).peakMib(6100)
                        .stopping(Optional.of(SchedulerEvent.StopReason.CANCELLED)).owner(Optional.of("alice"))
                        .declaredMib(OptionalLong.of(8192)).priority(2).build()),
                List.of(StatusBoard.Pending.builder(4, "sleep 1").reason("needs 1 fully idle GPU")
                        .owner(Optional.of("bob")).priority(-3).build()),
                List.of(new JobResult("s2", 2, "python oom.py", List.of(1), JobStatus.FAILED_OOM, 1, OptionalLong.of(2048),
                        Map.of(1, 2100L), Verdict.OVER, OptionalDouble.empty(), Duration.ofSeconds(4), Measurement.MEASURED,
                        Optional.empty(), Optional.of("bob"))),
                List.of(new JobResult("s1", 1, "true", List.of(), JobStatus.OK, 0, OptionalLong.empty(), Map.of(),
                        Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ZERO, Measurement.NOT_VISIBLE, Optional.empty(),
                        Optional.empty())),
                List.of());
        QueueSnapshot q = new QueueSnapshot(Instant.EPOCH, board, Set.of(1), List.of(),
                List.of(new GpuStat(0, Optional.empty(), "simulated", Optional.empty(), 24000, 12000, OptionalInt.of(40), true),
                        new GpuStat(1, Optional.empty(), "simulated", Optional.empty(), 24000, 5800, OptionalInt.empty(), false)));

        TopSnapshot s = TopSnapshot.of(parse(new ProtocolCodec().encode(QueueView.listed(q))));

        assertEquals(new TopSnapshot(
                List.of(new TopSnapshot.Gpu(0, 24000, 12000, OptionalInt.of(40), true, false),
                        new TopSnapshot.Gpu(1, 24000, 5800, OptionalInt.empty(), false, true)),
                List.of(new TopSnapshot.Running(3, "alice", 2, List.of(0, 1), Map.of(0, 6000L, 1, 5800L), OptionalLong.of(8192), 13,
                        true, "python ?[31mtrain.py")),
                List.of(new TopSnapshot.Pending(4, "bob", -3, OptionalLong.empty(), "needs 1 fully idle GPU", "sleep 1")),
                List.of(new TopSnapshot.Finished(1, "", "ok", "", OptionalLong.empty(), 0, "true"),
                        new TopSnapshot.Finished(2, "bob", "failed_oom", "under-declared", OptionalLong.of(2048), 2100,
                                "python oom.py"))), s);
    }

    @Test
    void anOlderDaemonsRowsWithoutDeclarationOrPriorityReadAsAbsent() throws IOException {
        TopSnapshot s = TopSnapshot.of(parse("{\"board\":{\"running\":[{\"no\":1,\"command\":\"a\",\"gpus\":[0],"
                + "\"elapsed_s\":1.0,\"current_mib\":{\"0\":100},\"peak_mib\":100,\"stopping\":null}],\"pending\":[],"
                + "\"done\":[]},\"paused_gpus\":[],\"gpus\":[]}"));
        assertEquals(List.of(new TopSnapshot.Running(1, "", 0, List.of(0), Map.of(0, 100L), OptionalLong.empty(), 1, false, "a")),
                s.running());
    }

    /** The snapshot as GpuschedClient.queue() hands it over, read from the JSON the daemon writes. */
    static QueueView parse(String json) {
        Answer a = new ProtocolCodec().decode("{\"v\":1,\"ok\":true,\"snapshot\":" + json + "}", ProtocolCodec.Expect.QUEUE);
        return ((Answer.Queue) a).snapshot();
    }

    /** The same from a snapshot built as JSON-like maps, lists, longs, doubles, strings (what a generator makes). */
    static QueueView view(Map<String, Object> snapshot) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            write(g, snapshot);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return parse(out.toString());
    }

    private static void write(JsonGenerator g, Object v) throws IOException {
        if (v instanceof Map<?, ?> m) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof List<?> l) {
            g.writeStartArray();
            for (Object x : l) {
                write(g, x);
            }
            g.writeEndArray();
        } else if (v instanceof Long n) {
            g.writeNumber(n);
        } else if (v instanceof Integer n) {
            g.writeNumber(n);
        } else if (v instanceof Double d) {
            g.writeNumber(d);
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v == null) {
            g.writeNull();
        } else {
            g.writeString(String.valueOf(v));
        }
    }
}

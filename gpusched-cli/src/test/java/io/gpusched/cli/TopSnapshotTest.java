package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.JsonEventWriter;
import io.gpusched.model.Measurement;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.Verdict;
import io.gpusched.gpu.GpuStat;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** top reads the queue answer as the daemon writes it: a QueueSnapshot through JsonEventWriter. */
class TopSnapshotTest {
    @Test
    void readsEveryFieldTopShowsFromTheDaemonsJson() throws IOException {
        StatusBoard board = new StatusBoard(
                List.of(new StatusBoard.Running(3, "python \u001b[31mtrain.py", List.of(0, 1), Duration.ofMillis(12_600),
                        Map.of(0, 6000L, 1, 5800L), 6100, Optional.of(SchedulerEvent.StopReason.CANCELLED), Optional.of("alice"),
                        OptionalLong.of(8192), 2)),
                List.of(new StatusBoard.Pending(4, "sleep 1", OptionalLong.empty(), 0, "needs 1 fully idle GPU", Optional.of("bob"),
                        false, -3)),
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

        TopSnapshot s = TopSnapshot.of(parse(JsonEventWriter.valueToJson(q)));

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

    /** The JSON as GpuschedClient.queue() hands it over: maps, lists, longs, doubles, strings. */
    static Map<String, Object> parse(String json) throws IOException {
        try (JsonParser p = new JsonFactory().createParser(json)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) value(p, p.nextToken());
            return m;
        }
    }

    private static Object value(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    m.put(name, value(p, p.nextToken()));
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                for (JsonToken n = p.nextToken(); n != JsonToken.END_ARRAY; n = p.nextToken()) {
                    l.add(value(p, n));
                }
                return l;
            }
            case VALUE_NUMBER_INT:
                return p.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return p.getDoubleValue();
            case VALUE_TRUE:
                return true;
            case VALUE_FALSE:
                return false;
            case VALUE_NULL:
                return null;
            default:
                return p.getText();
        }
    }
}

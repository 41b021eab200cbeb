package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every line of a queue or job answer stays far under the line limit, whatever the queue holds. */
class QueueAnswerTest {
    private static final int QUARTER = Protocol.MAX_LINE_BYTES / 4;

    private static QueueSnapshot queue(int pending, String command, int done) {
        List<StatusBoard.Pending> p = new ArrayList<>();
        for (int i = 1; i <= pending; i++) {
            p.add(new StatusBoard.Pending(i, command, OptionalLong.of(1024), 0, "needs 1 GPU with ≥ 1536 MiB headroom",
                    Optional.of("gs-qu-a")));
        }
        List<JobResult> d = new ArrayList<>();
        for (int i = 1; i <= done; i++) {
            d.add(new JobResult("s" + (pending + i), pending + i, command, List.of(0), JobStatus.OK, 0, OptionalLong.empty(),
                    Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ofSeconds(1)));
        }
        return new QueueSnapshot(Instant.EPOCH, new StatusBoard(List.of(), p, d), Set.of(), List.of());
    }

    private static int bytes(String line) {
        return line.getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void aStreamOf100000JobsWith64KiBCommands_comesInLinesUnderAQuarterOfTheLimit_everyRowOnce() {
        QueueAnswer a = new QueueAnswer(queue(100_000, "x".repeat(64 * 1024), 0));
        List<String> lines = a.streamed();
        Map<String, Object> head = Json.parseObject(lines.get(0));
        assertEquals((long) lines.size() - 1, head.get("lines"));
        assertEquals(100_000L, ((Map<?, ?>) head.get("rows")).get("pending"));
        long rows = 0;
        long next = 1;
        for (String line : lines.subList(1, lines.size())) {
            assertTrue(bytes(line) < QUARTER, "a line of " + bytes(line) + " bytes");
            Map<String, Object> m = Json.parseObject(line);
            assertEquals("pending", m.get("list"));
            for (Object r : (List<?>) m.get("rows")) {
                Map<?, ?> row = (Map<?, ?>) r;
                assertEquals(next++, row.get("no"), "in queue order");
                assertEquals(65536L, row.get("command_chars"));
                assertEquals(Protocol.LIST_COMMAND_CHARS, ((String) row.get("command")).codePointCount(0,
                        ((String) row.get("command")).length()));
                rows++;
            }
        }
        assertEquals(100_000, rows);
        assertTrue(bytes(lines.get(0)) < QUARTER);
    }

    @Test
    void commandsOfCharactersThatNeedEscapesStillFit() {
        QueueAnswer a = new QueueAnswer(queue(2_000, "\u0001".repeat(60_000), 2_000));
        for (String line : a.streamed()) {
            assertTrue(bytes(line) < QUARTER, "a line of " + bytes(line) + " bytes");
        }
        assertTrue(bytes(a.oneLine()) < QUARTER);
        for (String line : a.job(1).orElseThrow()) {
            assertTrue(bytes(line) < QUARTER, "a line of " + bytes(line) + " bytes");
        }
    }

    @Test
    void theOneLineAnswer_keepsTheHeadOfTheQueueAndTheNewestFinished_andSaysHowManyItLeftOut() {
        QueueAnswer a = new QueueAnswer(queue(100_000, "python sweep.py --seed 1", 50_000));
        String line = a.oneLine();
        assertTrue(bytes(line) <= Protocol.ONE_LINE_ROWS_BYTES + 4096, bytes(line) + " bytes");
        Map<String, Object> m = Json.parseObject(line);
        Map<?, ?> board = (Map<?, ?>) ((Map<?, ?>) m.get("snapshot")).get("board");
        List<?> pending = (List<?>) board.get("pending");
        List<?> done = (List<?>) board.get("done");
        assertEquals(1L, ((Map<?, ?>) pending.get(0)).get("no"));
        assertEquals(150_000L, ((Map<?, ?>) done.get(done.size() - 1)).get("no"), "the newest finished job");
        Map<?, ?> leftOut = (Map<?, ?>) m.get("left_out");
        assertEquals(100_000L - pending.size(), leftOut.get("pending"));
        assertEquals(50_000L - done.size(), leftOut.get("done"));
        assertFalse(leftOut.containsKey("running"), "only the lists it cut");
    }

    @Test
    void aSmallQueueIsWholeInOneLine_withNothingLeftOut() {
        Map<String, Object> m = Json.parseObject(new QueueAnswer(queue(3, "true", 2)).oneLine());
        assertFalse(m.containsKey("left_out"));
        assertEquals(3, ((List<?>) ((Map<?, ?>) ((Map<?, ?>) m.get("snapshot")).get("board")).get("pending")).size());
    }

    @Test
    void theNextSnapshotsAnswer_reusesTheLinesOfAListThatDidNotChange() {
        QueueSnapshot first = queue(10_000, "python sweep.py", 0);
        QueueAnswer a = new QueueAnswer(first);
        List<String> before = a.streamed();
        QueueSnapshot next = new QueueSnapshot(Instant.EPOCH.plusSeconds(5), first.board(), Set.of(0), List.of());
        QueueAnswer b = new QueueAnswer(next, a.rendered());
        List<String> after = b.streamed();
        assertTrue(before.get(1) == after.get(1), "the same line, not rendered again");
        assertEquals(before.subList(1, before.size()), after.subList(1, after.size()));
        assertTrue(Json.parseObject(after.get(0)).toString().contains("paused_gpus=[0]"), after.get(0));
        QueueSnapshot changed = queue(10_001, "python sweep.py", 0);
        List<String> third = new QueueAnswer(changed, b.rendered()).streamed();
        assertEquals(10_001L, ((Map<?, ?>) Json.parseObject(third.get(0)).get("rows")).get("pending"));
    }

    @Test
    void aJobsWholeCommandComesInPartsThatJoinToIt() {
        String command = "echo " + "😀ab".repeat(30_000);
        QueueAnswer a = new QueueAnswer(queue(5, command, 0));
        List<String> lines = a.job(4).orElseThrow();
        Map<String, Object> head = Json.parseObject(lines.get(0));
        assertEquals("pending", head.get("list"));
        assertEquals(4L, ((Map<?, ?>) head.get("job")).get("no"));
        assertEquals((long) lines.size() - 1, head.get("parts"));
        StringBuilder joined = new StringBuilder();
        lines.subList(1, lines.size()).forEach(l -> joined.append(Json.parseObject(l).get("part")));
        assertEquals(command, joined.toString());
        assertTrue(a.job(99).isEmpty());
    }
}

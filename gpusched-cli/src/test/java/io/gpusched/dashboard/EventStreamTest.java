package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JsonEventWriter;
import io.gpusched.QueueSnapshot;
import io.gpusched.StatusBoard;
import io.gpusched.service.Protocol;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a dashboard page is sent of a long queue: small, whatever the queue holds. */
class EventStreamTest {
    @Test
    void aPageGetsTheHeadOf100000PendingJobsAndHowManyMore_withCommandsCut() {
        List<StatusBoard.Pending> pending = new ArrayList<>();
        String command = "x".repeat(64 * 1024);
        for (int i = 1; i <= 100_000; i++) {
            pending.add(new StatusBoard.Pending(i, command, OptionalLong.of(1024), 0, "its turn", Optional.of("ada")));
        }
        QueueSnapshot all = new QueueSnapshot(Instant.EPOCH, new StatusBoard(List.of(), pending, List.of()), Set.of(),
                List.of());
        QueueSnapshot shown = EventStream.shown(all);
        assertEquals(EventStream.PENDING_ROWS, shown.board().pending().size());
        assertEquals(1, shown.board().pending().get(0).no(), "the head of the queue");
        Map<String, Integer> left = EventStream.leftOut(all.board(), shown.board());
        assertEquals(Map.of("pending", 100_000 - EventStream.PENDING_ROWS), left);
        String payload = JsonEventWriter.listJson(Map.of("snapshot", shown, "left_out", left), Protocol.LIST_COMMAND_CHARS,
                Protocol.LIST_TEXT_CHARS);
        assertTrue(payload.length() < 256 * 1024, "an update of " + payload.length() + " characters");
        assertTrue(payload.contains("\"left_out\":{\"pending\":99500}"), payload.substring(payload.length() - 200));
    }
}

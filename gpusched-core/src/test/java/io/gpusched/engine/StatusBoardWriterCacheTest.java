package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.SchedulerEvent;
import io.gpusched.StatusBoard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusBoardWriterCacheTest {
    @TempDir
    Path dir;

    @Test
    void unchangedBoard_isNotRewritten_changedBoardIs() throws Exception {
        Path file = dir.resolve("status.txt");
        StatusBoardWriter w = new StatusBoardWriter(file);
        List<StatusBoard.Pending> pending = List.of(new StatusBoard.Pending(1, "a", OptionalLong.of(1024), 0, "blocked"));
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        w.accept(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), pending, List.of())));
        String first = Files.readString(file);
        assertEquals(StatusBoardWriter.render(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), pending, List.of()))), first);
        Files.delete(file);
        w.accept(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), pending, List.of())));
        assertFalse(Files.exists(file), "same board: no write");
        List<StatusBoard.Pending> other = List.of(new StatusBoard.Pending(2, "b", OptionalLong.empty(), 0, ""));
        w.accept(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), other, List.of())));
        assertTrue(Files.readString(file).contains("job 2"));
        w.accept(new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), other, List.of())));
        assertTrue(Files.readString(file).contains("00:00:01") || Files.readString(file).contains(":01 "));
    }
}

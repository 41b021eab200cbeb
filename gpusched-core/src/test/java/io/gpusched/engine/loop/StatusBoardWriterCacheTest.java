package io.gpusched.engine.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
        List<StatusBoard.Pending> pending = List.of(StatusBoard.Pending.builder(1, "a")
                .declaredMib(OptionalLong.of(1024)).reason("blocked").build());
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        w.accept(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), pending, List.of())));
        String first = Files.readString(file);
        assertEquals(StatusBoardWriter.render(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), pending, List.of()))), first);
        Files.delete(file);
        w.accept(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), pending, List.of())));
        assertFalse(Files.exists(file), "same board: no write");
        List<StatusBoard.Pending> other = List.of(StatusBoard.Pending.builder(2, "b").build());
        w.accept(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), other, List.of())));
        assertTrue(Files.readString(file).contains("job 2"));
        w.accept(new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), other, List.of())));
        assertTrue(Files.readString(file).contains("00:00:01") || Files.readString(file).contains(":01 "));
    }

    @Test
    void statusJsonAssembledFromCachedPartsIsTheEventAsJsonEventWriterWritesIt() throws Exception {
        Path json = dir.resolve("status.json");
        StatusBoardWriter w = new StatusBoardWriter(dir.resolve("status.txt"));
        List<StatusBoard.Pending> pending = List.of(
                StatusBoard.Pending.builder(2, "say \"hi\" — ünïcode").declaredMib(OptionalLong.of(1024)).attempts(1)
                        .reason("needs 1 GPU").build(),
                StatusBoard.Pending.builder(3, "b").build());
        List<io.gpusched.model.JobResult> done = List.of(new io.gpusched.model.JobResult("k#0", 1, "true", List.of(0),
                io.gpusched.model.JobStatus.OK, 0, OptionalLong.of(1024), java.util.Map.of(0, 700L),
                io.gpusched.model.Verdict.WITHIN, java.util.OptionalDouble.of(42.5), Duration.ofMillis(1500)));
        List<StatusBoard.Running> running = List.of(StatusBoard.Running.builder(4, "sleep 9").gpus(List.of(0, 1))
                .elapsed(Duration.ofSeconds(3)).currentMib(java.util.Map.of(0, 10L, 1, 20L)).peakMib(25).build());
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        for (SchedulerEvent.StatusUpdated s : List.of(
                new SchedulerEvent.StatusUpdated(t, new StatusBoard(running, pending, done)),
                // the same lists, so cached parts, under a new head
                new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), pending, done)),
                // new lists that keep some rows (re-used) and drop or add others
                new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), List.of(pending.get(1),
                        StatusBoard.Pending.builder(5, "c").declaredMib(OptionalLong.of(1)).reason("r")
                                .build()), List.of())),
                new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), List.of(), done)),
                // earlier outcomes and interrupted jobs (the last board of a stopped run)
                new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), pending, List.of(), done,
                        List.of(new StatusBoard.Interrupted(7, "sleep 60", List.of(1), Duration.ofSeconds(12))))),
                new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), List.of(), done)))) {
            w.accept(s);
            assertEquals("{\"scheduler_pid\":" + ProcessHandle.current().pid() + ",\"finished\":false,\"interrupted\":false,\"status\":"
                    + io.gpusched.event.JsonEventWriter.toJson(s) + "}\n", Files.readString(json));
            assertEquals(StatusBoardWriter.render(s), Files.readString(dir.resolve("status.txt")));
        }
        w.accept(new SchedulerEvent.RunFinished(t.plusSeconds(2), new io.gpusched.model.RunSummary(done, false)));
        assertTrue(Files.readString(json).startsWith("{\"scheduler_pid\":" + ProcessHandle.current().pid()
                + ",\"finished\":true,\"interrupted\":false,\"status\":{\"event\":\"status_updated\",\"at\":\"2026-01-01T00:00:01Z\",\"board\":"
                + "{\"running\":[],\"pending\":[],\"done\":[{"));
    }

    @Test
    void aFinishedRun_leavesNoStatusFileOpen_andABoardAfterItIsWrittenWhole() throws Exception {
        Path file = dir.resolve("status.txt");
        StatusBoardWriter w = new StatusBoardWriter(file);
        List<StatusBoard.Pending> pending = new java.util.ArrayList<>();
        for (int i = 1; i <= 300; i++) {
            pending.add(StatusBoard.Pending.builder(i, "echo " + i).reason("blocked").build());
        }
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        w.accept(new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), pending, List.of())));
        w.accept(new SchedulerEvent.StatusUpdated(t.plusSeconds(1), new StatusBoard(List.of(), pending, List.of())));
        assertFalse(openStatusFiles().isEmpty(), "while the run goes on, the files written last are kept open");
        w.accept(new SchedulerEvent.RunFinished(t.plusSeconds(2), new io.gpusched.model.RunSummary(List.of(), false)));
        assertEquals(List.of(), openStatusFiles(), "a finished run holds none of its status files");
        assertTrue(Files.readString(dir.resolve("status.json")).contains("\"finished\":true"));
        assertTrue(Files.readString(dir.resolve("status.json")).contains("echo 300"), "status.json keeps the last board");
        // A board after the end (a writer used again) is rendered from the rows, not from closed files.
        SchedulerEvent.StatusUpdated again = new SchedulerEvent.StatusUpdated(t.plusSeconds(3),
                new StatusBoard(List.of(), pending.subList(0, 200), List.of()));
        w.accept(again);
        assertEquals(StatusBoardWriter.render(again), Files.readString(file));
    }

    /** The descriptors of this JVM open on this test's status files. */
    private List<String> openStatusFiles() throws java.io.IOException {
        List<String> open = new java.util.ArrayList<>();
        try (var fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    Path target = Files.readSymbolicLink(fd);
                    if (target.startsWith(dir) && target.getFileName().toString().startsWith("status.")) {
                        open.add(target.toString());
                    }
                } catch (java.io.IOException gone) {
                    // closed meanwhile
                }
            }
        }
        return open;
    }

    @Test
    void listsThatKeepMoveDropAndAddRows_areWrittenAsIfRenderedAfresh() throws Exception {
        Path json = dir.resolve("status.json");
        StatusBoardWriter w = new StatusBoardWriter(dir.resolve("status.txt"));
        java.util.Random random = new java.util.Random(27);
        List<StatusBoard.Pending> rows = new java.util.ArrayList<>();
        int next = 1;
        for (; next <= 1200; next++) { // many chunks of rows, so that most are kept and some made again
            rows.add(StatusBoard.Pending.builder(next, "echo " + next).declaredMib(OptionalLong.of(1024))
                    .reason("blocked").build());
        }
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        for (int step = 0; step < 50; step++) {
            // What the engine does between boards: jobs join at the end or in the middle, jobs start (leave),
            // a plan reorders, a row's reason changes (a new row object for the same job).
            switch (random.nextInt(6)) {
                case 0, 1 -> rows.add(StatusBoard.Pending.builder(next++, "echo " + next)
                        .declaredMib(OptionalLong.of(1024)).reason("blocked").build());
                case 2 -> rows.add(rows.isEmpty() ? 0 : random.nextInt(rows.size()),
                        StatusBoard.Pending.builder(next++, "ünï " + next).build());
                case 3 -> {
                    if (!rows.isEmpty()) {
                        rows.remove(random.nextBoolean() ? 0 : random.nextInt(rows.size())); // the head starts, or any
                    }
                }
                case 4 -> {
                    if (rows.size() > 1) {
                        java.util.Collections.swap(rows, random.nextInt(rows.size()), random.nextInt(rows.size()));
                    }
                }
                default -> {
                    if (!rows.isEmpty()) {
                        int at = random.nextInt(rows.size());
                        StatusBoard.Pending p = rows.get(at);
                        rows.set(at, StatusBoard.Pending.builder(p.no(), p.command()).declaredMib(p.declaredMib())
                                .attempts(1).reason("now " + step).build());
                    }
                }
            }
            SchedulerEvent.StatusUpdated s = new SchedulerEvent.StatusUpdated(t, new StatusBoard(List.of(), List.copyOf(rows),
                    List.of()));
            w.accept(s);
            assertEquals(StatusBoardWriter.render(s), Files.readString(dir.resolve("status.txt")), "step " + step);
            assertEquals("{\"scheduler_pid\":" + ProcessHandle.current().pid() + ",\"finished\":false,\"interrupted\":false,"
                    + "\"status\":" + io.gpusched.event.JsonEventWriter.toJson(s) + "}\n", Files.readString(json), "step " + step);
        }
    }

    private static SchedulerEvent.StatusUpdated boardOf(List<StatusBoard.Pending> rows) {
        return new SchedulerEvent.StatusUpdated(Instant.parse("2026-01-01T00:00:00Z"),
                new StatusBoard(List.of(), List.copyOf(rows), List.of()));
    }

    private static List<StatusBoard.Pending> rows(int from, int to) {
        List<StatusBoard.Pending> rows = new java.util.ArrayList<>();
        for (int no = from; no < to; no++) {
            rows.add(StatusBoard.Pending.builder(no, "echo queued " + no).declaredMib(OptionalLong.of(20480))
                    .reason("needs 1 GPU with ≥ 20992 MiB headroom").build());
        }
        return rows;
    }

    private void assertWrittenAsIfRenderedAfresh(SchedulerEvent.StatusUpdated s, String what) throws Exception {
        assertEquals(StatusBoardWriter.render(s), Files.readString(dir.resolve("status.txt")), what);
        assertEquals("{\"scheduler_pid\":" + ProcessHandle.current().pid() + ",\"finished\":false,\"interrupted\":false,"
                + "\"status\":" + io.gpusched.event.JsonEventWriter.toJson(s) + "}\n",
                Files.readString(dir.resolve("status.json")), what);
    }

    @Test
    void aWrittenBoardsRows_areKeptInTheFilesItWrote_notInMemory() throws Exception {
        StatusBoardWriter w = new StatusBoardWriter(dir.resolve("status.txt"));
        List<StatusBoard.Pending> rows = rows(1, 10_001);
        w.accept(boardOf(rows));
        assertWrittenAsIfRenderedAfresh(boardOf(rows), "first board");
        assertTrue(Files.size(dir.resolve("status.json")) > 1_000_000, "the board is a megabyte and more");
        assertEquals(0, w.heldBytes(), "every row's bytes are in the files once written");
        rows.remove(0); // the head starts
        rows.addAll(rows(10_001, 10_003)); // two join
        rows.set(5_000, rows(99_999, 100_000).get(0)); // a row changes in the middle
        w.accept(boardOf(rows));
        assertWrittenAsIfRenderedAfresh(boardOf(rows), "next board, from the files and fresh rows");
        assertEquals(0, w.heldBytes());
    }

    @Test
    void statusFilesDeletedOrReplacedBetweenBoards_areWrittenFromWhatTheWriterWrote() throws Exception {
        StatusBoardWriter w = new StatusBoardWriter(dir.resolve("status.txt"));
        List<StatusBoard.Pending> rows = rows(1, 3_001);
        w.accept(boardOf(rows));
        Files.delete(dir.resolve("status.txt"));
        Files.writeString(dir.resolve("other.json"), "not the writer's");
        Files.move(dir.resolve("other.json"), dir.resolve("status.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        rows.addAll(rows(3_001, 3_002));
        w.accept(boardOf(rows));
        assertWrittenAsIfRenderedAfresh(boardOf(rows), "the writer's own descriptors of what it wrote");
    }

    @Test
    void aStatusFileTruncatedUnderTheWriter_isRenderedAfreshByTheNextBoard() throws Exception {
        StatusBoardWriter w = new StatusBoardWriter(dir.resolve("status.txt"));
        List<StatusBoard.Pending> rows = rows(1, 3_001);
        w.accept(boardOf(rows));
        // Truncates the very file the writer wrote (the same inode it holds open).
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dir.resolve("status.txt"),
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(10);
        }
        rows.addAll(rows(3_001, 3_002));
        w.accept(boardOf(rows)); // may fail to copy the lost rows: the board is a convenience
        w.accept(boardOf(rows));
        assertWrittenAsIfRenderedAfresh(boardOf(rows), "the board after a truncated file");
    }
}

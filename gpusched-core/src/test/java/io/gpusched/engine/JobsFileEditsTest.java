package io.gpusched.engine;

import io.gpusched.engine.loop.StatusBoardWriter;
import io.gpusched.engine.table.JobsSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.event.StatusBoard;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Editors at work on the jobs file of a running engine: real files, real jobs, a stub GPU. The jobs
 * source's quiet-period ticker is stepped by hand, so a half-written file is never "stable" by
 * accident of a slow machine: it is caught by several rounds and must not be taken.
 *
 * <p>One 24000 MiB GPU. A runner job declaring 8 GiB waits for a marker file; lines declaring
 * 20 GiB cannot fit beside it and stay pending (the queue the test watches); a line declaring
 * 1 GiB fits beside it and would start the moment it is taken.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobsFileEditsTest {
    private static final Duration QUIET = Duration.ofMillis(200);
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();
    private final AtomicLong ticker = new AtomicLong();
    private Path jobs;
    private Engine engine;
    private CompletableFuture<RunSummary> run;

    private String runner() {
        return "[vram=8G] " + runnerCommand();
    }

    private String runnerCommand() {
        return "until [ -e " + dir.resolve("go") + " ]; do sleep 0.02; done";
    }

    private static String big(String name) {
        return "[vram=20G] echo " + name;
    }

    private void start(String content) throws Exception {
        jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, content);
        Path logs = dir.resolve("logs");
        Files.createDirectories(logs);
        StatusBoardWriter board = new StatusBoardWriter(logs.resolve("status.txt"));
        JobsSource source = new JobsSource(Optional.of(jobs), List.of(), QUIET, ticker::get);
        engine = new Engine(new StubBackend(1, 24000), FAST, Instant::now, logs, false, source, e -> {
            events.add(e);
            board.accept(e);
        });
        run = CompletableFuture.supplyAsync(engine::run);
        awaitBoard(b -> b.running().size() == 1, "the runner started");
    }

    private StatusBoard board() {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i) instanceof SchedulerEvent.StatusUpdated s) {
                return s.board();
            }
        }
        return new StatusBoard(List.of(), List.of(), List.of());
    }

    private static List<String> pending(StatusBoard b) {
        return b.pending().stream().map(StatusBoard.Pending::command).toList();
    }

    private long rounds() {
        return events.stream().filter(e -> e instanceof SchedulerEvent.StatusUpdated).count();
    }

    /** Waits until the engine has run {@code n} more rounds, each of which read the file as it is now. */
    private void awaitRounds(int n) throws InterruptedException {
        long target = rounds() + n;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (rounds() < target) {
            assertTrue(System.nanoTime() < deadline, "the engine stopped running rounds");
            Thread.sleep(5);
        }
    }

    private void awaitBoard(Predicate<StatusBoard> p, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!p.test(board())) {
            assertTrue(System.nanoTime() < deadline, "never " + what + "; board " + board());
            Thread.sleep(5);
        }
    }

    /** Lets the quiet period pass, round after round, until the board shows {@code p}. */
    private void settle(Predicate<StatusBoard> p, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!p.test(board())) {
            assertTrue(System.nanoTime() < deadline, "never " + what + "; board " + board());
            ticker.addAndGet(QUIET.toNanos());
            awaitRounds(1);
        }
    }

    private List<String> started() {
        return events.stream().filter(e -> e instanceof SchedulerEvent.JobStarted)
                .map(e -> ((SchedulerEvent.JobStarted) e).command()).toList();
    }

    private long count(Class<? extends SchedulerEvent> type) {
        return events.stream().filter(type::isInstance).count();
    }

    private void finish() throws Exception {
        Files.createFile(dir.resolve("go"));
        RunSummary s = run.get(30, TimeUnit.SECONDS);
        assertEquals(0, s.exitCode(), s.toString());
    }

    private void renameOver(String content) throws IOException {
        Path tmp = dir.resolve(".jobs.txt.tmp");
        Files.writeString(tmp, content);
        Files.move(tmp, jobs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private void assertRunnerUntouched() {
        assertEquals(1, board().running().size(), "the running job is still running: " + board());
        assertEquals(0, count(SchedulerEvent.JobStopping.class), "no running job was stopped");
    }

    @Test
    void halfWrittenFileNeverDequeuesAJobNorLaunchesACutLine() throws Exception {
        String r = runner() + "\n";
        start(r + big("P1") + "\n" + big("P2") + "\n" + big("P3") + "\n");
        awaitBoard(b -> pending(b).equals(List.of("echo P1", "echo P2", "echo P3")), "the first queue");
        // An editor truncates the file and writes the new version in pieces; rounds see every piece.
        String cut = r + big("P3") + "\n" + big("P1") + "\n[vram=1G] echo lr 0.0";
        for (String stage : List.of("", r, r + big("P3") + "\n", cut)) {
            Files.writeString(jobs, stage);
            awaitRounds(3);
            assertEquals(List.of("echo P1", "echo P2", "echo P3"), pending(board()), "mid-save at '" + stage + "'");
            assertEquals(List.of(runnerCommand()), started(), "nothing started from a half-written file");
        }
        Files.writeString(jobs, cut + "1\n" + big("P2") + "\n");
        settle(b -> pending(b).equals(List.of("echo P3", "echo P1", "echo P2")), "the saved queue");
        awaitBoard(b -> b.done().size() == 1, "the 1 GiB line ran beside the runner");
        assertEquals(List.of(runnerCommand(), "echo lr 0.01"), started(), "the whole line ran, never its cut");
        assertRunnerUntouched();
        assertEquals(0, count(SchedulerEvent.JobsFileRejected.class), "a save in progress is not an error");
        finish();
        assertEquals(List.of(runnerCommand(), "echo lr 0.01", "echo P3", "echo P1", "echo P2"), started());
    }

    @Test
    void renameOverSaveIsTakenAndRunningJobIsUntouchedByItsLineGoing() throws Exception {
        start(runner() + "\n" + big("P1") + "\n" + big("P2") + "\n");
        awaitBoard(b -> pending(b).equals(List.of("echo P1", "echo P2")), "the first queue");
        // VS Code / vim with backupcopy=no: a new file renamed over the old one. The runner's line is gone,
        // P1 is edited (a new job), P2 moved up, P4 added.
        renameOver(big("P2") + "\n" + big("P1 edited") + "\n" + big("P4") + "\n");
        settle(b -> pending(b).equals(List.of("echo P2", "echo P1 edited", "echo P4")), "the saved queue");
        assertRunnerUntouched();
        assertEquals(0, count(SchedulerEvent.JobsFileRejected.class));
        finish();
        assertEquals(List.of(runnerCommand(), "echo P2", "echo P1 edited", "echo P4"), started());
    }

    @Test
    void vimStyleSaveThatLeavesTheNameMissingForAWhileKeepsTheQueueQuietly() throws Exception {
        start(runner() + "\n" + big("P1") + "\n" + big("P2") + "\n");
        awaitBoard(b -> pending(b).equals(List.of("echo P1", "echo P2")), "the first queue");
        // vim's writebackup: rename the file to a backup, write the new one, delete the backup.
        Path backup = dir.resolve("jobs.txt~");
        Files.move(jobs, backup);
        awaitRounds(3);
        assertEquals(List.of("echo P1", "echo P2"), pending(board()), "a missing file dequeues nothing");
        Files.writeString(jobs, runner() + "\n" + big("P2") + "\n");
        awaitRounds(3);
        Files.delete(backup);
        settle(b -> pending(b).equals(List.of("echo P2")), "the saved queue");
        assertEquals(0, count(SchedulerEvent.JobsFileRejected.class), "missing for less than the quiet period");
        assertRunnerUntouched();
        finish();
    }

    @Test
    void deletedFileKeepsTheLastGoodQueueWarnsOnceThenTheRecreatedFileIsTaken() throws Exception {
        start(runner() + "\n" + big("P1") + "\n" + big("P2") + "\n");
        awaitBoard(b -> pending(b).equals(List.of("echo P1", "echo P2")), "the first queue");
        Files.delete(jobs);
        settle(b -> count(SchedulerEvent.JobsFileRejected.class) > 0, "a warning");
        for (int i = 0; i < 5; i++) {
            ticker.addAndGet(QUIET.toNanos());
            awaitRounds(1);
        }
        List<SchedulerEvent> warnings = events.stream().filter(e -> e instanceof SchedulerEvent.JobsFileRejected).toList();
        assertEquals(1, warnings.size(), "warned once: " + warnings);
        assertTrue(((SchedulerEvent.JobsFileRejected) warnings.get(0)).message().contains("is missing"), warnings.toString());
        assertEquals(List.of("echo P1", "echo P2"), pending(board()), "deletion alone dequeues nothing");
        assertRunnerUntouched();
        Files.writeString(jobs, big("P3") + "\n" + big("P1") + "\n");
        settle(b -> pending(b).equals(List.of("echo P3", "echo P1")), "the recreated queue");
        finish();
        assertEquals(List.of(runnerCommand(), "echo P3", "echo P1"), started());
        assertEquals(JobStatus.OK, run.get().results().get(0).status());
    }

    @Test
    void appendedWholeLinesAreTakenWithoutWaitingForTheQuietPeriod() throws Exception {
        start(runner() + "\n" + big("P1") + "\n");
        awaitBoard(b -> pending(b).equals(List.of("echo P1")), "the first queue");
        Files.writeString(jobs, big("P2") + "\n" + big("P3") + "\n", java.nio.file.StandardOpenOption.APPEND);
        // The ticker does not move: only the append rule can take these lines.
        awaitBoard(b -> pending(b).equals(List.of("echo P1", "echo P2", "echo P3")), "the appended lines");
        Files.writeString(jobs, "[vram=1G] echo half", java.nio.file.StandardOpenOption.APPEND);
        awaitRounds(3);
        assertFalse(started().contains("echo half"), "an unterminated last line waits for the quiet period");
        settle(b -> b.done().size() == 1, "the last line, once stable");
        assertEquals(List.of(runnerCommand(), "echo half"), started());
        finish();
    }
}

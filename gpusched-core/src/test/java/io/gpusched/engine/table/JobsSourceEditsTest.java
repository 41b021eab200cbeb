package io.gpusched.engine.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs file's stability rule (see {@link JobsSource}), one editor behaviour at a time, on a real
 * file with a hand-stepped ticker: nothing here depends on how fast the machine is.
 */
class JobsSourceEditsTest {
    private static final Duration QUIET = Duration.ofMillis(200);
    private static final long QUIET_NANOS = QUIET.toNanos();

    @TempDir
    Path dir;

    private final AtomicLong ticker = new AtomicLong(1_000_000_000L);
    /** Distinct, increasing mtimes for in-place writes, as saves seconds apart would get. */
    private long mtimeSeconds = 1_700_000_000L;

    private Path jobs;
    private JobsSource source;
    private final List<String> errors = new ArrayList<>();

    private JobsSource start(String content) throws IOException {
        jobs = dir.resolve("jobs.txt");
        writeInPlace(content);
        source = new JobsSource(Optional.of(jobs), List.of(), QUIET, ticker::get);
        refresh();
        return source;
    }

    /** One round: refresh, collecting any reported error, and return the queue's commands. */
    private List<String> refresh() {
        source.refresh().ifPresent(errors::add);
        return commands();
    }

    private List<String> commands() {
        return source.jobs().stream().map(JobSpec::command).toList();
    }

    private void advance(long nanos) {
        ticker.addAndGet(nanos);
    }

    /** The round that first sees a change, then the deciding one a quiet period later: its queue. */
    private List<String> takeOnceSettled() {
        refresh();
        advance(QUIET_NANOS);
        return refresh();
    }

    /** Looks {@code rounds} times, a quiet period apart, and finds {@code queue} each time. */
    private void assertQueueStaysFor(int rounds, List<String> queue) {
        for (int i = 0; i < rounds; i++) {
            assertEquals(queue, refresh());
            advance(QUIET_NANOS);
        }
    }

    private void writeInPlace(String content) throws IOException {
        Files.writeString(jobs, content); // truncate and rewrite: same inode
        Files.setLastModifiedTime(jobs, FileTime.fromMillis(++mtimeSeconds * 1000));
    }

    private void append(String text) throws IOException {
        Files.writeString(jobs, text, StandardOpenOption.APPEND);
        Files.setLastModifiedTime(jobs, FileTime.fromMillis(++mtimeSeconds * 1000));
    }

    private void renameOver(String content) throws IOException {
        Path tmp = dir.resolve(".jobs.txt.swp");
        Files.writeString(tmp, content);
        Files.move(tmp, jobs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void renamedOverFileIsTakenOnlyOnceItHasStayedTheSameForTheQuietPeriod() throws Exception {
        start("a\nb\nc\n");
        renameOver("c\na\n");
        assertEquals(List.of("a", "b", "c"), refresh(), "first sight of a rewrite: not yet");
        assertTrue(source.settleNanos().isPresent(), "the engine is told to look again");
        assertEquals(QUIET_NANOS, source.settleNanos().getAsLong());
        advance(QUIET_NANOS - 1);
        assertEquals(List.of("a", "b", "c"), refresh(), "just short of the quiet period");
        advance(1);
        assertEquals(List.of("c", "a"), refresh());
        assertTrue(source.settleNanos().isEmpty());
        assertEquals(List.of(), errors);
    }

    @Test
    void halfWrittenFileNeverDequeuesAJobNorLaunchesACutLine() throws Exception {
        start("a\nb\npython train.py --lr 0.01\n");
        long v = source.version();
        // A truncate-and-rewrite in place, caught at each stage by a round.
        for (String stage : List.of("", "b\n", "b\na\npython tr", "b\na\npython train.py --lr 0.0")) {
            writeInPlace(stage);
            assertEquals(List.of("a", "b", "python train.py --lr 0.01"), refresh(), "mid-save at '" + stage + "'");
            advance(QUIET_NANOS / 2);
        }
        writeInPlace("b\na\npython train.py --lr 0.01\n");
        assertEquals(List.of("b", "a", "python train.py --lr 0.01"), takeOnceSettled());
        assertEquals(v + 1, source.version(), "one change: the saved file, nothing in between");
        assertEquals(List.of(), errors, "a half-written file is not an error");
    }

    @Test
    void aShorterFileThatStaysPutIsTheUsersEditAndIsTaken() throws Exception {
        start("a\nb\n");
        writeInPlace("a\n");
        assertEquals(List.of("a", "b"), refresh());
        advance(QUIET_NANOS);
        assertEquals(List.of("a"), refresh(), "deleting a line dequeues it, once the file is stable");
        writeInPlace("");
        assertEquals(List.of(), takeOnceSettled(), "an emptied file that stays empty is an empty queue");
    }

    @Test
    void appendedWholeLinesAreTakenInTheRoundThatSeesThem() throws Exception {
        start("a\n");
        append("b\nc\n");
        assertEquals(List.of("a", "b", "c"), refresh());
        assertTrue(source.settleNanos().isEmpty());
    }

    @Test
    void aLiveEditWithALineContinuationOrAControlOrACommentOnlyCommandKeepsThePreviousQueue_andSaysWhy() throws Exception {
        start("a\n");
        // Appended, taken in the round that sees it, so refused there.
        append("python train.py \\\n  --lr 3e-4\n");
        assertEquals(List.of("a"), refresh());
        assertEquals(List.of("jobs.txt:2: line ends with '\\' (a shell line continuation), but a job is one line:"
                + " 'python train.py \\'; join the next line onto this one, or put the command in a script"
                + " — keeping the previous queue until the file is fixed"), errors);
        // A rewrite, taken once settled.
        errors.clear();
        renameOver("a\n[vram=8G] # python train.py\necho \u001b[1m\n");
        assertEquals(List.of("a"), takeOnceSettled());
        assertEquals(List.of("jobs.txt:2: the command is only a shell comment: '# python train.py'; put '#' at the start of"
                + " the line to skip it, or write the command before the '#' (and 1 more bad line) — keeping the previous"
                + " queue until the file is fixed"), errors);
        renameOver("a\npython train.py --lr 3e-4\n");
        assertEquals(List.of("a", "python train.py --lr 3e-4"), takeOnceSettled(), "the fixed file is taken");
    }

    @Test
    void halfTypedLastLineWaitsWhileTheCompleteOnesBeforeItAreTaken() throws Exception {
        start("a\n");
        append("b\npython train.py --lr 0.0");
        assertEquals(List.of("a", "b"), refresh(), "b is whole; the last line may be half typed");
        advance(QUIET_NANOS / 2);
        append("1");
        assertEquals(List.of("a", "b"), refresh());
        advance(QUIET_NANOS / 2);
        append("\n");
        assertEquals(List.of("a", "b", "python train.py --lr 0.01"), refresh(), "the newline completes it: taken at once");
    }

    @Test
    void lastLineWithoutNewlineIsTakenOnceStable() throws Exception {
        start("a\nb");
        assertEquals(List.of("a"), refresh(), "at start too, an unterminated line waits");
        assertTrue(source.settleNanos().isPresent(), "a run does not end while it waits");
        advance(QUIET_NANOS);
        assertEquals(List.of("a", "b"), refresh());
        append("\nc\n");
        assertEquals(List.of("a", "b"), refresh(), "b might have been extended: a rewrite, not an append");
        advance(QUIET_NANOS);
        assertEquals(List.of("a", "b", "c"), refresh());
    }

    @Test
    void deletedFileKeepsTheQueueWarnsOnceAndTheRecreatedOneIsTaken() throws Exception {
        start("a\nb\n");
        Files.delete(jobs);
        assertEquals(List.of("a", "b"), refresh());
        assertEquals(List.of(), errors, "missing for a moment, as in a save by rename: not news yet");
        advance(QUIET_NANOS);
        assertQueueStaysFor(5, List.of("a", "b"));
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("jobs file " + jobs + " is missing") && !errors.get(0).contains("\n"), errors.get(0));
        assertTrue(source.settleNanos().isEmpty(), "reported: a run may end on the last good queue");
        renameOver("b\nc\n");
        assertEquals(List.of("b", "c"), takeOnceSettled());
        Files.delete(jobs);
        refresh();
        advance(QUIET_NANOS);
        refresh();
        assertEquals(2, errors.size(), "a second outage is reported again: " + errors);
    }

    /** A FIFO in the jobs file's place is never opened: its open would block the loop until a writer came. */
    @Test
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void fileReplacedByAFifoIsNotOpenedKeepsTheQueueAndSaysSo() throws Exception {
        start("a\n");
        Files.delete(jobs);
        assertEquals(0, new ProcessBuilder("mkfifo", jobs.toString()).start().waitFor());
        refresh();
        advance(QUIET_NANOS);
        assertQueueStaysFor(3, List.of("a"));
        assertEquals(List.of("jobs file " + jobs + " is a FIFO, a device or a socket, not a regular file; keeping the"
                + " previous queue; put the jobs file back as a regular file"), errors);
        Files.delete(jobs);
        writeInPlace("a\nb\n");
        assertEquals(List.of("a", "b"), refresh(), "an append to the last queue taken: at once");
    }

    @Test
    void deletedAndRecreatedWithMoreLinesTakesTheAppendAtOnce() throws Exception {
        start("a\n");
        Files.delete(jobs);
        refresh();
        Files.writeString(jobs, "a\nb\n");
        assertEquals(List.of("a", "b"), refresh());
        assertEquals(List.of(), errors);
    }

    @Test
    void unreadableFileKeepsTheQueueWarnsOnceAndResumesWhenReadable() throws Exception {
        start("a\n");
        renameOver("b\n");
        Files.setPosixFilePermissions(jobs, PosixFilePermissions.fromString("---------"));
        try {
            Assumptions.assumeFalse(Files.isReadable(jobs), "running as root: chmod 000 does not deny reading");
            refresh();
            advance(QUIET_NANOS);
            assertQueueStaysFor(5, List.of("a"));
            assertEquals(1, errors.size(), errors.toString());
            assertTrue(errors.get(0).contains("permission denied (fix with chmod u+r " + jobs + ")"), errors.get(0));
        } finally {
            Files.setPosixFilePermissions(jobs, PosixFilePermissions.fromString("rw-r--r--"));
        }
        assertEquals(List.of("b"), takeOnceSettled());
        assertEquals(1, errors.size());
    }

    @Test
    void fileReplacedByADirectoryKeepsTheQueueWarnsOnceAndResumes() throws Exception {
        start("a\n");
        Files.delete(jobs);
        Files.createDirectory(jobs); // stat works, every read fails, whoever we are
        refresh();
        advance(QUIET_NANOS);
        assertQueueStaysFor(5, List.of("a"));
        assertEquals(List.of("jobs file " + jobs + " is a directory; keeping the previous queue; put the jobs file back"
                + " as a regular file"), errors, "one line naming the fault, no exception's class name");
        Files.delete(jobs);
        Files.writeString(jobs, "b\n");
        assertEquals(List.of("b"), takeOnceSettled());
        assertEquals(1, errors.size());
    }

    @Test
    void chmodOfAnUnchangedFileChangesNothing() throws Exception {
        start("a\n");
        Files.setPosixFilePermissions(jobs, PosixFilePermissions.fromString("---------"));
        try {
            assertQueueStaysFor(3, List.of("a"));
            assertEquals(List.of(), errors, "its content is the queue already");
        } finally {
            Files.setPosixFilePermissions(jobs, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    @Test
    void malformedHalfTypedLineIsNotReportedButAMalformedStableFileIsOnce() throws Exception {
        start("a\n");
        append("[vram=8");
        refresh();
        append("G] b\n");
        assertEquals(List.of("a", "b"), refresh());
        assertEquals(List.of(), errors, "the cut attribute block was never read as a line");
        append("[vram=oops] c\n");
        assertEquals(List.of("a", "b"), refresh(), "a whole malformed line: the last good queue stays");
        advance(QUIET_NANOS);
        refresh();
        advance(QUIET_NANOS);
        refresh();
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("jobs.txt:3: bad vram"), errors.get(0));
        writeInPlace("a\nb\n[vram=8G] c\n");
        assertEquals(List.of("a", "b", "c"), takeOnceSettled());
    }

    @Test
    void missingFileAtStartIsReportedAtOnce() {
        source = new JobsSource(Optional.of(dir.resolve("nope.txt")), List.of(), QUIET, ticker::get);
        refresh();
        assertEquals(1, errors.size(), "with no queue to fall back on, there is nothing to wait for");
    }

    @Test
    void anUnchangedStatCostsNoRead() throws Exception {
        start("a\n");
        FileTime mtime = Files.getLastModifiedTime(jobs);
        // Same size, same inode, mtime put back: only a read could tell, and the steady round does not read.
        Files.writeString(jobs, "b\n", StandardOpenOption.WRITE);
        Files.setLastModifiedTime(jobs, mtime);
        advance(QUIET_NANOS);
        assertEquals(List.of("a"), refresh());
        advance(QUIET_NANOS);
        assertEquals(List.of("a"), refresh());
    }

    @Test
    void rewriteWithTheSameContentIsNoChange() throws Exception {
        start("a\nb\n");
        long v = source.version();
        renameOver("a\nb\n");
        assertEquals(List.of("a", "b"), refresh());
        assertTrue(source.settleNanos().isEmpty(), "nothing waits: the content is what was taken");
        assertEquals(v, source.version());
        assertFalse(errors.iterator().hasNext());
    }
}

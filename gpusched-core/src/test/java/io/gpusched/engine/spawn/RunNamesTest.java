package io.gpusched.engine.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.gpusched.model.TtySession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The names a run has outside the scheduler, which a restarted scheduler and gpusched attach derive too. */
class RunNamesTest {
    @TempDir
    Path logDir;

    @Test
    void aJobsLogIsNamedAsTheOriginalToolNamesIt_itsNumberPaddedToThreeDigits() {
        RunNames names = new RunNames(logDir, logDir.resolve("journal.jsonl"));
        assertEquals(logDir.resolve("job007_gpu0-1.log"), names.log(7, List.of(0, 1)));
        assertEquals(logDir.resolve("job042_gpu3.log"), names.log(42, List.of(3)));
        assertEquals(logDir.resolve("job1234_gpu.log"), names.log(1234, List.of()));
        assertEquals(logDir.resolve(String.format("job%03d_gpu2.log", -4)), names.log(-4, List.of(2)));
    }

    @Test
    void aTerminalIsTheOneAttachDerivesFromTheLogDirectory_forEveryJob() throws Exception {
        Path link = Files.createSymbolicLink(logDir.resolve("link"), logDir);
        RunNames names = new RunNames(link, link.resolve("journal.jsonl"));
        for (int no : new int[] {1, 9, 10, 123, 100_000}) {
            assertEquals(TtySession.of(logDir, no), names.tty(no));
        }
    }

    @Test
    void runFilesAreNamedByJobAndRun_andNoneAreWrittenWhereRunsStartNoProcess() throws Exception {
        RunFiles files = new RunFiles(logDir);
        assertEquals(logDir.resolve("runs/job005.run12.pid"), files.pidFile(5, 12));
        assertEquals(logDir.resolve("runs/job100.run3.exit"), files.exitFile(100, 3));
        assertEquals(new RunFiles.Paths(logDir.resolve("runs/job005.run1.pid"), logDir.resolve("runs/job005.run1.exit"),
                logDir.resolve("runs/job005.run1.cmd"), logDir.resolve("runs/job005.run1.as")), files.paths(5, 1));

        RunFiles none = RunFiles.none(logDir);
        // No driver of a run on no disk writes them: every launch shares one set, under runs/ still.
        assertSame(none.paths(5, 1), none.paths(6, 2));
        assertEquals(logDir.resolve("runs"), none.paths(5, 1).pid().getParent());
        assertNotEquals(files.paths(5, 1), files.paths(6, 2), "a run on disk names each run's own files");
        none.createDirectory();
        none.prepare(5, 1);
        assertFalse(Files.exists(logDir.resolve("runs")), "a simulation's run files must not be created");
        files.prepare(5, 1);
        Files.writeString(files.exitFile(5, 1), "0\n");
        assertEquals(java.util.OptionalInt.of(0), files.exitCode(5, 1));
        assertEquals(java.util.OptionalInt.empty(), none.exitCode(5, 1), "none reads no file");
        none.remove(5, 1);
        assertEquals(java.util.OptionalInt.of(0), files.exitCode(5, 1), "none removes no file");
    }

    @Test
    void aRunThatEndedWhileNoSchedulerRan_ranBetweenItsFilesDates_andNothingKnownWhenItsEndIsDatedBeforeItsStart()
            throws Exception {
        RunFiles files = new RunFiles(logDir);
        files.createDirectory();
        java.time.Instant start = java.time.Instant.parse("2026-03-01T09:00:00Z");
        Files.writeString(files.pidFile(1, 1), "4242\n");
        Files.writeString(files.exitFile(1, 1), "0\n");
        Files.setLastModifiedTime(files.pidFile(1, 1), java.nio.file.attribute.FileTime.from(start));
        Files.setLastModifiedTime(files.exitFile(1, 1), java.nio.file.attribute.FileTime.from(start.plusSeconds(90)));
        assertEquals(java.util.Optional.of(java.time.Duration.ofSeconds(90)), files.ranFor(1, 1));
        // The clock was set back a day while it ran: no negative duration, none at all.
        Files.setLastModifiedTime(files.exitFile(1, 1), java.nio.file.attribute.FileTime.from(start.minusSeconds(86_400)));
        assertEquals(java.util.Optional.empty(), files.ranFor(1, 1));
    }
}

package io.gpusched.engine.spawn;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The two small files each run of a job leaves in {@code <log-dir>/runs/}: {@code jobNNN.runR.pid},
 * written before its command starts (the pid of the session's leader, which is also the session id),
 * and {@code jobNNN.runR.exit}, written when the command exits on its own (its exit status). The spawn
 * server's monitor writes them, or where none runs the wrapper shell
 * ({@link JobLauncher}). They are how
 * a restarted scheduler learns what happened while nobody watched: a run with an exit file ran to
 * completion and is never started again; one with a pid file and no exit file was spawned.
 *
 * <p>A value counts only once its line is complete (ends in a newline), so a file read while its
 * writer is mid-write reads as absent, never as a wrong number.
 */
public final class RunFiles {
    private final Path dir;
    /** False for a run whose runs start no process (a simulation): then no file is written, read or removed. */
    private final boolean onDisk;
    /** The files every launch of a run on no disk is given ({@link #none}); unused for a run on disk. */
    private final Paths shared;

    public RunFiles(Path logDir) {
        this(logDir, true);
    }

    private RunFiles(Path logDir, boolean onDisk) {
        this.dir = logDir.resolve("runs");
        this.onDisk = onDisk;
        this.shared = named(dir, "none");
    }

    /**
     * Run files of a run whose runs start no process and whose journal is kept in memory (a simulation):
     * the paths are named as usual, but nothing is created, written, read or removed; every run reads as
     * having left no file. The {@link #paths} handed to each launch are one set for all
     * ({@code runs/none.pid}, ...), as no driver of such a run writes them.
     *
     * @param logDir the log directory it stands in for
     * @return the run files
     */
    public static RunFiles none(Path logDir) {
        return new RunFiles(logDir, false);
    }

    public Path dir() {
        return dir;
    }

    /**
     * @return false for a run whose runs start no process and write no file (a simulation,
     *     {@link #none}): nothing of its runs is on disk to look at
     */
    public boolean onDisk() {
        return onDisk;
    }

    /**
     * Creates {@code runs/} readable by the scheduler's user only: it holds command files and, for runs
     * as their owners, spec files with the submitter's environment until gpusched-runas reads them.
     */
    public void createDirectory() throws IOException {
        if (!onDisk) {
            return;
        }
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } else if (!Files.getPosixFilePermissions(dir).equals(OWNER_ONLY)) {
            Files.setPosixFilePermissions(dir, OWNER_ONLY); // an older version made it 0755
        }
        made = true;
    }

    private static final java.util.Set<java.nio.file.attribute.PosixFilePermission> OWNER_ONLY =
            java.nio.file.attribute.PosixFilePermissions.fromString("rwx------");

    /**
     * Whether {@link #createDirectory} made or checked {@code runs/} in this process: a launch then only
     * looks that it is still there (one stat, where the whole check measured 3 % of the loop thread's
     * CPU per trivial job, issue #27), and makes it again if it was removed.
     */
    private boolean made;

    public Path pidFile(int no, long run) {
        return name(no, run, PID);
    }

    public Path exitFile(int no, long run) {
        return name(no, run, EXIT);
    }

    Path commandFile(int no, long run) {
        return name(no, run, COMMAND);
    }

    /** The spec file a run as its owner hands gpusched-runas ({@link OwnerLaunch}); it removes it once read. */
    Path specFile(int no, long run) {
        return name(no, run, SPEC);
    }

    /** {@code jobNNN.runR<suffix>} in {@code runs/}: built by hand, as each launch and removal names four. */
    private Path name(int no, long run, String suffix) {
        return dir.resolve(stem(no, run) + suffix);
    }

    /** {@code jobNNN.runR}, the name of a run's files without its suffix. */
    private static String stem(int no, long run) {
        StringBuilder b = new StringBuilder(24).append("job");
        JobNumbers.padded(b, no);
        return b.append(".run").append(run).toString();
    }

    /** A run's files, for the launcher. */
    public record Paths(Path pid, Path exit, Path command, Path spec) {
    }

    public Paths paths(int no, long run) {
        if (!onDisk) {
            // Only a driver that starts a process writes or reads these; a run on no disk has none that
            // does (the simulation's ignores them), so its launches share one set, named once.
            return shared;
        }
        return named(dir, stem(no, run));
    }

    /** The four files of {@code stem} in {@code dir}, the stem made once for all four. */
    private static Paths named(Path dir, String stem) {
        return new Paths(dir.resolve(stem + PID), dir.resolve(stem + EXIT), dir.resolve(stem + COMMAND),
                dir.resolve(stem + SPEC));
    }

    /** The suffixes of a run's four files. */
    private static final String PID = ".pid";
    private static final String EXIT = ".exit";
    private static final String COMMAND = ".cmd";
    private static final String SPEC = ".as";

    /**
     * Makes sure nothing stale answers for this run: a journal that lost its tail may hand out a run
     * number again, and the old files must not speak for the new run.
     */
    public void prepare(int no, long run) throws IOException {
        if (!onDisk) {
            return;
        }
        if (!made || !Files.isDirectory(dir)) {
            createDirectory();
        }
        Files.deleteIfExists(pidFile(no, run));
        Files.deleteIfExists(exitFile(no, run));
    }

    public OptionalLong pid(int no, long run) {
        if (!onDisk) {
            return OptionalLong.empty();
        }
        OptionalLong v = number(pidFile(no, run));
        return v.isPresent() && v.getAsLong() > 0 ? v : OptionalLong.empty();
    }

    public OptionalInt exitCode(int no, long run) {
        if (!onDisk) {
            return OptionalInt.empty();
        }
        return exitCode(exitFile(no, run));
    }

    /**
     * @param exitFile a run's exit file
     * @return the status in it, when the wrapper wrote its whole line (0 to 255)
     */
    public static OptionalInt exitCode(Path exitFile) {
        OptionalLong v = number(exitFile);
        return v.isPresent() && v.getAsLong() >= 0 && v.getAsLong() <= 255
                ? OptionalInt.of((int) v.getAsLong()) : OptionalInt.empty();
    }

    /**
     * How long a run's command ran, for a run that ended while no scheduler watched: the wrapper
     * writes the pid file as the command starts and the exit file as it ends.
     *
     * @return the time between the two files' modification times; empty when either is missing
     */
    public Optional<Duration> ranFor(int no, long run) {
        if (!onDisk) {
            return Optional.empty();
        }
        try {
            Instant start = Files.getLastModifiedTime(pidFile(no, run)).toInstant();
            Instant end = Files.getLastModifiedTime(exitFile(no, run)).toInstant();
            return end.isBefore(start) ? Optional.empty() : Optional.of(Duration.between(start, end));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Best effort: the files are small and only consulted for runs the journal leaves open. */
    public void remove(int no, long run) {
        if (!onDisk) {
            return;
        }
        try {
            Files.deleteIfExists(pidFile(no, run));
            Files.deleteIfExists(exitFile(no, run));
            Files.deleteIfExists(commandFile(no, run));
            Files.deleteIfExists(specFile(no, run));
        } catch (IOException ignored) {
            // a leftover file is harmless: prepare() clears it before its run number is used again
        }
    }

    /** For {@code --fresh}: a new journal starts its run numbers again at 1. */
    public void removeAll() throws IOException {
        if (!onDisk || !Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "job*.run*.{pid,exit,cmd,as}")) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
    }

    private static OptionalLong number(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            return OptionalLong.empty();
        }
        if (bytes.length < 2 || bytes.length > 24 || bytes[bytes.length - 1] != '\n') {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(new String(bytes, 0, bytes.length - 1, StandardCharsets.US_ASCII).trim()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}

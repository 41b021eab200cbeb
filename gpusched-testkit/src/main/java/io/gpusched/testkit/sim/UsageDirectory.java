package io.gpusched.testkit.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The directory simulated jobs report to. Reading it returns the reports of live processes and
 * deletes what dead ones left behind: a job killed with SIGKILL cannot remove its own file, and its
 * pretend memory must be freed as a real GPU frees a dead process's memory.
 */
final class UsageDirectory {
    private final Path dir;
    private final Path proc;

    /**
     * @param dir where the {@code <pid>.json} files are
     * @param proc the procfs mount, {@code /proc} outside tests
     */
    UsageDirectory(Path dir, Path proc) {
        this.dir = dir;
        this.proc = proc;
    }

    /**
     * What one read found.
     *
     * @param reports the reports of live processes
     * @param warnings files that were skipped, worded for the user
     */
    record Scan(List<UsageReport> reports, List<String> warnings) {
    }

    /**
     * @return the live reports, in no particular order
     * @throws IOException when the directory cannot be listed
     */
    Scan scan() throws IOException {
        List<UsageReport> reports = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path file : entries) {
                String name = file.getFileName().toString();
                if (name.endsWith(".json")) {
                    readReport(file, name, reports, warnings);
                } else if (name.startsWith(".") && name.endsWith(".tmp")) {
                    // a writer killed between write and rename leaves its temporary file behind
                    OptionalLong pid = leadingPid(name.substring(1));
                    if (pid.isPresent() && !alive(pid.getAsLong())) {
                        deleteQuietly(file);
                    }
                }
            }
        } catch (NoSuchFileException e) {
            // someone removed the directory; recreate it so new jobs can report again
            Files.createDirectories(dir);
        } catch (DirectoryIteratorException e) {
            throw e.getCause();
        }
        return new Scan(reports, warnings);
    }

    /**
     * Deletes the directory and everything in it, quietly: a leftover directory must not fail the
     * caller. Jobs that are still exiting remove their own files meanwhile, which is tolerated, and a
     * file written between the walk and the final delete makes it walk again.
     */
    void remove() {
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                        Files.deleteIfExists(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                        if (e instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE; // gone already: that is what we want
                        }
                        throw e;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                        Files.deleteIfExists(d);
                        return FileVisitResult.CONTINUE;
                    }
                });
                return;
            } catch (IOException e) {
                // e.g. DirectoryNotEmptyException from a file written during the walk: walk again
            }
        }
    }

    private void readReport(Path file, String name, List<UsageReport> reports, List<String> warnings) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return; // its job exited between listing and reading
        } catch (IOException e) {
            warnings.add("sim: cannot read usage file " + file + " (" + e.getMessage() + "); skipped it");
            return;
        }
        var report = UsageReport.parse(text);
        if (report.isEmpty()) {
            OptionalLong pid = leadingPid(name);
            if (pid.isPresent() && !alive(pid.getAsLong())) {
                deleteQuietly(file);
            } else {
                warnings.add("sim: skipped usage file " + file + ": it is not {\"pid\": P, \"usage\": {\"0\": MiB}}");
            }
            return;
        }
        if (!alive(report.get().pid())) {
            deleteQuietly(file);
            return;
        }
        reports.add(report.get());
    }

    /**
     * A process counts as alive while {@code /proc/<pid>} exists and it is not a zombie: a killed
     * job stays a zombie until its parent reaps it, but holds no memory any more.
     */
    boolean alive(long pid) {
        String stat;
        try {
            stat = Files.readString(proc.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return true; // unsure: keep the report rather than delete a live job's file
        }
        // the command name may hold spaces and parentheses, so read the state after the last ')'
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 >= stat.length()) {
            return true;
        }
        char state = stat.charAt(close + 2);
        return state != 'Z' && state != 'X';
    }

    /** A dead job's file is ignored either way; failing to delete it must not fail the snapshot. */
    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // e.g. a directory shared with another user; the next snapshot tries again
        }
    }

    private static OptionalLong leadingPid(String name) {
        int end = 0;
        while (end < name.length() && end < 10 && name.charAt(end) >= '0' && name.charAt(end) <= '9') {
            end++;
        }
        if (end == 0 || end == name.length() || name.charAt(end) != '.') {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(name.substring(0, end)));
    }
}

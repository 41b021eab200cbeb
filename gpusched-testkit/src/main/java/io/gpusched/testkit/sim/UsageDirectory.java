package io.gpusched.testkit.sim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.LinkOption;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The directory simulated jobs report to. Reading it returns the reports of live processes and
 * deletes what dead ones left behind: a job killed with SIGKILL cannot remove its own file, and its
 * pretend memory must be freed as a real GPU frees a dead process's memory.
 *
 * <p>A root scheduler runs its users' jobs as them, and they cannot write a directory of root's: each
 * gets a subdirectory of their own ({@link #userDirectory}), theirs and mode 0700, so no user reads or
 * writes another's files. A report found there counts only for a process of that directory's owner:
 * otherwise a user could charge memory to another user's job by naming its pid.
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
        try {
            scan(dir, OptionalInt.empty(), reports, warnings);
        } catch (NoSuchFileException e) {
            // someone removed the directory; recreate it so new jobs can report again
            Files.createDirectories(dir);
        }
        return new Scan(reports, warnings);
    }

    /**
     * Reads one directory's reports: the top one ({@code owner} empty, where any process may report) or
     * a user's, in which a report counts only for a process of {@code owner}'s.
     */
    private void scan(Path where, OptionalInt owner, List<UsageReport> reports, List<String> warnings) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(where)) {
            for (Path file : entries) {
                String name = file.getFileName().toString();
                if (name.endsWith(".json")) {
                    readReport(file, name, owner, reports, warnings);
                } else if (name.startsWith(".") && name.endsWith(".tmp")) {
                    // a writer killed between write and rename leaves its temporary file behind
                    OptionalLong pid = leadingPid(name.substring(1));
                    if (pid.isPresent() && !alive(pid.getAsLong())) {
                        deleteQuietly(file);
                    }
                } else if (owner.isEmpty() && Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                    OptionalInt uid = uidOf(file);
                    if (uid.isPresent()) {
                        try {
                            scan(file, uid, reports, warnings);
                        } catch (NoSuchFileException e) {
                            // removed while listed: nothing of it to read
                        }
                    }
                }
            }
        } catch (DirectoryIteratorException e) {
            throw e.getCause();
        }
    }

    /**
     * The directory of {@code user}'s jobs, made if missing: theirs, mode 0700, in this directory (which
     * only root may write, so nobody else can have made that name first).
     *
     * @param user a Unix user name
     * @return the directory, for the user's jobs' {@value SimJob#SIM_DIR_ENV}
     * @throws IOException when the user is unknown, this directory is writable by others or not
     *     enterable by them, or the name is taken by something else; the message says which
     */
    Path userDirectory(String user) throws IOException {
        if (!user.matches("[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}") || user.equals("..")) {
            throw new IOException("'" + user + "' is not a user name a directory can be named after");
        }
        PosixFileAttributes top = Files.readAttributes(dir, PosixFileAttributes.class);
        Set<PosixFilePermission> topMode = top.permissions();
        if (!top.owner().getName().equals("root") || topMode.contains(PosixFilePermission.GROUP_WRITE)
                || topMode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(dir + " is not root's alone (owner " + top.owner().getName() + ", mode "
                    + PosixFilePermissions.toString(topMode) + "); give the simulation a directory only root may write");
        }
        if (!topMode.contains(PosixFilePermission.OTHERS_EXECUTE)) {
            throw new IOException("other users cannot enter " + dir + " (mode " + PosixFilePermissions.toString(topMode)
                    + "); make it mode 0711 or 0755");
        }
        UserPrincipal owner = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
        Path own = dir.resolve(user);
        try {
            Files.createDirectory(own, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            // made for an earlier job of theirs: checked below
        }
        PosixFileAttributeView view = Files.getFileAttributeView(own, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        PosixFileAttributes attrs = view.readAttributes();
        if (attrs.isDirectory() && attrs.owner().getName().equals("root") && !attrs.owner().equals(owner)) {
            view.setOwner(owner); // made by us just now, or by a run that stopped before handing it over
            attrs = view.readAttributes();
        }
        Set<PosixFilePermission> mode = attrs.permissions();
        if (!attrs.isDirectory() || !attrs.owner().equals(owner) || !mode.equals(
                Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE))) {
            throw new IOException(own + " is not a directory of " + user + "'s alone (mode 0700)");
        }
        return own;
    }

    /**
     * Deletes the directory and everything in it, quietly: a leftover directory must not fail the
     * caller. Its users' directories are theirs, and their jobs may still be exiting: the tree is deleted
     * through directory handles that follow no link ({@link Trees}), so what a job swaps in mid-way (a
     * link to {@code /etc} where its directory was) is never followed by root. A file written between the
     * walk and the final delete makes it walk again.
     */
    void remove() {
        for (int attempt = 0; attempt < 3 && !Trees.remove(dir); attempt++) {
            // e.g. a file written during the walk kept a directory from being deleted: walk again
        }
    }

    private void readReport(Path file, String name, OptionalInt owner, List<UsageReport> reports, List<String> warnings) {
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
        if (owner.isPresent() && processUid(report.get().pid()).orElse(-1) != owner.getAsInt()) {
            // Left in place, ignored at every read: a read between rounds (a sample) says no warning,
            // so the next round's read still finds it to say; it goes once its process has ended.
            warnings.add("sim: ignored usage file " + file + ": process " + report.get().pid()
                    + " is not its directory's owner's (uid " + owner.getAsInt() + ")");
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

    /** The real uid of a process, from its {@code status}; empty when it cannot be read (gone, say). */
    OptionalInt processUid(long pid) {
        try {
            for (String line : Files.readAllLines(proc.resolve(Long.toString(pid)).resolve("status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    String[] ids = line.substring(4).strip().split("\\s+");
                    return OptionalInt.of(Integer.parseInt(ids[0]));
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown: the report does not count
        }
        return OptionalInt.empty();
    }

    private static OptionalInt uidOf(Path file) {
        try {
            return OptionalInt.of((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
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

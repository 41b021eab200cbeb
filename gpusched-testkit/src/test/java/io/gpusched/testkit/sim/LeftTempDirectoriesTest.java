package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The next simulation removes the temporary directories a dead process left (an exit on OutOfMemoryError
 * runs no hook), and nothing else: not a live process's, not one reached through a link, not another
 * user's files, not a name of another form.
 */
class LeftTempDirectoriesTest {
    private static final Path PROC = Path.of("/proc");
    private static final long NS = LeftTempDirectories.pidNamespace(PROC).orElseThrow();

    @TempDir
    Path tmp;

    /** A pid whose process has ended (reaped), with the start ticks its directory's name would hold. */
    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    private static long myTicks() {
        return LeftTempDirectories.startTicks(PROC, ProcessHandle.current().pid()).orElseThrow();
    }

    private Path left(String kind, long pid, long ticks) throws IOException {
        Path d = Files.createDirectory(tmp.resolve(kind + pid + "-" + ticks + "-" + NS + "-4239824043556838197"));
        Files.writeString(Files.createDirectory(d.resolve("alice")).resolve("123.json"), "{}");
        Files.writeString(d.resolve("456.json"), "{}");
        return d;
    }

    @Test
    void aDirectoryWhoseProcessDied_isRemovedWithWhatItHolds() throws Exception {
        Path sim = left("gpusched-sim-", deadPid(), 4711);
        Path simjob = left("gpusched-simjob-", deadPid(), 4711);
        assertEquals(List.of(sim, simjob).stream().sorted().toList(),
                LeftTempDirectories.sweep(tmp, PROC).stream().sorted().toList());
        assertFalse(Files.exists(sim, LinkOption.NOFOLLOW_LINKS));
        assertFalse(Files.exists(simjob, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void aLiveProcesssDirectory_stays_butThePidGivenOutAgainIsNotTakenForItsProcess() throws Exception {
        long me = ProcessHandle.current().pid();
        Path mine = left("gpusched-sim-", me, myTicks());
        Path earlierHolderOfMyPid = left("gpusched-sim-", me, myTicks() - 1);
        assertEquals(List.of(earlierHolderOfMyPid), LeftTempDirectories.sweep(tmp, PROC));
        assertTrue(Files.isDirectory(mine.resolve("alice")));
    }

    @Test
    void aLinkNamedSo_isNotFollowed_andOtherNamesAndNamespacesStay() throws Exception {
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Path precious = Files.writeString(elsewhere.resolve("precious"), "keep");
        Path link = Files.createSymbolicLink(tmp.resolve("gpusched-sim-" + deadPid() + "-1-" + NS + "-2"), elsewhere);
        Path older = Files.createDirectory(tmp.resolve("gpusched-sim-4239824043556838197")); // says no process
        Path other = Files.createDirectory(tmp.resolve("gpusched-simx-" + deadPid() + "-1-" + NS + "-2"));
        // A pid of another pid namespace (a container sharing the directory) says nothing of this one's processes.
        Path otherNamespace = Files.createDirectory(tmp.resolve("gpusched-sim-" + deadPid() + "-1-" + (NS + 1) + "-2"));
        assertEquals(List.of(), LeftTempDirectories.sweep(tmp, PROC));
        assertTrue(Files.isSymbolicLink(link) && Files.exists(precious) && Files.isDirectory(older)
                && Files.isDirectory(other) && Files.isDirectory(otherNamespace));
    }

    @Test
    void anotherUsersDirectory_andAnotherUsersFileInOurs_stay() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to give a file to another user");
        UserPrincipal nobody = tmp.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Path theirs = left("gpusched-sim-", deadPid(), 1);
        Files.setOwner(theirs, nobody);
        Path ours = left("gpusched-sim-", deadPid(), 2);
        Path theirFile = ours.resolve("alice").resolve("123.json");
        Files.setOwner(theirFile, nobody);
        assertEquals(List.of(), LeftTempDirectories.sweep(tmp, PROC));
        assertTrue(Files.exists(theirs.resolve("456.json")), "another user's directory was entered");
        assertTrue(Files.exists(theirFile), "another user's file was deleted");
        assertFalse(Files.exists(ours.resolve("456.json")), "ours beside it goes");
    }
}

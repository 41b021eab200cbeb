package io.gpusched.engine.proc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whose a process is, for a run's token found in it ({@link ProcFs#runsAs}), from a directory laid out
 * as {@code /proc} is: the entry's owner is this test's user, its {@code status} says the rest.
 * {@code HostileUsersTest.aSetuidRootProgramOfHersCarryingTheVictimsRunToken_doesNotKeepTheirSrunJobRunning}
 * makes the same attack with a real set-user-ID program.
 */
class ProcFsRunsAsTest {
    @TempDir
    Path proc;

    private final String me = System.getProperty("user.name");

    private long myUid() throws Exception {
        return ((Integer) Files.getAttribute(proc, "unix:uid")).longValue();
    }

    private ProcFs withProcess(long pid, String uidLine) throws Exception {
        Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(dir.resolve("status"), "Name:\tsu\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t" + pid
                + "\nPid:\t" + pid + "\nPPid:\t1\nTracerPid:\t0\n" + uidLine + "\nGid:\t0\t0\t0\t0\n");
        return new ProcFs(proc);
    }

    @Test
    void aProcessWhoseRealAndEffectiveUserAreTheOwners_isTheOwners() throws Exception {
        long uid = myUid();
        ProcFs fs = withProcess(7, "Uid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid);
        assertTrue(fs.runsAs(7, me));
    }

    @Test
    void aSetUserIdProcessWhoseRealUserIsAnothers_isNobodysRun_evenWhenItsEffectiveUserIsTheOwnerOrRoot() throws Exception {
        long uid = myUid();
        // Started by uid 4242 (her su, say): effective uid the entry's owner, real uid hers.
        ProcFs fs = withProcess(8, "Uid:\t4242\t" + uid + "\t" + uid + "\t" + uid);
        assertFalse(fs.runsAs(8, me));
        assertFalse(fs.runsAs(8, "gs-victim"));
    }

    @Test
    void aStatusThatDisagreesWithItsEntry_orCannotBeRead_countsForNoOne() throws Exception {
        long other = myUid() + 1;
        assertFalse(withProcess(9, "Uid:\t" + other + "\t" + other + "\t" + other + "\t" + other).runsAs(9, me));
        assertFalse(withProcess(10, "Gid:\t0").runsAs(10, me));
        assertFalse(new ProcFs(proc).runsAs(11, me));
    }
}

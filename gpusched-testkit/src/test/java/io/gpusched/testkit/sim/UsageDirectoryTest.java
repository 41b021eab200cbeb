package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UsageDirectoryTest {
    @TempDir
    Path tmp;

    private UsageDirectory withStat(long pid, String stat) throws Exception {
        Path proc = tmp.resolve("proc");
        Files.createDirectories(proc.resolve(Long.toString(pid)));
        Files.writeString(proc.resolve(pid + "/stat"), stat);
        return new UsageDirectory(tmp, proc);
    }

    @Test
    void zombiesAreDead() throws Exception {
        assertFalse(withStat(5, "5 (python) Z 1 5 5 0 -1").alive(5));
        assertFalse(withStat(6, "6 (x) X 1 6 6 0 -1").alive(6));
    }

    @Test
    void stateIsReadAfterTheLastParenthesis() throws Exception {
        assertTrue(withStat(7, "7 (we(ird) Z) S 1 7 7 0 -1").alive(7));
        assertFalse(withStat(8, "8 (a) b) Z 1 8 8 0 -1").alive(8));
    }

    @Test
    void missingProcEntryIsDead() throws Exception {
        assertFalse(withStat(9, "9 (a) S").alive(10));
    }

    @Test
    void aReportInAUsersDirectoryCountsOnlyForAProcessOfThatUser() throws Exception {
        int me = (Integer) Files.getAttribute(tmp, "unix:uid");
        Path usage = Files.createDirectories(tmp.resolve("usage"));
        Path proc = tmp.resolve("proc");
        for (long[] p : new long[][] {{11, me}, {12, me + 1}}) {
            Files.createDirectories(proc.resolve(Long.toString(p[0])));
            Files.writeString(proc.resolve(p[0] + "/stat"), p[0] + " (simjob) S 1 1 1 0 -1");
            Files.writeString(proc.resolve(p[0] + "/status"), "Name:\tsimjob\nUid:\t" + p[1] + "\t" + p[1] + "\t" + p[1] + "\t"
                    + p[1] + "\n");
        }
        Path mine = Files.createDirectories(usage.resolve("someone"));
        Files.writeString(mine.resolve("11.json"), "{\"pid\": 11, \"usage\": {\"0\": 500}}");
        Files.writeString(mine.resolve("12.json"), "{\"pid\": 12, \"usage\": {\"0\": 20000}}");
        UsageDirectory.Scan scan = new UsageDirectory(usage, proc).scan();
        assertEquals(java.util.List.of(new UsageReport(11, java.util.Map.of(0, 500L))), scan.reports());
        assertEquals(1, scan.warnings().size(), scan.warnings().toString());
        assertTrue(scan.warnings().get(0).contains("process 12 is not its directory's owner's (uid " + me + ")"),
                scan.warnings().toString());
        assertEquals(scan, new UsageDirectory(usage, proc).scan(), "ignored at every read, said at every read");
    }
}

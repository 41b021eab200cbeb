package io.gpusched.testkit.sim;

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
}

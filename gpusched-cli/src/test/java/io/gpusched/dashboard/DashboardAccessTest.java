package io.gpusched.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DashboardAccessTest {
    @TempDir
    Path dir;

    @Test
    void aUsersDaemonServesItsOwnerAlone_aRootDaemonEveryUser() {
        assertTrue(DashboardAccess.ownerOnly("ada").serves("ada"));
        assertFalse(DashboardAccess.ownerOnly("ada").serves("bob"));
        assertFalse(DashboardAccess.ownerOnly("ada").serves("root"), "a user's socket refuses root too");
        assertTrue(DashboardAccess.everyUser().serves("bob"));
    }

    @Test
    void theMetricsTokenIsTheFilesFirstLine() throws Exception {
        Path f = Files.writeString(dir.resolve("t"), "  0123456789abcdef0123  \nignored\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertEquals("0123456789abcdef0123", DashboardAccess.readMetricsToken(f));
    }

    @Test
    void aTokenFileOthersCanReadOrAShortTokenIsRefusedInOneLine() throws Exception {
        Path f = Files.writeString(dir.resolve("t"), "0123456789abcdef0123\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalArgumentException open = assertThrows(IllegalArgumentException.class, () -> DashboardAccess.readMetricsToken(f));
        assertEquals("--metrics-token-file " + f + " is readable by other users (rw-r--r--); chmod 600 " + f, open.getMessage());

        Files.writeString(f, "short\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        IllegalArgumentException shortOne = assertThrows(IllegalArgumentException.class,
                () -> DashboardAccess.readMetricsToken(f));
        assertTrue(shortOne.getMessage().startsWith("--metrics-token-file " + f + ": its first line must be a token of at "
                + "least 16 characters"), shortOne.getMessage());

        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> DashboardAccess.readMetricsToken(dir.resolve("none")));
        assertTrue(missing.getMessage().startsWith("--metrics-token-file " + dir.resolve("none") + ": cannot read it")
                && !missing.getMessage().contains("\n"), missing.getMessage());
    }
}

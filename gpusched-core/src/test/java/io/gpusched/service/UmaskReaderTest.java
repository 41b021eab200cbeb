package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mask a client sends with each submission, read through a status file it holds open. */
class UmaskReaderTest {
    @TempDir
    Path dir;

    @Test
    void eachReadSeesTheFileAsItIsThen_notTheFirstReadsMask() throws Exception {
        Path status = Files.writeString(dir.resolve("status"), "Name:\tjava\nUmask:\t0027\nState:\tS (sleeping)\n");
        try (UmaskReader r = new UmaskReader(status)) {
            assertEquals(OptionalInt.of(0027), r.read());
            // Rewritten in place, as the kernel writes /proc/self/status afresh for each read from its start.
            Files.writeString(status, "Name:\tjava\nUmask:\t0077\nState:\tS (sleeping)\n");
            assertEquals(OptionalInt.of(0077), r.read());
            // Shorter now, and without the line: what the longer file left in the reader's buffer is not read.
            Files.writeString(status, "Name:\tjava\n");
            assertEquals(OptionalInt.empty(), r.read());
        }
    }

    @Test
    void aFileLongerThanOneReadIsReadWhole_soTheMaskIsNeverTakenFromACutFile() throws Exception {
        String groups = "Groups:\t" + "1000 ".repeat(UmaskReader.READ_BYTES / 5 + 1) + "\n";
        Path status = Files.writeString(dir.resolve("status"), "Name:\tjava\n" + groups + "Umask:\t0007\n");
        try (UmaskReader r = new UmaskReader(status)) {
            assertEquals(OptionalInt.of(0007), r.read());
        }
    }

    @Test
    void aFileThatCannotBeOpenedGivesNone_andTheDaemonsDefaultApplies() {
        try (UmaskReader r = new UmaskReader(dir.resolve("missing"))) {
            assertEquals(OptionalInt.empty(), r.read());
            assertEquals(OptionalInt.empty(), r.read());
        }
    }

    @Test
    void thisProcessesMaskThroughTheHeldFileIsTheWholeFilesMask_atEveryRead() {
        Path proc = Path.of("/proc/self/status");
        Assumptions.assumeTrue(Files.isReadable(proc), "no /proc/self/status here");
        try (UmaskReader r = new UmaskReader(proc)) {
            for (int i = 0; i < 3; i++) {
                OptionalInt mask = r.read();
                assertEquals(GpuschedClient.processUmask(), mask);
                assertTrue(mask.isPresent(), "Linux reports a mask since 4.7");
            }
        }
    }
}

package io.gpusched.service;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The umask a client sends with each submission, read from {@code /proc/self/status}. */
class ProcessUmaskTest {
    private static byte[] status(String umaskLine) {
        return ("Name:\tjava\n" + umaskLine + "State:\tS (sleeping)\nTgid:\t42\n").getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void everyMaskLinuxCanReportIsReadBack() {
        for (int mask = 0; mask <= 0777; mask++) {
            assertEquals(OptionalInt.of(mask), GpuschedClient.umaskIn(status(String.format("Umask:\t%04o\n", mask))),
                    Integer.toOctalString(mask));
        }
    }

    @Test
    void theMaskIsTheOneOnTheUmaskLine_notAFieldThatEndsTheSame() {
        byte[] s = ("Name:\tjava\nNotUmask:\t0777\nUmask:\t0027\n").getBytes(StandardCharsets.US_ASCII);
        assertEquals(OptionalInt.of(0027), GpuschedClient.umaskIn(s));
    }

    @Test
    void aFileWithoutTheLine_orWithAValueThatIsNotAMask_givesNone() {
        assertEquals(OptionalInt.empty(), GpuschedClient.umaskIn(status("")));
        assertEquals(OptionalInt.empty(), GpuschedClient.umaskIn(status("Umask:\t0089\n")));
        assertEquals(OptionalInt.empty(), GpuschedClient.umaskIn(status("Umask:\t\n")));
        assertEquals(OptionalInt.empty(), GpuschedClient.umaskIn(status("Umask:\t07777\n")));
    }

    @Test
    void thisProcessesMaskIsWhatItsStatusFileSays() throws Exception {
        Path proc = Path.of("/proc/self/status");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(proc), "no /proc/self/status here");
        String line = Files.readAllLines(proc).stream().filter(l -> l.startsWith("Umask:")).findFirst().orElseThrow();
        assertEquals(OptionalInt.of(Integer.parseInt(line.substring(6).strip(), 8)), GpuschedClient.processUmask());
    }
}

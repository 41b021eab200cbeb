package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another user's job output, as root or an admin reads it with {@code gpusched logs N}: only from a
 * regular file of the job's owner (or the reader's own), never through a link, and as text whose escape
 * sequences, carriage returns and other controls are shown, not acted on; lines, and characters of any
 * script, read as written.
 */
class OthersOutputTest {
    @TempDir
    Path dir;

    private static String shown(OthersOutput o, String... reads) {
        StringBuilder b = new StringBuilder();
        for (String r : reads) {
            byte[] bytes = r.getBytes(StandardCharsets.ISO_8859_1);
            b.append(new String(o.text(bytes, bytes.length), StandardCharsets.UTF_8));
        }
        return b.toString();
    }

    @Test
    void escapesAndControlsAreShown_linesAndScriptsAreKept() {
        OthersOutput o = new OthersOutput("ada");
        assertEquals("step 1\\r step 2\nclip \\e]52;c;eA==\\x07 done\n", shown(o, "step 1\r step 2\nclip \u001b]52;c;eA==\u0007 done\n"));
        // "é—ok" in UTF-8, cut inside both of its multi-byte characters.
        byte[] utf8 = "é—ok\n".getBytes(StandardCharsets.UTF_8);
        String cut = new String(utf8, StandardCharsets.ISO_8859_1);
        assertEquals("é—ok\n", shown(o, cut.substring(0, 1), cut.substring(1, 3), cut.substring(3)));
        assertEquals("\ufffd bad byte\n", shown(new OthersOutput("ada"), "\u00ff bad byte\n"));
        assertEquals("\\x9b2J C1 CSI\n", shown(new OthersOutput("ada"), "\u00c2\u009b2J C1 CSI\n"));
    }

    @Test
    void aReadersOwnJob_isCopiedAsItIs() {
        assertTrue(OthersOutput.forReader(Optional.of("root"), "root").isEmpty());
        assertTrue(OthersOutput.forReader(Optional.empty(), "root").isEmpty());
        assertTrue(OthersOutput.forReader(Optional.of("ada"), "root").isPresent());
    }

    @Test
    void aLinkAFifoOrAFileNotTheOwnersOwn_isNotOpened() throws Exception {
        String me = System.getProperty("user.name");
        Path file = Files.writeString(dir.resolve("out.log"), "x\n");
        OthersOutput o = new OthersOutput(me);
        try (FileChannel ch = o.open(file)) {
            assertEquals(2, ch.size(), "the owner's regular file is read");
        }
        Path link = Files.createSymbolicLink(dir.resolve("link.log"), file);
        assertTrue(assertThrows(IOException.class, () -> o.open(link)).getMessage().contains("symbolic link"));
        Path fifo = dir.resolve("fifo.log");
        assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "needs mkfifo (coreutils)");
        assertTrue(assertThrows(IOException.class, () -> o.open(fifo)).getMessage().contains("not a regular file"));
        // A file of the reader's (root's /etc/shadow, reached through a directory she turned into a link).
        assertEquals("it belongs to " + me + ", not to the job's owner",
                assertThrows(IOException.class, () -> new OthersOutput("gs-nobody-here").open(file)).getMessage());
    }

    @Test
    void aFifoSwappedInAfterTheLook_doesNotHoldTheReader() throws Exception {
        Path fifo = dir.resolve("swapped.log");
        assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "needs mkfifo (coreutils)");
        OthersOutput o = new OthersOutput(System.getProperty("user.name"));
        long t0 = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> o.openWithin(fifo, 300));
        assertTrue(e.getMessage().startsWith("it did not open within 300 ms"), e.getMessage());
        assertTrue(System.nanoTime() - t0 < java.util.concurrent.TimeUnit.SECONDS.toNanos(10), "it waited for the FIFO");
        new java.io.FileOutputStream(fifo.toFile()).close(); // a writer, so the opening thread left waiting ends
        assertTrue(assertThrows(IOException.class, () -> o.open(fifo)).getMessage().contains("not a regular file"));
    }
}

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
import java.util.List;
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

    /** Bytes as a job may write them: text of several scripts, controls, and bytes that are not UTF-8. */
    private static io.gpusched.testkit.arbitraries.Gen<byte[]> outputBytes() {
        io.gpusched.testkit.arbitraries.Gen<byte[]> piece = io.gpusched.testkit.arbitraries.Gen.oneOf(
                io.gpusched.testkit.arbitraries.Gen.elements("a", " ", "\n", "\r", "\t", "\u001b[31m", "\u0007", "é", "—",
                        "😀", "\u202e", "\u009b", "x\n").map(t -> t.getBytes(StandardCharsets.UTF_8)),
                io.gpusched.testkit.arbitraries.Gen.ints(0, 255).map(b -> new byte[] {(byte) (int) b}));
        return io.gpusched.testkit.arbitraries.Gen.listOf(piece, 0, 40).map(parts -> {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            parts.forEach(all::writeBytes);
            return all.toByteArray();
        });
    }

    /** A job's output and the lengths of the reads that take it, in turn (over again when they run out). */
    private record Reads(byte[] bytes, List<Integer> cuts) {
        @Override
        public String toString() {
            return java.util.HexFormat.of().formatHex(bytes) + " read " + cuts + " bytes at a time";
        }
    }

    @Test
    void howTheReadsCutTheOutput_changesNothingShown() {
        io.gpusched.testkit.arbitraries.Property.forAll(outputBytes().with(io.gpusched.testkit.arbitraries.Gen.listOf(
                io.gpusched.testkit.arbitraries.Gen.ints(1, 7), 1, 20), Reads::new))
                .tries(2000).check(r -> {
                    byte[] bytes = r.bytes();
                    List<Integer> cuts = r.cuts();
                    byte[] whole = new OthersOutput("ada").text(bytes, bytes.length);
                    OthersOutput o = new OthersOutput("ada");
                    java.io.ByteArrayOutputStream pieces = new java.io.ByteArrayOutputStream();
                    int at = 0;
                    for (int i = 0; at < bytes.length; i++) {
                        int n = Math.min(cuts.get(i % cuts.size()), bytes.length - at);
                        pieces.writeBytes(o.text(java.util.Arrays.copyOfRange(bytes, at, at + n), n));
                        at += n;
                    }
                    assertEquals(new String(whole, StandardCharsets.UTF_8), pieces.toString(StandardCharsets.UTF_8),
                            r.toString());
                    String shown = new String(whole, StandardCharsets.UTF_8);
                    assertTrue(shown.chars().noneMatch(c -> c < 0x20 && c != '\n' || c >= 0x7f && c < 0xa0),
                            "a control reached the reader: " + shown);
                });
    }
}

package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs-file parser fed real files of hostile bytes, each property over 1,000 generated inputs:
 * a file parses exactly as its decoded text does, bytes that are not UTF-8 are an error on their
 * own line, lines are limited in UTF-8 bytes to the byte, and every message stays one visible line.
 */
class JobsFileHostileBytesPropertiesTest {
    private static final int TRIES = 1000;
    private static final int MAX = JobsFileParser.MAX_LINE_BYTES;

    @TempDir
    Path dir;

    @Test
    void anyBytesParseExactlyAsTheirTextDoes_orFailWithATypedErrorOnTheFirstBadLine() {
        Property.forAll(hostileFiles()).tries(TRIES).check(file -> {
            byte[] bytes = file.bytes();
            Path f = write("jobs.txt", bytes);
            List<byte[]> lines = lines(bytes);
            int firstInvalid = firstInvalidLine(lines);
            List<JobSpec> parsed;
            try {
                parsed = JobsFileParser.parse(f);
            } catch (JobSpecException e) {
                assertOneVisibleLine(e);
                assertTrue(e.getMessage().startsWith("jobs.txt:" + e.line() + ": "), e.getMessage());
                if (firstInvalid == 0) {
                    assertEquals(e.getMessage(), messageOf(() -> JobsFileParser.parse(decode(bytes), "jobs.txt")), "as text");
                } else if (e.line() == firstInvalid) {
                    assertTrue(e.getMessage().contains(": line is not valid UTF-8 (bad bytes shown as \uFFFD): '"), e.getMessage());
                } else {
                    // A syntax error before the bad bytes: the same error as for the valid lines alone.
                    assertTrue(e.line() < firstInvalid, "line " + e.line() + " after the first bad line " + firstInvalid);
                    assertEquals(e.getMessage(), messageOf(() -> JobsFileParser.parse(decode(validPrefix(bytes, firstInvalid)), "jobs.txt")));
                }
                return;
            } catch (RuntimeException | StackOverflowError e) {
                throw new AssertionError("not a JobSpecException: " + e, e);
            }
            assertEquals(0, firstInvalid, "accepted a file whose line " + firstInvalid + " is not UTF-8");
            assertEquals(JobsFileParser.parse(decode(bytes), "jobs.txt"), parsed, "as text");
        });
    }

    @Test
    void aLineIsAcceptedExactlyWhenItsUtf8FitsIn65536Bytes_fromAFileFromTextAndAlone() {
        Gen<String> wide = Gen.elements("a", "Z", "é", "ß", "中", "€", "🚀", "𝄞");
        Gen<List<Object>> cases = Gen.ints(MAX - 8, MAX + 8).with(Gen.elements("\n", "\r\n", "", "\r"), (len, end) -> List.of(len, end));
        Property.forAll(cases.with(Gen.listOf(wide, 1, 4), (c, alphabet) -> List.of(c.get(0), c.get(1), alphabet))).tries(TRIES)
                .check(c -> {
                    int target = (Integer) c.get(0);
                    String end = (String) c.get(1);
                    @SuppressWarnings("unchecked") List<String> alphabet = (List<String>) c.get(2);
                    String line = lineOfExactly(target, alphabet);
                    assertEquals(target, line.getBytes(StandardCharsets.UTF_8).length);
                    String text = "python a.py\n" + line + end;
                    Path f = write("jobs.txt", text.getBytes(StandardCharsets.UTF_8));
                    if (target <= MAX) {
                        assertEquals(line, JobsFileParser.parse(f).get(1).command());
                        assertEquals(line, JobsFileParser.parse(text, "jobs.txt").get(1).command());
                        assertEquals(line, JobSpec.parse(line + end).command());
                    } else {
                        JobSpecException fromFile = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(f));
                        assertEquals(2, fromFile.line());
                        assertTrue(fromFile.getMessage().startsWith("jobs.txt:2: line is " + target + " bytes long, over the 65536-byte limit: '"),
                                fromFile.getMessage());
                        assertEquals(fromFile.getMessage(), messageOf(() -> JobsFileParser.parse(text, "jobs.txt")));
                        assertThrows(JobSpecException.class, () -> JobSpec.parse(line + end));
                    }
                });
    }

    @Test
    void everyErrorMessageIsOneVisibleLine_whateverTheLineOrTheFileNameHolds() {
        Gen<String> invisible = Gen.elements("\n", "\r", "\u0085", "\u2028", "\u2029", "\u202e", "\u2066", "\u200b", "\ufeff", "\u0000",
                "\u001b", "\u009b", "\ud800", "\udfff", "\u007f");
        Gen<String> token = Gen.strings(Gen.oneOf(invisible, Gen.elements("vram", "=", "G", "x", "1", " ", "[", "]", "é", "🚀")), 1, 12);
        Gen<String> line = Gen.<String>weighted()
                .add(2, token.map(t -> "[" + t + "] python x.py"))
                .add(1, token.map(t -> "[vram=" + t + "] python x.py"))
                .add(1, token.map(t -> "python \u0000" + t))
                .add(1, token.map(t -> "[" + t))
                .add(1, JobSpecArbitraries.nearValidLines())
                .add(1, JobSpecArbitraries.anyText())
                .build();
        Property.forAll(line.with(token, List::of)).tries(TRIES).check(c -> {
            String text = c.get(0);
            String source = "jobs" + c.get(1) + ".txt";
            for (Runnable parse : List.<Runnable>of(() -> JobsFileParser.parse("python ok.py\n" + text, source), () -> JobSpec.parse(text))) {
                try {
                    parse.run();
                } catch (JobSpecException e) {
                    assertOneVisibleLine(e);
                    assertTrue(e.getMessage().contains(":" + e.line() + ": "), e.getMessage());
                    // The comma hint reads "...not commas: write [...]", its rewrite shown as printable.
                    assertTrue(e.getMessage().endsWith("; " + e.expected())
                            || e.getMessage().contains(": attributes are separated by spaces, not commas: write ["), e.getMessage());
                }
            }
        });
    }

    @Test
    void gpusAndRetriesInRangeAreAcceptedWhateverTheirLeadingZeros_outOfRangeNeverWraps() {
        Gen<BigInteger> values = Gen.<BigInteger>weighted()
                .add(3, Gen.longs(0, 1100).map(BigInteger::valueOf))
                .add(1, Gen.longs(0, Long.MAX_VALUE).map(BigInteger::valueOf))
                .add(1, Gen.elements(BigInteger.ONE.shiftLeft(32).add(BigInteger.ONE), BigInteger.ONE.shiftLeft(31),
                        BigInteger.ONE.shiftLeft(64).add(BigInteger.TWO), BigInteger.TEN.pow(25).add(BigInteger.ONE)))
                .build();
        Property.forAll(values.with(Gen.ints(0, 30), (v, zeros) -> "0".repeat(zeros) + v)).tries(TRIES).check(text -> {
            BigInteger v = new BigInteger(text);
            Optional<JobSpec> gpus = tryParse("[gpus=" + text + "] x");
            if (v.compareTo(BigInteger.ONE) >= 0 && v.compareTo(BigInteger.valueOf(JobsFileParser.MAX_GPUS)) <= 0) {
                assertEquals(v.intValueExact(), gpus.orElseThrow(() -> new AssertionError("rejected gpus=" + text)).gpus());
            } else {
                assertTrue(gpus.isEmpty(), "accepted gpus=" + text + " as " + gpus.map(JobSpec::gpus));
            }
            Optional<JobSpec> retries = tryParse("[retries=" + text + "] x");
            if (v.compareTo(BigInteger.valueOf(JobsFileParser.MAX_RETRIES)) <= 0) {
                assertEquals(v.intValueExact(), retries.orElseThrow(() -> new AssertionError("rejected retries=" + text)).retries());
            } else {
                assertTrue(retries.isEmpty(), "accepted retries=" + text + " as " + retries.map(JobSpec::retries));
            }
        });
    }

    // ---- generators and oracles -----------------------------------------------------------------

    /** A file's bytes, shown readably when a property fails on them. */
    record FileBytes(byte[] bytes) {
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("\"");
            for (byte b : bytes) {
                int u = b & 0xFF;
                sb.append(u >= 0x20 && u < 0x7f && u != '\\' && u != '"' ? String.valueOf((char) u) : String.format("\\x%02x", u));
            }
            return sb.append("\" (").append(bytes.length).append(" bytes)").toString();
        }
    }

    /** Files of arbitrary bytes, valid and broken UTF-8, near-valid lines, CR, LF, NUL and BOMs. */
    private static Gen<FileBytes> hostileFiles() {
        Gen<byte[]> piece = Gen.<byte[]>weighted()
                .add(3, Gen.ints(0, 255).map(b -> new byte[] {(byte) b.intValue()}))
                .add(3, JobSpecArbitraries.anyText().map(JobsFileHostileBytesPropertiesTest::utf8))
                .add(3, JobSpecArbitraries.nearValidLines().map(l -> utf8(l + "\n")))
                .add(2, Gen.elements("\n", "\r\n", "\r", "\0", "\t", " ", "#", "[", "]", "=", "\uFEFF", "é", "中", "🚀").map(JobsFileHostileBytesPropertiesTest::utf8))
                .add(2, Gen.elements(new byte[] {(byte) 0xC3}, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xC0, (byte) 0x80},
                        new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, new byte[] {(byte) 0xED, (byte) 0xBF, (byte) 0xBF},
                        new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, new byte[] {(byte) 0xFE}, new byte[] {(byte) 0xFF},
                        new byte[] {(byte) 0xE2, (byte) 0x82}, new byte[] {(byte) 0xEF, (byte) 0xBB}))
                .add(2, JobSpecArbitraries.independentJobSpecs().map(s -> utf8(s.toLine() + "\n")))
                .build();
        return Gen.listOf(piece, 0, 30).with(Gen.chance(15), (parts, bom) -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (bom) {
                out.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
            }
            parts.forEach(out::writeBytes);
            return new FileBytes(out.toByteArray());
        });
    }

    /** A command line of exactly {@code bytes} UTF-8 bytes, starting {@code echo } and ending in a non-space. */
    private static String lineOfExactly(int bytes, List<String> alphabet) {
        StringBuilder sb = new StringBuilder("echo ");
        int used = 5;
        int i = 0;
        while (true) {
            String c = alphabet.get(i++ % alphabet.size());
            int n = utf8(c).length;
            if (used + n > bytes - 1) {
                break;
            }
            sb.append(c);
            used += n;
        }
        return sb.append("x".repeat(bytes - used)).toString();
    }

    /** The file's lines as bytes: after a leading BOM, split on LF only, as the parser splits them. */
    private static List<byte[]> lines(byte[] bytes) {
        int start = bytes.length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB && (bytes[2] & 0xFF) == 0xBF ? 3 : 0;
        List<byte[]> lines = new ArrayList<>();
        for (int i = start; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                lines.add(Arrays.copyOfRange(bytes, start, i));
                start = i + 1;
            }
        }
        return lines;
    }

    /** 1-based number of the first line that is not strict UTF-8; 0 when all are. */
    private static int firstInvalidLine(List<byte[]> lines) {
        for (int i = 0; i < lines.size(); i++) {
            if (strictUtf8(lines.get(i)).isEmpty()) {
                return i + 1;
            }
        }
        return 0;
    }

    /** The bytes up to (not including) line {@code lineNo}. */
    private static byte[] validPrefix(byte[] bytes, int lineNo) {
        int seen = 1;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n' && ++seen == lineNo) {
                return Arrays.copyOf(bytes, i);
            }
        }
        throw new AssertionError("no line " + lineNo);
    }

    private static Optional<String> strictUtf8(byte[] b) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private static String decode(byte[] b) {
        return strictUtf8(b).orElseThrow(() -> new AssertionError("the oracle found these bytes valid"));
    }

    private static void assertOneVisibleLine(JobSpecException e) {
        String m = e.getMessage();
        for (int i = 0; i < m.length(); i++) {
            char c = m.charAt(i);
            assertFalse(c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || Character.getType(c) == Character.FORMAT,
                    "raw U+" + Integer.toHexString(c) + " at " + i + " in: " + m);
            if (Character.isHighSurrogate(c) && i + 1 < m.length() && Character.isLowSurrogate(m.charAt(i + 1))) {
                i++;
            } else {
                assertFalse(Character.isSurrogate(c), "unpaired surrogate at " + i + " in: " + m);
            }
        }
    }

    private static String messageOf(Runnable parse) {
        try {
            parse.run();
        } catch (JobSpecException e) {
            return e.getMessage();
        }
        return fail("parsed without error");
    }

    private static Optional<JobSpec> tryParse(String line) {
        try {
            return Optional.of(JobSpec.parse(line));
        } catch (JobSpecException e) {
            return Optional.empty();
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Path write(String name, byte[] bytes) {
        try {
            return Files.write(dir.resolve(name), bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The line and file limits, and bytes that are not UTF-8, read from real files. */
class JobsFileLimitsTest {
    private static final int MIB = 1024 * 1024;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS) // a hang guard only
    void hundredMegabyteLineIsATypedErrorOnItsLine_readInBoundedMemory() throws IOException {
        Path f = dir.resolve("jobs.txt");
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("python a.py\n# a comment\n".getBytes(StandardCharsets.US_ASCII)));
            byte[] x = new byte[MIB];
            Arrays.fill(x, (byte) 'x');
            for (int i = 0; i < 100; i++) {
                ch.write(ByteBuffer.wrap(x));
            }
            ch.write(ByteBuffer.wrap("\npython b.py\n".getBytes(StandardCharsets.US_ASCII)));
        }
        assertEquals(100L * MIB + 37, Files.size(f));
        JobSpecException[] thrown = new JobSpecException[1];
        long allocated = AllocationMeter.allocatedBy(() -> thrown[0] = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(f)));
        JobSpecException e = thrown[0];
        assertEquals(3, e.line());
        assertTrue(e.getMessage().startsWith("jobs.txt:3: line is at least 16777193 bytes long"), e.getMessage());
        assertTrue(e.getMessage().contains(" bytes long, over the 65536-byte limit: 'xxxxxxxx"), e.getMessage());
        assertTrue(e.getMessage().endsWith("; keep each job on one line of at most 65536 bytes (is this really a jobs file?)"),
                e.getMessage());
        assertTrue(e.getMessage().length() < 300, "the token is shortened: " + e.getMessage().length());
        // Reading the whole file would allocate at least 100 MiB (twice that once decoded); the parser reads
        // no more than its 16 MiB file limit, into one buffer.
        assertTrue(allocated < 24L * MIB, "allocated " + allocated / MIB + " MiB to reject a 100 MiB file");
    }

    @Test
    void lineOfExactly65536BytesIsAccepted_oneByteMoreIsNot_countedInUtf8Bytes() throws IOException {
        // 'é' is two bytes: the limit is in bytes, whatever the characters.
        String head = "echo ";
        String fits = head + "é".repeat((JobsFileParser.MAX_LINE_BYTES - head.length()) / 2) + "x".repeat((JobsFileParser.MAX_LINE_BYTES - head.length()) % 2);
        assertEquals(JobsFileParser.MAX_LINE_BYTES, fits.getBytes(StandardCharsets.UTF_8).length);
        String over = fits + "x";
        for (String end : List.of("\n", "\r\n", "\r", "")) {
            // A line end, CRLF's CR included, is not part of the line.
            Path ok = Files.writeString(dir.resolve("ok.txt"), "python a.py\n" + fits + end);
            assertEquals(fits, JobsFileParser.parse(ok).get(1).command(), "ending " + end.length());
            assertEquals(fits, JobsFileParser.parse("python a.py\n" + fits + end, "ok.txt").get(1).command());
        }
        assertEquals(fits, JobsFileParser.parse(fits, "jobs.txt").get(0).command());
        assertEquals(fits, JobSpec.parse(fits).command());

        Path bad = Files.writeString(dir.resolve("bad.txt"), "python a.py\n" + over + "\n");
        JobSpecException fromFile = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(bad));
        assertTrue(fromFile.getMessage().startsWith("bad.txt:2: line is 65537 bytes long, over the 65536-byte limit: 'echo éé"),
                fromFile.getMessage());
        JobSpecException fromText = assertThrows(JobSpecException.class, () -> JobsFileParser.parse("python a.py\n" + over, "bad.txt"));
        assertEquals(fromFile.getMessage(), fromText.getMessage());
        assertThrows(JobSpecException.class, () -> JobSpec.parse(over));
    }

    @Test
    void fileOfExactly16MiBIsRead_oneByteMoreIsATypedErrorNamingTheLineWhereItGoesOver() throws IOException {
        // Long comment lines keep this cheap: the limit is on bytes, whatever the lines hold.
        String comment = "#" + "c".repeat(60_000) + "\n";
        String job = "python last.py\n";
        int comments = (JobsFileParser.MAX_FILE_BYTES - job.length()) / comment.length();
        int pad = JobsFileParser.MAX_FILE_BYTES - job.length() - comments * comment.length();
        StringBuilder sb = new StringBuilder(JobsFileParser.MAX_FILE_BYTES + 16);
        sb.append(comment.repeat(comments)).append("#").append("p".repeat(pad - 2)).append("\n").append(job);
        assertEquals(JobsFileParser.MAX_FILE_BYTES, sb.length());
        Path exact = Files.writeString(dir.resolve("jobs.txt"), sb);
        List<JobSpec> jobs = JobsFileParser.parse(exact);
        assertEquals(List.of("python last.py"), jobs.stream().map(JobSpec::command).toList());
        assertEquals(comments + 2, jobs.get(0).line());

        Path over = Files.writeString(dir.resolve("jobs.txt"), sb.append("x"));
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(over));
        assertEquals(comments + 3, e.line(), "the line after the last whole one: " + e.getMessage());
        assertTrue(e.getMessage().startsWith("jobs.txt:" + (comments + 3) + ": jobs file goes on past the 16777216-byte limit in line 'x'; "
                + "keep the jobs file under 16 MiB"), e.getMessage());
    }

    @Test
    void bytesReadByACallerFollowTheSameLimits_wholeOrCutAfterTheFileLimit() throws IOException {
        byte[] longLine = ("python a.py\n" + "y".repeat(17 * MIB) + "\npython b.py\n").getBytes(StandardCharsets.US_ASCII);
        JobSpecException whole = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(longLine, "jobs.txt"));
        assertTrue(whole.getMessage().startsWith("jobs.txt:2: line is 17825792 bytes long, over the 65536-byte limit: 'yyyy"),
                whole.getMessage());

        // Short lines past the file limit: the error names the line that crosses it, however much was read.
        String comment = "#" + "c".repeat(1000) + "\n";
        int lines = JobsFileParser.MAX_FILE_BYTES / comment.length() + 5;
        byte[] all = comment.repeat(lines).getBytes(StandardCharsets.US_ASCII);
        int crossing = JobsFileParser.MAX_FILE_BYTES / comment.length() + 1;
        String expected = "jobs.txt:" + crossing + ": jobs file goes on past the 16777216-byte limit in line '#cccc";
        JobSpecException fromAll = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(all, "jobs.txt"));
        assertTrue(fromAll.getMessage().startsWith(expected), fromAll.getMessage());
        byte[] cut = Arrays.copyOf(all, JobsFileParser.MAX_FILE_BYTES + 1);
        assertEquals(fromAll.getMessage(), assertThrows(JobSpecException.class, () -> JobsFileParser.parse(cut, "jobs.txt")).getMessage());
        Path f = Files.write(dir.resolve("jobs.txt"), all);
        assertEquals(fromAll.getMessage(), assertThrows(JobSpecException.class, () -> JobsFileParser.parse(f)).getMessage());
        // One byte under the limit more is fine, and so is the limit exactly.
        assertEquals(List.of(), JobsFileParser.parse(Arrays.copyOf(all, JobsFileParser.MAX_FILE_BYTES), "jobs.txt"));
    }

    @Test
    void malformedUtf8IsATypedErrorNamingItsLine_whateverTheKindOfBadSequence() throws IOException {
        byte[][] bad = {
            {(byte) 0xC3, '('},                     // a lead byte without its continuation
            {(byte) 0x80},                          // a lone continuation byte
            {(byte) 0xC0, (byte) 0x80},             // an overlong NUL
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // a surrogate encoded on its own (CESU-8)
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // beyond U+10FFFF
            {(byte) 0xFF},
            {(byte) 0xE2, (byte) 0x82},             // cut short at the end of the file
        };
        for (byte[] b : bad) {
            byte[] file = concat("python ok.py\r\n# fine: \u00e9\u4e2d\ud83d\ude80\n[vram=1G] echo ".getBytes(StandardCharsets.UTF_8), b);
            Path f = dir.resolve("jobs.txt");
            Files.write(f, file);
            JobSpecException e = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(f), Arrays.toString(b));
            assertEquals(3, e.line(), Arrays.toString(b));
            assertTrue(e.getMessage().startsWith("jobs.txt:3: line is not valid UTF-8 (bad bytes shown as \uFFFD): '[vram=1G] echo \uFFFD"),
                    e.getMessage());
            assertTrue(e.getMessage().endsWith("'; save the jobs file as UTF-8"), e.getMessage());
        }
        // U+FFFD itself, correctly encoded, is text like any other.
        Files.writeString(dir.resolve("jobs.txt"), "echo \uFFFD\n");
        assertEquals("echo \uFFFD", JobsFileParser.parse(dir.resolve("jobs.txt")).get(0).command());
    }

    @Test
    void bomCrlfAndTabsInAFileParseLikePlainLf() throws IOException {
        String lf = "[vram=1.5G\tgpus=2]\tpython a.py\n\n\t# comment\npython b.py\n";
        Path plain = Files.writeString(dir.resolve("a.txt"), lf);
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
        Path fancy = Files.write(dir.resolve("b.txt"), concat(bom, lf.replace("\n", "\r\n").getBytes(StandardCharsets.UTF_8)));
        List<JobSpec> expected = JobsFileParser.parse(plain);
        assertEquals(2, expected.size());
        assertEquals(OptionalLong.of(1536), expected.get(0).vramMib());
        assertEquals(expected, JobsFileParser.parse(fancy));
        // Only a leading BOM is skipped; one later in the file is part of its line.
        Path late = Files.writeString(dir.resolve("c.txt"), "python a.py\n\uFEFFpython b.py\n");
        assertEquals("\uFEFFpython b.py", JobsFileParser.parse(late).get(1).command());
    }

    @Test
    void singleJobLineWithALineBreakOrHalfASurrogatePairIsATypedError() {
        JobSpecException lf = assertThrows(JobSpecException.class, () -> JobSpec.parse("python a.py\nrm -rf /"));
        assertTrue(lf.getMessage().startsWith("<job>:1: line break in job line 'python a.py\\x0arm -rf /'; give one job per line"),
                lf.getMessage());
        assertEquals("python a.py", JobSpec.parse("python a.py\r\n").command(), "a trailing line end is just whitespace");

        JobSpecException lone = assertThrows(JobSpecException.class, () -> JobSpec.parse("echo \ud800 x"));
        assertTrue(lone.getMessage().startsWith("<job>:1: unpaired UTF-16 surrogate in line 'echo \\ud800 x'"), lone.getMessage());
        JobSpecException inFile = assertThrows(JobSpecException.class, () -> JobsFileParser.parse("ok\n[vram=1G] echo \udc00", "jobs.txt"));
        assertEquals(2, inFile.line());
        assertEquals("echo \ud83d\ude80", JobSpec.parse("echo \ud83d\ude80").command(), "a whole pair is fine");
    }

    @Test
    void aLineThatIsNotUtf8OrTooLongEndsTheReportOfBadLines() throws IOException {
        byte[] head = "[x=1] a\nok\n".getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\n[y=1] b\n".getBytes(StandardCharsets.UTF_8);
        byte[] notUtf8 = {'e', 'c', 'h', 'o', ' ', (byte) 0xC3, (byte) 0x28};
        byte[] tooLong = ("echo " + "x".repeat(JobsFileParser.MAX_LINE_BYTES)).getBytes(StandardCharsets.UTF_8);
        for (byte[] stop : List.of(notUtf8, tooLong)) {
            Path f = Files.write(dir.resolve("jobs.txt"), concat(head, stop, tail));
            JobSpecException e = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(f));
            assertEquals(List.of(1, 3), e.errors().stream().map(JobSpecException::line).toList(), "nothing after line 3");
            assertEquals(2, e.badLines());
            assertTrue(e.errors().get(1).getMessage().startsWith("jobs.txt:3: line "), e.errors().get(1).getMessage());
        }
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void messagesStayOnOneVisibleLineWhateverTheTokenOrFileNameHolds() {
        String hostile = "[vrma=\u0085\u2028\u2029\u202e\u200b\ufeff\u009b\u001b[31m\r] x";
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(hostile, "evil\nname\u2028.txt"));
        String m = e.getMessage();
        assertEquals("evil\\x0aname\\u2028.txt:1: unknown key in attribute block: "
                + "'vrma=\\x85\\u2028\\u2029\\u202e\\u200b\\ufeff\\x9b\\x1b[31m' — did you mean 'vram'?; known keys: vram, gpus, timeout, retries, "
                + "cancel, priority, gpu-ids, preemptible, on-timeout, name, after, after-ok, after-any, conda, setup, tty, comment, unique", m);
        assertEquals("evil\nname\u2028.txt", e.source(), "the accessor keeps the raw name");
    }

    @Test
    void nearValidValuesAreTypedErrorsNamingTheirToken_orReadExactly() {
        for (String bad : List.of("vram=1e309", "vram=-1G", "vram=NaN", "vram=Infinity", "vram=0x10", "timeout=1e400h",
                "timeout=NaN", "timeout=-1s", "timeout=3650.000000001d", "gpus=99999999999", "gpus=0", "gpus=1025",
                "retries=2147483648", "retries=1001", "vram=2147483648", "vram=2097152G")) {
            JobSpecException e = assertThrows(JobSpecException.class, () -> JobsFileParser.parse("ok\n[" + bad + "] python x.py\n", "jobs.txt"), bad);
            assertEquals(2, e.line(), bad);
            assertEquals(bad, e.token(), bad);
            assertTrue(e.getMessage().startsWith("jobs.txt:2: bad "), e.getMessage());
            assertTrue(e.getMessage().contains("; give "), "names a fix: " + e.getMessage());
        }
        assertEquals(java.util.Optional.of(java.time.Duration.ofNanos(100)), JobSpec.parse("[timeout=0.0000001s] x").timeout());
        assertEquals(java.util.Optional.of(java.time.Duration.ofDays(3650)), JobSpec.parse("[timeout=87600h] x").timeout());
        assertEquals(OptionalLong.of(Units.MAX_MIB), JobSpec.parse("[vram=2097151.999G] x").vramMib());
        for (String broken : List.of("[vram=1G", "[vram=1G vram=2G] x", "[vram=1G]", "[vram=1G]   \t", "[cancel=1] x", "python a\0.py")) {
            JobSpecException e = assertThrows(JobSpecException.class, () -> JobsFileParser.parse("ok\n" + broken + "\n", "jobs.txt"), broken);
            assertEquals(2, e.line(), broken);
            assertTrue(e.getMessage().startsWith("jobs.txt:2: "), e.getMessage());
        }
    }

    @Test
    void wholeNumbersWithLeadingZerosAreReadExactly_neverWrapped() {
        assertEquals(2, JobSpec.parse("[gpus=00000000000000000002] x").gpus());
        assertEquals(1000, JobSpec.parse("[retries=0001000] x").retries());
        assertEquals(0, JobSpec.parse("[retries=0000] x").retries());
        for (String bad : List.of("gpus=4294967297", "gpus=18446744073709551617", "retries=2147483648", "retries=4294968296",
                "gpus=0", "gpus=", "retries=-0", "retries=+1", "gpus=1.0", "gpus=\u0661")) {
            assertThrows(JobSpecException.class, () -> JobSpec.parse("[" + bad + "] x"), bad);
        }
    }

    @Test
    void specsCanOnlyHoldCommandsThatAJobsFileLineCanHold() {
        String key = JobKeys.key("x", 0);
        for (String command : List.of("a\0b", "a\nb", "é".repeat(JobsFileParser.MAX_LINE_BYTES / 2 + 1))) {
            assertThrows(IllegalArgumentException.class, () -> JobSpec.builder(command).key(key).build());
        }
        assertEquals(JobsFileParser.MAX_LINE_BYTES / 2, JobSpec.builder("é".repeat(JobsFileParser.MAX_LINE_BYTES / 2)).key(key).build()
                .command().length());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}

package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The incremental parser, which re-reads only appended lines, against the whole-file parser as the
 * oracle: over any sequence of versions of a file (appends most of all, but also rewrites, cuts,
 * partial last lines, bad lines and bad bytes), each version gives exactly the whole-file result,
 * the same jobs with the same keys or the same bad lines reported.
 */
class JobsFileIncrementalPropertiesTest {
    private static final int TRIES = 1000;

    /** How one version of the file follows the previous one. */
    private enum Edit { APPEND, REWRITE, CUT }

    private record Step(Edit edit, List<byte[]> pieces, int cutPercent) {
        @Override
        public String toString() {
            return edit + " " + (edit == Edit.CUT ? cutPercent + "%" : pieces.stream().map(p -> show(p)).toList());
        }
    }

    @Test
    void everyVersionParsesIncrementallyExactlyAsAWholeFileParse() {
        Gen<Step> step = Gen.<Edit>weighted().add(7, Gen.constant(Edit.APPEND)).add(1, Gen.constant(Edit.REWRITE))
                .add(1, Gen.constant(Edit.CUT)).build()
                .with(Gen.listOf(pieces(), 0, 6), (edit, pieces) -> List.of(edit, pieces))
                .with(Gen.ints(0, 100), (ep, cut) -> {
                    @SuppressWarnings("unchecked")
                    List<byte[]> pieces = (List<byte[]>) ep.get(1);
                    return new Step((Edit) ep.get(0), pieces, cut);
                });
        Property.forAll(Gen.listOf(step, 1, 12)).tries(TRIES).check(steps -> {
            JobsFileParser.Incremental incremental = new JobsFileParser.Incremental("jobs.txt");
            byte[] file = new byte[0];
            for (Step s : steps) {
                file = apply(file, s);
                byte[] version = file;
                assertEquals(outcome(() -> JobsFileParser.parse(version.clone(), "jobs.txt")),
                        outcome(() -> incremental.parse(version)), "after " + s + ", file " + show(version));
            }
        });
    }

    @Test
    void appendedCopiesOfACommandGetTheNextOccurrenceKeys() {
        JobsFileParser.Incremental p = new JobsFileParser.Incremental("jobs.txt");
        p.parse(utf8("echo a\n# note\necho b\n"));
        List<JobSpec> jobs = p.parse(utf8("echo a\n# note\necho b\necho a\n[vram=1G] echo a\n"));
        assertEquals(List.of(JobKeys.key("echo a", 0), JobKeys.key("echo b", 0), JobKeys.key("echo a", 1),
                JobKeys.key("echo a", 2)), jobs.stream().map(JobSpec::key).toList());
        assertEquals(List.of(1, 3, 4, 5), jobs.stream().map(JobSpec::line).toList());
    }

    @Test
    void aBadAppendedLineIsReportedByItsLineInTheFileAndTheLastGoodVersionStaysTheBase() {
        JobsFileParser.Incremental p = new JobsFileParser.Incremental("jobs.txt");
        p.parse(utf8("echo a\necho b\n"));
        JobSpecException e = assertThrows(JobSpecException.class,
                () -> p.parse(utf8("echo a\necho b\n[vrma=1G] echo c\n")));
        assertEquals(3, e.line());
        assertEquals(List.of("echo a", "echo b", "echo d"),
                p.parse(utf8("echo a\necho b\necho d\n")).stream().map(JobSpec::command).toList());
    }

    private static Gen<byte[]> pieces() {
        // a few commands that repeat, so appended copies need the prefix's occurrence counts
        Gen<String> repeated = Gen.elements("echo a", "[vram=1G] echo a", "echo b", "python train.py --lr 0.01");
        return Gen.<byte[]>weighted()
                .add(4, JobSpecArbitraries.jobSpecs().map(s -> utf8(s.toLine() + "\n")))
                .add(4, repeated.map(l -> utf8(l + "\n")))
                .add(2, Gen.elements("# note\n", "\n", "  \t\n", "echo crlf\r\n", "\uFEFFecho bom\n", "echo é 中\n")
                        .map(JobsFileIncrementalPropertiesTest::utf8))
                .add(1, JobSpecArbitraries.nearValidLines().map(l -> utf8(l + "\n")))
                .add(1, Gen.elements(new byte[] {(byte) 0xC3, '\n'}, new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
                        utf8("echo no newline yet"), utf8("\r"), new byte[] {0}))
                .build();
    }

    private static byte[] apply(byte[] file, Step s) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        switch (s.edit()) {
            case APPEND -> out.writeBytes(file);
            case CUT -> {
                return Arrays.copyOf(file, file.length * s.cutPercent() / 100);
            }
            case REWRITE -> { }
        }
        s.pieces().forEach(out::writeBytes);
        return out.toByteArray();
    }

    /** The jobs, or every bad line's message and their count: what a caller can observe of a parse. */
    private static Object outcome(java.util.function.Supplier<List<JobSpec>> parse) {
        try {
            return parse.get();
        } catch (JobSpecException e) {
            return "error: " + e.errors().stream().map(JobSpecException::getMessage).toList() + ", " + e.badLines() + " bad lines";
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String show(byte[] bytes) {
        StringBuilder sb = new StringBuilder("\"");
        for (byte b : bytes) {
            int u = b & 0xFF;
            sb.append(u >= 0x20 && u < 0x7f && u != '\\' && u != '"' ? String.valueOf((char) u) : String.format("\\x%02x", u));
        }
        return sb.append('"').toString();
    }
}

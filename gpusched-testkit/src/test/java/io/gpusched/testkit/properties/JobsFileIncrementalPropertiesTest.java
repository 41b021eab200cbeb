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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The incremental parser, which re-reads only appended lines, against the whole-file parser as the
 * oracle: over any sequence of versions of a file (appends most of all, but also rewrites, cuts,
 * partial last lines, bad lines and bad bytes), each version gives exactly the whole-file result,
 * the same jobs with the same keys or the same bad lines reported; and so for files whose lines name
 * each other, where appended lines are checked against the names before them (a name twice, a
 * dependency on no job, a cycle).
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
        agreesWithTheWholeFileParserUnderEdits(pieces());
    }

    @Test
    void everyVersionOfAFileWithNamesAndDependenciesParsesIncrementallyExactlyAsAWholeFileParse() {
        Property.forAll(growingFilesWithNames()).tries(TRIES).check(versions -> {
            JobsFileParser.Incremental incremental = new JobsFileParser.Incremental("jobs.txt");
            for (Version v : versions) {
                assertEquals(outcome(() -> JobsFileParser.parse(v.bytes().clone(), "jobs.txt")),
                        outcome(() -> incremental.parse(v.bytes())), "after " + v);
            }
        });
    }

    /** One version of a file and the edit that made it, shown readably when a property fails. */
    private record Version(String edit, byte[] bytes) {
        @Override
        public String toString() {
            return edit + ": " + show(bytes);
        }
    }

    /**
     * Versions of a file that grows, a few lines at a time, towards one whose jobs name each other with
     * no cycle ({@link JobSpecArbitraries#jobFiles()}); dependencies on later lines make most prefixes
     * bad until the line they wait for is appended. Now and then a line over a few names is appended
     * (a name twice, a name no job has, a cycle), the file is rewritten as a prefix of the good one, or
     * cut anywhere.
     */
    private static Gen<List<Version>> growingFilesWithNames() {
        Gen<byte[]> noise = namedLines();
        return (random, size) -> {
            List<String> good = JobSpecArbitraries.jobFiles().next(random, size).stream().map(JobSpec::toLine).toList();
            List<Version> versions = new ArrayList<>();
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            int next = 0;
            for (int step = random.nextInt(1, 16); step > 0; step--) {
                int pick = random.nextInt(12);
                String edit;
                if (pick < 8 && next < good.size()) {
                    int n = Math.min(good.size() - next, random.nextInt(1, 4));
                    good.subList(next, next + n).forEach(l -> text.writeBytes(utf8(l + "\n")));
                    next += n;
                    edit = "append " + n + " good";
                } else if (pick < 10) {
                    text.writeBytes(noise.next(random, size));
                    edit = "append noise";
                } else if (pick == 10) {
                    next = random.nextInt(next + 1);
                    text.reset();
                    good.subList(0, next).forEach(l -> text.writeBytes(utf8(l + "\n")));
                    edit = "rewrite as " + next + " good";
                } else {
                    byte[] all = text.toByteArray();
                    int cut = random.nextInt(all.length + 1);
                    text.reset();
                    text.write(all, 0, cut);
                    edit = "cut at byte " + cut;
                }
                versions.add(new Version(edit, text.toByteArray()));
            }
            return List.copyOf(versions);
        };
    }

    private static void agreesWithTheWholeFileParserUnderEdits(Gen<byte[]> piece) {
        Gen<Step> step = Gen.<Edit>weighted().add(7, Gen.constant(Edit.APPEND)).add(1, Gen.constant(Edit.REWRITE))
                .add(1, Gen.constant(Edit.CUT)).build()
                .with(Gen.listOf(piece, 0, 6), (edit, p) -> List.of(edit, p))
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

    @Test
    void aBadAppendDoesNotLeaveItsNamesBehind() {
        JobsFileParser.Incremental p = new JobsFileParser.Incremental("jobs.txt");
        p.parse(utf8("[name=a] echo a\n"));
        assertThrows(JobSpecException.class, () -> p.parse(utf8("[name=a] echo a\n[name=b after=zz] echo b\n")));
        assertEquals(2, p.parse(utf8("[name=a] echo a\n[name=b] echo b\n")).size(), "b was never taken, so it is free");
    }

    /**
     * Lines over a few names, so later lines wait for earlier and later ones, give a name twice, name
     * no job, or close a cycle, now and then with cancel or a syntax error.
     */
    private static Gen<byte[]> namedLines() {
        Gen<String> name = Gen.elements("a", "b", "c", "d", "e", "f", "g", "h", "i", "j");
        Gen<String> key = Gen.elements("after", "after-ok", "after-any");
        Gen<String> line = (random, size) -> {
            List<String> attrs = new ArrayList<>();
            if (random.nextInt(3) != 0) {
                attrs.add("name=" + name.next(random, size));
            }
            Map<String, Set<String>> after = new LinkedHashMap<>();
            for (int i = random.nextInt(3); i > 0; i--) {
                after.computeIfAbsent(key.next(random, size), k -> new LinkedHashSet<>()).add(name.next(random, size));
            }
            // the same name under two keys is a syntax error, which is fine now and then
            after.forEach((k, names) -> attrs.add(k + "=" + String.join(",", names)));
            if (random.nextInt(6) == 0) {
                attrs.add(Gen.elements("cancel", "vram=0", "x").next(random, size));
            }
            return "[" + String.join(" ", attrs) + "] echo " + random.nextInt(3) + "\n";
        };
        return line.map(JobsFileIncrementalPropertiesTest::utf8);
    }

    private static Gen<byte[]> pieces() {
        // a few commands that repeat, so appended copies need the prefix's occurrence counts
        Gen<String> repeated = Gen.elements("echo a", "[vram=1G] echo a", "echo b", "python train.py --lr 0.01");
        return Gen.<byte[]>weighted()
                .add(4, JobSpecArbitraries.independentJobSpecs().map(s -> utf8(s.toLine() + "\n")))
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

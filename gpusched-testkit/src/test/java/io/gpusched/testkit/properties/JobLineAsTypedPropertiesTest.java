package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What runs is what was typed (docs/jobs-file.md, "One line, run exactly as typed"), each over 1,000
 * generated lines: a command without the characters the rules refuse is run exactly as typed, less
 * only ASCII spaces and tabs at its ends; one with a control character is refused; and any command
 * the journal may hold is read back from its recorded line as it was.
 */
class JobLineAsTypedPropertiesTest {
    private static final int TRIES = 1000;

    /** Shell syntax, blanks, backslashes, comments' {@code #}, and whitespace a shell keeps in a word. */
    private static final Gen<String> CHAR = Gen.<String>weighted()
            .add(8, Gen.ints('a', 'z').map(c -> String.valueOf((char) c.intValue())))
            .add(5, Gen.elements(" ", "  ", "\t"))
            .add(5, Gen.elements("\\", "\\\\", "'", "\"", "#", "[", "]", "=", ";", "&", "|", "$", "*", "(", ")", "<", ">", "-"))
            .add(3, Gen.elements("é", "中", "🚀", "\u00a0", "\u2003", "\u3000", "\u0085", "\u200b", "\u2028"))
            .build();

    /** Control characters the rules refuse: C0 but TAB; LF, which ends a file's line, aside. */
    private static final Gen<String> CONTROL = Gen.ints(1, 0x1f).filter(c -> c != '\t' && c != '\n')
            .map(c -> String.valueOf((char) c.intValue()));

    private static int trailingBackslashes(String s) {
        int n = 0;
        while (n < s.length() && s.charAt(s.length() - 1 - n) == '\\') {
            n++;
        }
        return n;
    }

    /**
     * A command as typed, blanks at its ends and all, that the rules let run: once its ASCII blanks are
     * off, not blank, not starting with {@code #} or {@code ]}, not ending in an odd run of backslashes (the last
     * would escape the line end, or a blank the strip took).
     */
    private static final Gen<String> TYPED_COMMANDS = Gen.strings(CHAR, 1, 30).filter(c -> {
        String s = JobSpecArbitraries.stripBlanks(c);
        return !s.isBlank() && !s.startsWith("#") && !s.startsWith("]") && trailingBackslashes(s) % 2 == 0;
    });

    /** A typed line: blanks, a block (always when the command would read as one), blanks, the command, blanks. */
    private static final Gen<String[]> TYPED_LINES = (random, size) -> {
        String command = TYPED_COMMANDS.next(random, size);
        String stripped = JobSpecArbitraries.stripBlanks(command);
        String block = stripped.startsWith("[") || random.nextBoolean()
                ? Gen.elements("[]", "[vram=1G]", "[priority=2 gpus=1]").next(random, size) : "";
        String before = Gen.elements("", " ", "\t ").next(random, size);
        String after = Gen.elements("", " ", "\t", " \t ").next(random, size);
        return new String[] {before + block + command + after, stripped};
    };

    @Test
    void whatRunsIsExactlyWhatWasTyped_lessOnlyAsciiBlanksAtTheEnds_inAFileAndSubmitted() {
        Property.forAll(Gen.listOf(TYPED_LINES, 1, 8).with(Gen.elements("\n", "\r\n"), (lines, end) -> {
            List<String> all = new ArrayList<>();
            lines.forEach(l -> all.add(l[0] + end));
            lines.forEach(l -> all.add(l[1]));
            return all;
        })).tries(TRIES).check(all -> {
            int n = all.size() / 2;
            List<String> typed = all.subList(0, n);
            List<String> expected = all.subList(n, all.size());
            assertEquals(expected, JobsFileParser.parse(String.join("", typed), "jobs.txt").stream().map(JobSpec::command).toList(),
                    "as a file");
            for (int i = 0; i < n; i++) {
                assertEquals(expected.get(i), JobSpec.parse(typed.get(i)).command(), "submitted");
            }
        });
    }

    @Test
    void aCommandHoldingAControlCharacterOtherThanTabIsRefused_inAFileAndSubmitted() {
        Gen<String> lines = TYPED_LINES.with(Gen.ints(0, 30), (line, at) -> line[1].substring(0, Math.min(at, line[1].length())))
                .with(CONTROL, String::concat).with(TYPED_LINES, (head, line) -> "[] " + head + line[1]);
        Property.forAll(lines).tries(TRIES).check(line -> {
            assertThrows(JobSpecException.class, () -> JobsFileParser.parse("python ok.py\n" + line + "\n", "jobs.txt"), line);
            assertThrows(JobSpecException.class, () -> JobSpec.parse(line), line);
        });
    }

    @Test
    void anyCommandAnEarlierVersionMayHaveJournaled_isReadBackFromItsRecordedLineAsItWas() {
        // Whatever the builder takes (the parser of an earlier version gave a subset of it): controls, '#' at
        // the start, a backslash at the end; without ASCII blanks at the ends, which no recorded command has.
        Gen<String> any = Gen.strings(Gen.oneOf(CHAR, CONTROL), 1, 30)
                .map(c -> c.replace("\n", ""))
                .map(JobSpecArbitraries::stripBlanks)
                .filter(c -> !c.isBlank());
        Property.forAll(any).tries(TRIES).check(command -> {
            JobSpec recorded = JobSpec.builder(command).build();
            JobSpec back = JobSpec.parseRecorded(recorded.toLine());
            assertEquals(command, back.command());
            assertEquals(recorded, back);
        });
    }
}

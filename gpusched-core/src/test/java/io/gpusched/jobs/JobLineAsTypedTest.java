package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * A jobs-file line or a submission runs exactly as typed, or is refused with its fix: the lines a
 * shell would read otherwise than as one whole job (docs/jobs-file.md, "One line, run exactly as
 * typed"), and only new input; a recorded line is read back as it was.
 */
class JobLineAsTypedTest {
    private static final String CONTINUATION = "line ends with '\\' (a shell line continuation), but a job is one line: ";
    private static final String CONTINUATION_FIX = "; join the next line onto this one, or put the command in a script";

    private static JobSpecException refusedInFile(String text) {
        return assertThrows(JobSpecException.class, () -> JobsFileParser.parse(text, "jobs.txt"));
    }

    private static List<String> commands(String text) {
        return JobsFileParser.parse(text, "jobs.txt").stream().map(JobSpec::command).toList();
    }

    @Test
    void aLineEndingInABackslashIsRefused_notSplitIntoTwoJobs() {
        String file = "[vram=1G] sh -c 'echo \"args: $*\"' train \\\n    --lr 3e-4 --epochs 50\n";
        JobSpecException e = refusedInFile(file);
        assertEquals("jobs.txt:1: " + CONTINUATION + "'sh -c 'echo \"args: $*\"' train \\'" + CONTINUATION_FIX,
                e.getMessage());
        assertEquals(1, e.badLines(), "the continued line is a command of its own, but the file is refused");
        // The same with CRLF line ends, from bytes as a file is read, and appended to a file already taken.
        assertEquals(e.getMessage(), refusedInFile(file.replace("\n", "\r\n")).getMessage());
        assertEquals(e.getMessage(), assertThrows(JobSpecException.class,
                () -> JobsFileParser.parse(file.getBytes(StandardCharsets.UTF_8), "jobs.txt")).getMessage());
        JobsFileParser.Incremental live = new JobsFileParser.Incremental("jobs.txt");
        live.parse("echo ok\n".getBytes(StandardCharsets.UTF_8));
        JobSpecException appended = assertThrows(JobSpecException.class,
                () -> live.parse(("echo ok\n" + file).getBytes(StandardCharsets.UTF_8)));
        assertEquals("jobs.txt:2: " + CONTINUATION + "'sh -c 'echo \"args: $*\"' train \\'" + CONTINUATION_FIX,
                appended.getMessage());
        // A submitted line.
        assertEquals("<job>:1: " + CONTINUATION + "'echo a \\'" + CONTINUATION_FIX,
                assertThrows(JobSpecException.class, () -> JobSpec.parse("[] echo a \\")).getMessage());
    }

    @Test
    void aBackslashThatEscapesNoLineEndIsKept_asTheShellKeepsIt() {
        assertEquals(List.of("echo a\\\\", "python x.py # see C:\\", "echo a;# C:\\", "printf '%s\\n' x"),
                commands("echo a\\\\\npython x.py # see C:\\\n[] echo a;# C:\\\nprintf '%s\\n' x\n"));
        // Where a '#' is no comment, or a backslash in double quotes, the last backslash still escapes.
        for (String command : List.of("echo a#\\", "echo \"a\\", "echo '\\'\\", "echo \\\\\\")) {
            assertEquals("jobs.txt:1: " + CONTINUATION + "'" + command + "'" + CONTINUATION_FIX,
                    refusedInFile("[] " + command + "\n").getMessage());
        }
    }

    @Test
    void aBackslashThenBlanksAtTheEndIsRefused_notRunWithoutTheBlankItEscapes() {
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("printf '[%s]' a\\ "));
        assertEquals("<job>:1: line ends with '\\' and a blank, which a shell reads as an escaped blank (and a line"
                + " continuation with a stray blank after it looks the same): 'printf '[%s]' a\\ '; quote a blank that is"
                + " meant ('a '); for a continuation, join the next line onto this one, or put the command in a script",
                e.getMessage());
        assertEquals(1, refusedInFile("[vram=1G] python train.py \\ \t\r\n  --lr 3e-4\n").line());
        assertEquals("printf '[%s]' 'a '", JobSpec.parse("printf '[%s]' 'a ' ").command(), "a quoted blank is kept");
    }

    @Test
    void onlyAsciiBlanksAreTakenOffTheEnds_otherWhitespaceIsPartOfTheCommand() {
        assertEquals(List.of("echo x\u3000", "\u00a0echo y", "echo\tz"),
                commands(" \t[vram=1G]  echo x\u3000 \t\n\u00a0echo y \n\techo\tz \r\n"));
        assertEquals("echo x\u2003", JobSpec.parse("  echo x\u2003 \r\n").command());
        assertEquals(OptionalLong.of(1024), JobSpec.parse("\t[vram=1G]\techo x").vramMib());
        // A line of nothing but whitespace is blank, as before.
        assertEquals(List.of("echo y"), commands("\u2003 \u3000\t\necho y"));
    }

    @Test
    void aLoneCarriageReturnIsRefused_notRunInsideTheCommand() {
        JobSpecException e = refusedInFile("echo a\recho b\r");
        assertEquals("jobs.txt:1: carriage return (CR) inside line: 'echo a\\x0decho b'; a job is one line, ended by LF or"
                + " CRLF; convert CR line ends with tr '\\r' '\\n'", e.getMessage());
        assertEquals(1, refusedInFile("# jobs\recho a\recho b\r").line(), "a comment would skip every job after it");
        assertEquals(2, refusedInFile("echo ok\n[vram=1G] echo a\recho b\n").line());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("echo a\recho b"));
        // A CR before LF is the line end, as is one that ends the last line.
        assertEquals(List.of("echo a", "echo b"), commands("echo a\r\necho b\r"));
        assertEquals("echo a", JobSpec.parse("echo a\r\n").command());
    }

    @Test
    void otherControlCharactersButTabAreRefused() {
        JobSpecException e = refusedInFile("[vram=1G] printf \u001b[1m\n");
        assertEquals("jobs.txt:1: control character \\x1b in command: 'printf \\x1b[1m'; write it as an escape the"
                + " command reads, e.g. printf '\\033' for ESC; TAB is the one control character a command may hold as it is",
                e.getMessage());
        for (char c : new char[] {'\u0001', '\u0007', '\u000b', '\u000c', '\u001f'}) {
            assertThrows(JobSpecException.class, () -> JobSpec.parse("echo a" + c + "b"), "\\x" + (int) c);
        }
        assertEquals("printf 'a\tb'", JobSpec.parse("printf 'a\tb'").command());
    }

    @Test
    void aCommandThatIsOnlyACommentIsRefused() {
        JobSpecException e = refusedInFile("python a.py\n[vram=8G]   # python train.py\n");
        assertEquals("jobs.txt:2: the command is only a shell comment: '# python train.py'; put '#' at the start of the"
                + " line to skip it, or write the command before the '#'", e.getMessage());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[] #weird"));
        assertEquals(List.of("python a.py # note"), commands("# python train.py\npython a.py # note\n"));
    }

    @Test
    void aBlockWithOneBracketTooMany_isRefused_ratherThanRunningACommandCalledTheBracket() {
        JobSpecException e = refusedInFile("[vram=8G]] python train.py\n");
        assertEquals("jobs.txt:1: the command starts with ']' (one too many after the attribute block?): '] python"
                + " train.py'; remove the extra ']'", e.getMessage());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("] echo hi"));
    }

    @Test
    void aLineRecordedEarlierIsReadBackAsItWasRecorded_whateverTheRulesForNewInput() {
        for (String command : List.of("echo a\\", "printf '[%s]' a\\", "echo a\recho b", "printf \u001b[1m", "# only", "] x")) {
            JobSpec recorded = JobSpec.builder(command).vramMib(OptionalLong.of(1024)).build();
            assertThrows(JobSpecException.class, () -> JobSpec.parse(recorded.toLine()), command);
            assertEquals(recorded, JobSpec.parseRecorded(recorded.toLine()), command);
        }
        // A recorded line has no line end: a CR that ends its command is the command's.
        JobSpec endsInCr = JobSpec.builder("echo a\r").build();
        assertEquals("echo a", JobSpec.parse(endsInCr.toLine()).command(), "typed, the CR is taken for a line end");
        assertEquals(endsInCr, JobSpec.parseRecorded(endsInCr.toLine()));
    }
}

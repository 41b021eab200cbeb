package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobsFileParserTest {

    private static List<JobSpec> parse(String text) {
        return JobsFileParser.parse(text, "jobs.txt");
    }

    private static JobSpecException error(String text) {
        return assertThrows(JobSpecException.class, () -> parse(text));
    }

    @Test
    void blankLinesAndCommentsAreSkippedAndLineNumbersKept() {
        List<JobSpec> jobs = parse("# header\n\n   \npython a.py\n  # indented comment\npython b.py\n");
        assertEquals(2, jobs.size());
        assertEquals(4, jobs.get(0).line());
        assertEquals("python a.py", jobs.get(0).command());
        assertEquals(6, jobs.get(1).line());
    }

    @Test
    void lineWithoutBlockIsUndeclaredSingleGpuNoTimeout() {
        JobSpec j = JobSpec.parse("python preprocess.py");
        assertEquals(OptionalLong.empty(), j.vramMib());
        assertEquals(1, j.gpus());
        assertEquals(Optional.empty(), j.timeout());
        assertEquals(0, j.retries());
        assertFalse(j.cancel());
    }

    @Test
    void blockAttributesAreParsedWithCaseInsensitiveKeys() {
        JobSpec j = JobSpec.parse("[VRAM=30G Gpus=2 TIMEOUT=2h Retries=3 CANCEL] torchrun x.py");
        assertEquals(OptionalLong.of(30 * 1024), j.vramMib());
        assertEquals(2, j.gpus());
        assertEquals(Optional.of(Duration.ofHours(2)), j.timeout());
        assertEquals(3, j.retries());
        assertTrue(j.cancel());
        assertEquals("torchrun x.py", j.command());
    }

    @Test
    void vramAcceptsMibAndSizeSuffixesInAnyCase() {
        assertEquals(18000, vram("18000"));
        assertEquals(22528, vram("22G"));
        assertEquals(22528, vram("22gb"));
        assertEquals(22528, vram("22GiB"));
        assertEquals(512, vram("512M"));
        assertEquals(512, vram("512mib"));
        assertEquals(512, vram("512MB"));
        assertEquals(1536, vram("1.5G"));
        assertEquals(19, vram("18.2"));
    }

    private static long vram(String v) {
        return JobSpec.parse("[vram=" + v + "] x").vramMib().getAsLong();
    }

    @Test
    void timeoutAcceptsSecondsAndUnitsWithDecimals() {
        assertEquals(Duration.ofSeconds(90), timeout("90"));
        assertEquals(Duration.ofSeconds(90), timeout("90s"));
        assertEquals(Duration.ofMinutes(15), timeout("15m"));
        assertEquals(Duration.ofMinutes(90), timeout("1.5h"));
        assertEquals(Duration.ofDays(1), timeout("1D"));
        assertEquals(Duration.ofMillis(250), timeout("0.25s"));
    }

    private static Duration timeout(String v) {
        return JobSpec.parse("[timeout=" + v + "] x").timeout().orElseThrow();
    }

    @Test
    void bracketsLaterInTheCommandBelongToTheCommand() {
        JobSpec j = JobSpec.parse("[vram=1G] python x.py --list [1,2] [a=b]");
        assertEquals("python x.py --list [1,2] [a=b]", j.command());
        assertEquals("echo [not a block]", JobSpec.parse("echo [not a block]").command());
    }

    @Test
    void emptyBlockLetsACommandStartWithABracket() {
        assertEquals("[ -f done ] || ./run.sh", JobSpec.parse("[] [ -f done ] || ./run.sh").command());
    }

    @Test
    void crlfLineEndsAndByteOrderMarkAreAccepted() {
        List<JobSpec> jobs = parse("\uFEFF[vram=1G] a\r\nb\r\n");
        assertEquals("a", jobs.get(0).command());
        assertEquals("b", jobs.get(1).command());
    }

    @Test
    void unterminatedBlockIsAnErrorNeverACommand() {
        JobSpecException e = error("ok\n[vram=8G python train.py\n");
        assertEquals(2, e.line());
        assertEquals("jobs.txt", e.source());
        assertTrue(e.getMessage().startsWith("jobs.txt:2: unterminated [ block"), e.getMessage());
    }

    @Test
    void everyBadLineIsReportedInFileOrder_theMessageStaysTheFirstOnes() {
        JobSpecException e = error("ok\n[vram=8G python a.py\nok\n[gpus=0] b\n[vram=1G oops] c\n");
        assertEquals("jobs.txt:2: unterminated [ block in '[vram=8G python a.py'; close the attribute block with ']' before the command",
                e.getMessage());
        assertEquals(List.of(2, 4, 5), e.errors().stream().map(JobSpecException::line).toList());
        assertEquals(e, e.errors().get(0));
        assertTrue(e.errors().get(1).getMessage().startsWith("jobs.txt:4: bad gpus 'gpus=0'"), e.errors().get(1).getMessage());
        assertTrue(e.errors().get(2).getMessage().startsWith("jobs.txt:5: token without '=' in attribute block: 'oops'"),
                e.errors().get(2).getMessage());
        assertEquals(3, e.badLines());
    }

    @Test
    void atMostTwentyBadLinesAreCarried_allAreCounted() {
        JobSpecException e = error("[x=1] a\n".repeat(25) + "ok\n");
        assertEquals(JobsFileParser.MAX_REPORTED_ERRORS, e.errors().size());
        assertEquals(20, e.errors().get(19).line());
        assertEquals(25, e.badLines());
    }

    @Test
    void aSingleJobLineHasOnlyItsOwnError() {
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[x=1] a"));
        assertEquals(List.of(e), e.errors());
        assertEquals(1, e.badLines());
    }

    @Test
    void emptyCommandAfterBlockIsAnError() {
        JobSpecException e = error("[vram=8G]   \n");
        assertTrue(e.getMessage().contains("no command after the attribute block"), e.getMessage());
    }

    @Test
    void unknownKeyListsTheKnownOnes() {
        JobSpecException e = error("[vrma=8G] x");
        assertEquals("vrma=8G", e.token());
        assertTrue(e.getMessage().contains("known keys: vram, gpus, timeout, retries, cancel"), e.getMessage());
    }

    @Test
    void misspeltKeyGetsTheClosestKnownKeySuggested() {
        assertEquals("jobs.txt:3: unknown key in attribute block: 'vrma=8G' — did you mean 'vram'?; "
                + "known keys: vram, gpus, timeout, retries, cancel", error("ok\n\n[vrma=8G] x\n").getMessage());
        assertTrue(error("[time=2h] x").getMessage().contains("'time=2h' — did you mean 'timeout'?; known keys:"),
                "a prefix counts as close");
    }

    @Test
    void unknownKeyFarFromEveryKnownOneGetsNoSuggestion() {
        assertEquals("jobs.txt:1: unknown key in attribute block: 'colour=red'; known keys: vram, gpus, timeout, retries, cancel",
                error("[colour=red] x").getMessage());
    }

    @Test
    void misspeltBareCancelGetsCancelSuggested() {
        assertTrue(error("[cancle] x").getMessage().startsWith(
                "jobs.txt:1: token without '=' in attribute block: 'cancle' — did you mean 'cancel'?; write key=value or the bare word cancel;"),
                error("[cancle] x").getMessage());
        assertFalse(error("[vram 8G] x").getMessage().contains("did you mean"), "a key without '=' is told otherwise");
    }

    @Test
    void commasBetweenAttributesAreToldToBeSpacesWithTheBlockRewritten() {
        assertEquals("jobs.txt:1: attributes are separated by spaces, not commas: write [vram=8G gpus=2]",
                error("[vram=8G,gpus=2] x").getMessage());
        assertEquals("vram=8G,gpus=2", error("[vram=8G,gpus=2] x").token());
        assertEquals("jobs.txt:2: attributes are separated by spaces, not commas: write [timeout=1h vram=8G gpus=2 cancel]",
                error("ok\n[timeout=1h vram=8G, gpus=2 ,cancel] x").getMessage());
        assertTrue(error("[cancel,vram=8G] x").getMessage().endsWith("not commas: write [cancel vram=8G]"),
                error("[cancel,vram=8G] x").getMessage());
    }

    @Test
    void aCommaInsideAValueIsNotTakenForASeparator() {
        assertTrue(error("[vram=8,5G] x").getMessage().startsWith("jobs.txt:1: bad vram 'vram=8,5G'"),
                error("[vram=8,5G] x").getMessage());
        assertTrue(error("[gpus=2,3] x").getMessage().startsWith("jobs.txt:1: bad gpus 'gpus=2,3'"),
                error("[gpus=2,3] x").getMessage());
        assertTrue(error("[vram=8G,gpus=2 colour=red] x").getMessage().startsWith("jobs.txt:1: attributes are separated"),
                "the token with the commas is the one that fails first");
    }

    @Test
    void badValuesAreErrorsNamingTheToken() {
        for (String bad : List.of("vram=0", "vram=-1G", "vram=abc", "vram=8T", "vram=", "timeout=0", "timeout=5w",
                "timeout=-3", "retries=-1", "retries=1.5", "gpus=0", "gpus=two", "gpus=99999999999",
                "vram=99999999999999999999999999999999999G", "timeout=1e309", "cancel=yes")) {
            JobSpecException e = error("[" + bad + "] x");
            assertEquals(bad, e.token(), bad);
            assertEquals(1, e.line());
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        }
    }

    @Test
    void tokenWithoutEqualsOtherThanCancelIsAnError() {
        JobSpecException e = error("[vram 8G] x");
        assertEquals("vram", e.token());
        assertTrue(e.getMessage().contains("key=value"), e.getMessage());
    }

    @Test
    void duplicateKeyIsAnError() {
        assertEquals("vram=2G", error("[vram=1G vram=2G] x").token());
    }

    @Test
    void tinyPositiveTimeoutStaysPositive() {
        assertEquals(Duration.ofNanos(100), timeout("0.0000001s"));
        assertEquals(Duration.ofNanos(1), timeout("0.0000000000000000000000000000001"));
    }

    @Test
    void keyOfFirstPythonTrainLineMatchesTheOriginalTool() {
        assertEquals("e855ec027199#0", parse("python train.py\n").get(0).key());
    }

    @Test
    void identicalCommandsAreNumberedByOccurrence() {
        List<JobSpec> jobs = parse("python train.py\n[vram=2G] python train.py\npython other.py\npython train.py\n");
        assertEquals("e855ec027199#0", jobs.get(0).key());
        assertEquals("e855ec027199#1", jobs.get(1).key());
        assertEquals("e855ec027199#2", jobs.get(3).key());
    }

    @Test
    void addingCancelOrChangingVramKeepsTheKey() {
        String before = JobSpec.parse("[vram=8G] python eval.py").key();
        assertEquals(before, JobSpec.parse("[vram=12G cancel] python eval.py").key());
        assertEquals(before, JobSpec.parse("python eval.py").key());
        assertFalse(before.equals(JobSpec.parse("python eval.py --seed 2").key()));
    }

    @Test
    void toLineParsesBackToTheSameSpec() {
        JobSpec j = JobSpec.parse("[vram=1.5G gpus=2 timeout=0.25s retries=2 cancel] python x.py [3]");
        assertEquals(j, JobSpec.parse(j.toLine()));
        JobSpec bracketed = JobSpec.parse("[] [ -f x ] && y");
        assertEquals(bracketed, JobSpec.parse(bracketed.toLine()));
    }

    @Test
    void fileWithInvalidUtf8NamesTheLine(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("jobs.txt");
        Files.write(f, new byte[] {'o', 'k', '\n', 'e', 'c', 'h', 'o', ' ', (byte) 0xC3, (byte) 0x28, '\n'});
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobsFileParser.parse(f));
        assertEquals(2, e.line());
        assertTrue(e.getMessage().startsWith("jobs.txt:2:"), e.getMessage());
    }

    @Test
    void nulByteIsAnError() {
        assertEquals(1, error("echo a\0b").line());
    }
}

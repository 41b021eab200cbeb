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
    private static final String KNOWN_KEYS =
            "known keys: vram, gpus, timeout, retries, cancel, priority, gpu-ids, preemptible, on-timeout, name, after, after-ok, after-any, conda, setup, tty, comment, unique";

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
        assertTrue(e.getMessage().contains(KNOWN_KEYS), e.getMessage());
    }

    @Test
    void misspeltKeyGetsTheClosestKnownKeySuggested() {
        assertEquals("jobs.txt:3: unknown key in attribute block: 'vrma=8G' — did you mean 'vram'?; "
                + KNOWN_KEYS, error("ok\n\n[vrma=8G] x\n").getMessage());
        assertTrue(error("[time=2h] x").getMessage().contains("'time=2h' — did you mean 'timeout'?; known keys:"),
                "a prefix counts as close");
    }

    @Test
    void unknownKeyFarFromEveryKnownOneGetsNoSuggestion() {
        assertEquals("jobs.txt:1: unknown key in attribute block: 'colour=red'; " + KNOWN_KEYS,
                error("[colour=red] x").getMessage());
    }

    @Test
    void misspeltBareCancelGetsCancelSuggested() {
        assertTrue(error("[cancle] x").getMessage().startsWith(
                "jobs.txt:1: token without '=' in attribute block: 'cancle' — did you mean 'cancel'?; write key=value or a bare word (cancel, preemptible, tty, unique);"),
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

    // ---- scheduling attributes (#13) -----------------------------------------------------------

    private static String message(String text) {
        return error(text).getMessage();
    }

    private static Scheduling scheduling(String line) {
        return JobSpec.parse(line).scheduling();
    }

    @Test
    void aLineWithoutSchedulingAttributesGetsTheDefault() {
        assertEquals(Scheduling.DEFAULT, scheduling("[vram=1G gpus=2 timeout=1h retries=1 cancel] x"));
    }

    @Test
    void priorityMayBeNegative() {
        assertEquals(-3, scheduling("[priority=-3] x").priority());
        assertEquals(12, scheduling("[priority=012] x").priority());
        assertEquals(0, scheduling("[priority=-0] x").priority());
        assertEquals(-Scheduling.MAX_PRIORITY, scheduling("[priority=-1000000] x").priority());
        assertEquals(Scheduling.MAX_PRIORITY, scheduling("[priority=1000000] x").priority());
    }

    @Test
    void aPriorityOutOfRangeOrNotAWholeNumberIsAnError() {
        for (String bad : List.of("1000001", "-1000001", "1.5", "+3", "--3", "-", "", "high", "99999999999")) {
            assertEquals("jobs.txt:1: bad priority 'priority=" + bad + "'; give a whole number from -1000000 to 1000000;"
                    + " higher runs first, 0 by default", message("[priority=" + bad + "] x"), bad);
        }
    }

    @Test
    void gpuIdsRangesExpandAndUuidsAreKeptAsWritten() {
        assertEquals(List.of("2", "4", "5", "6", "GPU-8f2C-aa01", "MIG-0ab1-ff", "0"),
                scheduling("[gpu-ids=02,4-6,GPU-8f2C-aa01,MIG-0ab1-ff,0] x").gpuIds());
        assertEquals(List.of("3"), scheduling("[gpu-ids=3-3] x").gpuIds(), "a range of one");
        assertEquals(List.of("GPU-ab", "GPU-AB"), scheduling("[gpu-ids=GPU-ab,GPU-AB] x").gpuIds(),
                "UUIDs compare case-sensitively, as written");
        assertTrue(scheduling("[gpu-ids=0] x").pinned());
        assertFalse(scheduling("x").pinned());
    }

    @Test
    void aRepeatedGpuInGpuIdsIsAnError() {
        assertEquals("jobs.txt:1: gpu-ids lists GPU 2 twice: 'gpu-ids=0-2,02'; list each GPU once", message("[gpu-ids=0-2,02] x"));
        assertEquals("jobs.txt:1: gpu-ids lists GPU GPU-ab twice: 'gpu-ids=GPU-ab,1,GPU-ab'; list each GPU once",
                message("[gpu-ids=GPU-ab,1,GPU-ab] x"));
    }

    @Test
    void aBackwardsRangeInGpuIdsIsAnError() {
        assertEquals("jobs.txt:1: gpu-ids range 3-2 runs backwards in 'gpu-ids=0,3-2'; write the lower index first: 2-3",
                message("[gpu-ids=0,3-2] x"));
    }

    @Test
    void gpuIdsHoldAtMost1024GpusAndAHugeRangeIsRefusedBeforeItIsExpanded() {
        assertEquals(JobsFileParser.MAX_GPUS, scheduling("[gpu-ids=0-1023] x").gpuIds().size());
        String tooMany = "jobs.txt:1: gpu-ids lists more than 1024 GPUs: 'gpu-ids=%s'; pin at most 1024 GPUs";
        assertEquals(String.format(tooMany, "0-1024"), message("[gpu-ids=0-1024] x"));
        assertEquals(String.format(tooMany, "5,0-1023"), message("[gpu-ids=5,0-1023] x"));
        long allocated = AllocationMeter.allocatedBy(() -> assertEquals(String.format(tooMany, "0-2147483647"),
                message("[gpu-ids=0-2147483647] x")));
        assertTrue(allocated < 1 << 20, "a huge range costs no allocation, but took " + allocated + " bytes");
    }

    @Test
    void aMalformedGpuIdIsAnErrorNamingTheEntry() {
        String fix = "give GPU indices (0), index ranges (2-3) and device UUIDs (GPU-... or MIG-...), separated by commas";
        assertEquals("jobs.txt:1: bad gpu-ids entry 'gpu-1' in 'gpu-ids=0,gpu-1'; " + fix, message("[gpu-ids=0,gpu-1] x"));
        assertEquals("jobs.txt:1: bad gpu-ids entry '' in 'gpu-ids=0,,1'; " + fix, message("[gpu-ids=0,,1] x"));
        assertEquals("jobs.txt:1: bad gpu-ids entry '' in 'gpu-ids='; " + fix, message("[gpu-ids=] x"));
        for (String bad : List.of("-1", "1-", "1-2-3", "GPU-", "GPU-xyz", "2147483648", "1.5", "0,")) {
            assertTrue(message("[gpu-ids=" + bad + "] x").startsWith("jobs.txt:1: bad gpu-ids entry '"), bad);
        }
    }

    @Test
    void gpusBeyondThePinnedGpusIsAnError() {
        assertEquals("jobs.txt:1: gpus=4 but gpu-ids lists 2 GPUs; ask for at most 2 or list more GPUs in gpu-ids",
                message("[gpus=4 gpu-ids=0,3] x"));
        assertEquals("jobs.txt:1: gpus=2 but gpu-ids lists 1 GPU; ask for at most 1 or list more GPUs in gpu-ids",
                message("[gpu-ids=GPU-ab gpus=2] x"));
        assertEquals(2, JobSpec.parse("[gpus=2 gpu-ids=0-1] x").gpus());
        // Pins without gpus= are all the job's GPUs (as mgpu's --gpu-ids); gpus=1 picks one of them.
        assertEquals(4, JobSpec.parse("[gpu-ids=0-3] x").gpus(), "every pinned GPU");
        assertEquals(1, JobSpec.parse("[gpus=1 gpu-ids=0-3] x").gpus(), "one of the pinned GPUs");
    }

    @Test
    void preemptibleIsABareWordInAnyCase() {
        assertTrue(scheduling("[PreEmptible] x").preemptible());
        assertFalse(scheduling("[cancel] x").preemptible());
        assertEquals("jobs.txt:1: preemptible takes no value: 'preemptible=yes'; write the bare word preemptible",
                message("[preemptible=yes] x"));
        assertEquals("jobs.txt:1: duplicate key preemptible in attribute block: 'PREEMPTIBLE'; give each key once",
                message("[preemptible PREEMPTIBLE] x"));
        assertTrue(message("[preemptable] x").startsWith(
                "jobs.txt:1: token without '=' in attribute block: 'preemptable' — did you mean 'preemptible'?;"));
    }

    @Test
    void onTimeoutIsRequeueOrFailInAnyCase() {
        assertEquals(Scheduling.OnTimeout.REQUEUE, scheduling("[timeout=1h on-timeout=ReQueue] x").onTimeout());
        assertEquals(Scheduling.OnTimeout.FAIL, scheduling("[on-timeout=FAIL] x").onTimeout());
        assertEquals("jobs.txt:1: bad on-timeout 'on-timeout=retry'; write on-timeout=requeue (a timeout queues the job again,"
                + " at the end) or on-timeout=fail (the default)", message("[timeout=1h on-timeout=retry] x"));
    }

    @Test
    void onTimeoutRequeueWithoutATimeoutIsAnError() {
        assertEquals("jobs.txt:2: on-timeout=requeue needs a timeout on the same line; add one, e.g. [timeout=2h on-timeout=requeue]",
                message("[timeout=1h] a\n[on-timeout=requeue] b\n"));
        assertEquals("on-timeout=requeue", error("[on-timeout=requeue] b").token());
        assertEquals("jobs.txt:1: On-Timeout=REQUEUE needs a timeout on the same line; add one, e.g. [timeout=2h on-timeout=requeue]",
                message("[On-Timeout=REQUEUE] b"), "the token as written");
    }

    @Test
    void aNameIsKeptAsWrittenAndMustMatchTheNamePattern() {
        assertEquals(Optional.of("Prep_1.v-2"), scheduling("[NAME=Prep_1.v-2] x").name());
        String fix = "give 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit (not cancel or preemptible)";
        for (String bad : List.of("-x", "", "a/b", "a=b", "x".repeat(65), "cancel", "Preemptible", "ü")) {
            assertEquals("jobs.txt:1: bad name 'name=" + bad + "'; " + fix, message("[name=" + bad + "] x"), bad);
        }
    }

    @Test
    void afterAndAfterOkNeedSuccess_afterAnyDoesNot_thoseThatNeedSuccessComeFirst() {
        assertEquals(List.of(new Scheduling.Dependency("a", true), new Scheduling.Dependency("b", true),
                        new Scheduling.Dependency("d", true), new Scheduling.Dependency("c", false)),
                scheduling("[after-any=c after=a,b AFTER-OK=d] x").after());
    }

    @Test
    void aBadNameInAfterIsAnError() {
        assertEquals("jobs.txt:1: bad after-any 'after-any=a,,b'; give job names separated by commas, like after-any=prep,train;"
                + " a name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit (not cancel or preemptible)",
                message("[after-any=a,,b] x"));
    }

    @Test
    void aNameListedTwiceAcrossTheAfterKeysIsAnError() {
        String twice = "jobs.txt:1: job a is listed twice in the after keys: '%s'; list each job once: in after (it must end ok)"
                + " or in after-any (it may end either way)";
        assertEquals(String.format(twice, "after-any=b,a"), message("[after=a after-any=b,a] x"));
        assertEquals(String.format(twice, "after=a,a"), message("[after=a,a] x"));
        assertEquals(String.format(twice, "after-ok=a"), message("[after=a after-ok=a] x"));
    }

    @Test
    void aJobWaitingForItselfIsAnError_evenOnALineParsedAlone() {
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[name=a after=b after-any=a] x"));
        assertEquals("<job>:1: after-any=a makes a cycle: a -> a; remove one of these dependencies", e.getMessage());
        assertEquals("after-any=a", e.token());
        assertEquals("jobs.txt:1: after=a makes a cycle: a -> a; remove one of these dependencies", message("[after=a name=a] x"));
    }

    @Test
    void aLineParsedAloneMayWaitForAnyName() {
        assertEquals(List.of(new Scheduling.Dependency("elsewhere", true)), scheduling("[after=elsewhere] x").after());
    }

    @Test
    void theNewKeysAreCaseInsensitiveAndEachIsGivenOnce() {
        Scheduling s = scheduling("[PRIORITY=1 Gpu-Ids=0 On-Timeout=fail Name=p AFTER-ANY=q] x");
        assertEquals(new Scheduling(1, List.of("0"), false, Scheduling.OnTimeout.FAIL, Optional.of("p"),
                List.of(new Scheduling.Dependency("q", false))), s);
        assertEquals("jobs.txt:1: duplicate key name in attribute block: 'NAME=b'; give each key once", message("[name=a NAME=b] x"));
        assertEquals("jobs.txt:1: duplicate key gpu-ids in attribute block: 'gpu-ids=1'; give each key once",
                message("[gpu-ids=0 gpu-ids=1] x"));
    }

    @Test
    void misspeltNewKeysGetTheClosestKeySuggested() {
        assertTrue(message("[priorty=1] x").contains("'priorty=1' — did you mean 'priority'?; known keys:"));
        assertTrue(message("[gpu-id=0] x").contains("'gpu-id=0' — did you mean 'gpu-ids'?; known keys:"));
        assertTrue(message("[gpuids=0] x").contains("'gpuids=0' — did you mean 'gpu-ids'?; known keys:"));
        assertTrue(message("[ontimeout=fail] x").contains("'ontimeout=fail' — did you mean 'on-timeout'?; known keys:"));
        assertTrue(message("[aftr=a] x").contains("'aftr=a' — did you mean 'after'?; known keys:"));
        assertTrue(message("[after_any=a] x").contains("'after_any=a' — did you mean 'after-any'?; known keys:"));
        assertTrue(message("[nme=a] x").contains("'nme=a' — did you mean 'name'?; known keys:"));
    }

    @Test
    void commasInsideListValuesArePartOfTheValue() {
        JobSpec j = JobSpec.parse("[gpu-ids=0,2-3 after=a,b after-any=c,d] x");
        assertEquals(List.of("0", "2", "3"), j.scheduling().gpuIds());
        assertEquals(List.of("a", "b", "c", "d"), j.scheduling().after().stream().map(Scheduling.Dependency::name).toList());
    }

    @Test
    void aCommaBeforeAKeyOrABareWordAfterAListValueIsTakenForASeparator() {
        String spaces = "jobs.txt:1: attributes are separated by spaces, not commas: write ";
        assertEquals(spaces + "[after=prep preemptible]", message("[after=prep,preemptible] x"));
        assertEquals(spaces + "[after=prep,train cancel]", message("[after=prep,train,cancel] x"));
        assertEquals(spaces + "[gpu-ids=0,2-3 gpus=2]", message("[gpu-ids=0,2-3,gpus=2] x"));
        assertEquals(spaces + "[vram=8G gpu-ids=0,1 name=a]", message("[vram=8G,gpu-ids=0,1,name=a] x"));
        assertEquals(spaces + "[preemptible after=a,b]", message("[preemptible,after=a,b] x"));
        assertEquals(spaces + "[vram=8G gpus=2]", message("[vram=8G,gpus=2] x"), "as before");
    }

    // ---- file-level checks -----------------------------------------------------------------------

    @Test
    void aDuplicateNameNamesTheFirstLine() {
        JobSpecException e = error("ok\n\n[name=prep] a\n[name=other] b\n[priority=1 name=prep] c\n[name=prep] d\n");
        assertEquals("jobs.txt:5: name=prep is already the name of line 3; give each job its own name", e.getMessage());
        assertEquals("name=prep", e.token());
        assertEquals(List.of("jobs.txt:5: name=prep is already the name of line 3; give each job its own name",
                "jobs.txt:6: name=prep is already the name of line 3; give each job its own name"),
                e.errors().stream().map(JobSpecException::getMessage).toList());
        assertEquals(2, e.badLines());
    }

    @Test
    void namesAreCaseSensitive() {
        assertEquals(2, parse("[name=prep] a\n[name=Prep] b\n").size());
    }

    @Test
    void afterAnUnknownNameIsAnErrorWithDidYouMean() {
        assertEquals("jobs.txt:2: after=prpe names no job in this file — did you mean 'prep'?; add [name=prpe] to the job it means,"
                + " or fix the name", message("[name=prep] a\n[after=prpe] b\n"));
        assertEquals("jobs.txt:1: after-any=Prep names no job in this file — did you mean 'prep'?; add [name=Prep] to the job it"
                + " means, or fix the name", message("[after-any=Prep] b\n[name=prep] a\n"), "a name that differs in case only");
        assertEquals("jobs.txt:2: after-ok=zzz names no job in this file; add [name=zzz] to the job it means, or fix the name",
                message("[name=prep] a\n[after=prep after-ok=zzz] b\n"), "no close name, no suggestion; the first unknown one");
        assertEquals("after-ok=zzz", error("[name=prep] a\n[after=prep after-ok=zzz] b\n").token());
    }

    @Test
    void afterMayNameALaterLine() {
        List<JobSpec> jobs = parse("[after=prep] train\n[name=prep] prep\n");
        assertEquals(List.of(new Scheduling.Dependency("prep", true)), jobs.get(0).scheduling().after());
    }

    @Test
    void aCancelledLineStillGivesItsName() {
        assertEquals(2, parse("[name=prep cancel] a\n[after=prep] b\n").size());
    }

    @Test
    void aBadLineStillGivesItsName() {
        JobSpecException e = error("[name=prep vram=0] a\n[after=prep] b\n[NAME=other gpus=0] c\n[after-any=other] d\n");
        assertEquals(List.of(1, 3), e.errors().stream().map(JobSpecException::line).toList(), "its dependents are not told it is missing");
        assertEquals(List.of("jobs.txt:2: name=prep is already the name of line 1; give each job its own name"),
                error("[name=prep after=prep] a\n[name=prep] b\n").errors().stream().skip(1).map(JobSpecException::getMessage).toList(),
                "a later line giving it too is told so");
    }

    @Test
    void aCycleIsOneErrorNamingIt() {
        JobSpecException e = error("python ok.py\n[name=prep after=train] a\n[name=train after=prep] b\n[after=train] c\n");
        assertEquals("jobs.txt:2: after=train makes a cycle: prep -> train -> prep; remove one of these dependencies", e.getMessage());
        assertEquals("after=train", e.token());
        assertEquals(1, e.badLines());
        assertEquals(List.of(e), e.errors());
    }

    @Test
    void aCycleIsNamedInOrderFromItsFirstLine_theShortestThroughIt() {
        assertEquals("jobs.txt:1: after-any=b makes a cycle: a -> b -> c -> a; remove one of these dependencies",
                message("[name=a after=x after-any=b] 1\n[name=b after=c] 2\n[name=c after=a,b] 3\n[name=x] 4\n"));
        // From a, both a -> b -> a and a -> c -> d -> a close a cycle; one error names the shortest.
        JobSpecException e = error("[name=a after=c,b] 1\n[name=b after=a] 2\n[name=c after=d] 3\n[name=d after=a] 4\n");
        assertEquals("jobs.txt:1: after=b makes a cycle: a -> b -> a; remove one of these dependencies", e.getMessage());
        assertEquals(1, e.badLines());
    }

    @Test
    void twoSeparateCyclesAreTwoErrors() {
        JobSpecException e = error("[name=a after=b] 1\n[name=c after=d] 2\n[name=b after=a] 3\n[name=d after=c] 4\n");
        assertEquals(List.of("jobs.txt:1: after=b makes a cycle: a -> b -> a; remove one of these dependencies",
                "jobs.txt:2: after=d makes a cycle: c -> d -> c; remove one of these dependencies"),
                e.errors().stream().map(JobSpecException::getMessage).toList());
    }

    @Test
    void aLongCycleIsShortenedInTheMessage() {
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            file.append("[name=j").append(i).append(" after=j").append((i + 1) % 30).append("] x\n");
        }
        assertEquals("jobs.txt:1: after=j1 makes a cycle: j0 -> j1 -> j2 -> j3 -> j4 -> j5 -> j6 -> j7 -> ... -> j29 -> j0 (30 jobs);"
                + " remove one of these dependencies", message(file.toString()));
    }

    @Test
    void aChainOfAHundredThousandDependenciesIsCheckedWithoutOverflowingTheStack() {
        StringBuilder file = new StringBuilder();
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            file.append("[name=j").append(i).append(i + 1 < n ? " after=j" + (i + 1) : "").append("] x\n");
        }
        assertEquals(n, parse(file.toString()).size());
        file.append("[name=last after=last2] x\n[name=last2 after=j0] x\n");
        String withCycle = file.toString().replace("[name=j" + (n - 1) + "]", "[name=j" + (n - 1) + " after=last]");
        assertTrue(message(withCycle).startsWith("jobs.txt:1: after=j1 makes a cycle: j0 -> j1 -> "), "a cycle through all");
    }

    @Test
    void fileLevelErrorsJoinTheSyntaxErrorsInLineOrder() {
        JobSpecException e = error("[vram=0] a\n[name=p] b\n[name=p] c\n[x=1] d\n[after=q] e\n[name=y after=y] f\n");
        assertEquals(List.of(1, 3, 4, 5, 6), e.errors().stream().map(JobSpecException::line).toList());
        assertEquals(5, e.badLines());
        assertTrue(e.getMessage().startsWith("jobs.txt:1: bad vram"), e.getMessage());
    }

    @Test
    void atMostTwentyBadLinesAreCarriedWhateverTheirKind_allAreCounted() {
        JobSpecException e = error("[name=a] x\n" + "[x=1] a\n[after=zz] b\n".repeat(15));
        assertEquals(JobsFileParser.MAX_REPORTED_ERRORS, e.errors().size());
        assertEquals(21, e.errors().get(19).line());
        assertEquals(30, e.badLines());
    }

    @Test
    void everyEntryPointMakesTheFileLevelChecks(@TempDir Path dir) throws IOException {
        String text = "[name=prep] a\n[name=prep] b\n";
        String expected = "jobs.txt:2: name=prep is already the name of line 1; give each job its own name";
        Path f = dir.resolve("jobs.txt");
        Files.writeString(f, text);
        assertEquals(expected, assertThrows(JobSpecException.class, () -> JobsFileParser.parse(f)).getMessage());
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(expected, assertThrows(JobSpecException.class, () -> JobsFileParser.parse(bytes, "jobs.txt")).getMessage());
        assertEquals(expected, message(text));
        assertEquals(expected, assertThrows(JobSpecException.class,
                () -> new JobsFileParser.Incremental("jobs.txt").parse(bytes)).getMessage());
    }

    @Test
    void theIncrementalParserChecksAppendedLinesAgainstTheWholeFile() {
        JobsFileParser.Incremental p = new JobsFileParser.Incremental("jobs.txt");
        String base = "[name=prep] a\n[name=train after=prep] b\n";
        assertEquals(2, p.parse(utf8(base)).size());
        assertEquals("jobs.txt:3: name=prep is already the name of line 1; give each job its own name",
                assertThrows(JobSpecException.class, () -> p.parse(utf8(base + "[name=prep] c\n"))).getMessage());
        assertEquals("jobs.txt:3: after=tran names no job in this file — did you mean 'train'?; add [name=tran] to the job it means,"
                + " or fix the name", assertThrows(JobSpecException.class, () -> p.parse(utf8(base + "[after=tran] c\n"))).getMessage());
        assertEquals("jobs.txt:3: after=y makes a cycle: x -> y -> x; remove one of these dependencies", assertThrows(
                JobSpecException.class, () -> p.parse(utf8(base + "[name=x after=y,prep] c\n[name=y after=x] d\n"))).getMessage());
        String grown = base + "[name=eval after=train] c\n";
        assertEquals(3, p.parse(utf8(grown)).size());
        assertEquals("jobs.txt:4: name=eval is already the name of line 3; give each job its own name",
                assertThrows(JobSpecException.class, () -> p.parse(utf8(grown + "[name=eval] d\n"))).getMessage(),
                "the names of the last append are known to the next");
        assertEquals(2, p.parse(utf8("[name=eval] a\n[after=eval] b\n")).size(), "a rewrite starts over");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    // ---- toLine and keys -------------------------------------------------------------------------

    @Test
    void toLineWritesEverySchedulingAttributeBack() {
        JobSpec j = JobSpec.parse("[after-any=z NAME=train gpu-ids=7,0-3,GPU-8f2c,9 preemptible priority=-3 on-timeout=requeue"
                + " timeout=2h after=prep,x] python train.py");
        assertEquals("[timeout=7200s priority=-3 gpu-ids=7,0-3,GPU-8f2c,9 preemptible on-timeout=requeue name=train after=prep,x"
                + " after-any=z] python train.py", j.toLine());
        assertEquals(j, JobSpec.parse(j.toLine()));
        JobSpec pairs = JobSpec.parse("[gpu-ids=0,1,3,4,5,6 after-any=a] x");
        assertEquals("[gpu-ids=0,1,3-6 after-any=a] x", pairs.toLine());
        assertEquals(pairs, JobSpec.parse(pairs.toLine()));
    }

    @Test
    void schedulingAttributesKeepTheKey() {
        String key = JobSpec.parse("python eval.py").key();
        assertEquals(key, JobSpec.parse("[priority=5 gpu-ids=1 preemptible name=e after=p] python eval.py").key());
    }

    @Test
    void ttyIsABareWord_keptByToLine_notPartOfTheKey_andTakesNoValue() {
        JobSpec spec = JobSpec.parse("[vram=2G tty] python train.py");
        assertTrue(error("[vram=2G,tty] x").getMessage().contains("write [vram=2G tty]"), error("[vram=2G,tty] x").getMessage());
        assertTrue(spec.environment().tty());
        assertFalse(spec.environment().isDefault());
        assertEquals("[vram=2048 tty] python train.py", spec.toLine());
        assertTrue(JobSpec.parse(spec.toLine()).environment().tty());
        assertEquals(JobSpec.parse("python train.py").key(), spec.key());
        assertFalse(JobSpec.parse("[conda=torch] x").environment().tty());
        assertEquals("jobs.txt:1: tty takes no value: 'tty=1'; write the bare word tty", error("[tty=1] x").getMessage());
        assertEquals("jobs.txt:1: duplicate key tty in attribute block: 'TTY'; give each key once", error("[tty TTY] x").getMessage());
        assertTrue(error("[name=tty] x").getMessage().startsWith("jobs.txt:1: bad name"), error("[name=tty] x").getMessage());
    }
}

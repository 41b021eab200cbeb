package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.Scheduling;
import io.gpusched.jobs.Units;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Named cases from docs/jobs-file.md and DESIGN §4, and the hostile values the properties are built around. */
class JobsFileParserExamplesTest {

    @Test
    void keyOfPythonTrainPyIsE855ec027199_0() {
        // Compatible with the original tool's journals: sha1("python train.py") starts e855ec027199.
        assertEquals("e855ec027199#0", JobSpec.parse("python train.py").key());
        assertEquals("e855ec027199#0", JobSpec.parse("[vram=18G gpus=2 cancel]   python train.py  ").key());
    }

    @Test
    void readmeJobsFileParsesToItsSixJobs() {
        String readme = """
                # no declaration -> runs only on a fully idle GPU, alone
                python preprocess.py

                [vram=18000] python train.py --config a.yaml
                [vram=22G] bash run_eval.sh
                [vram=30G gpus=2] torchrun --nproc_per_node=2 train_big.py
                [vram=8G retries=2] python sweep.py --seed 3
                [timeout=2h] python flaky_eval.py
                """;
        List<JobSpec> jobs = JobsFileParser.parse(readme, "jobs.txt");
        assertEquals(6, jobs.size());
        assertEquals(List.of(2, 4, 5, 6, 7, 8), jobs.stream().map(JobSpec::line).toList());
        assertEquals(OptionalLong.of(22 * 1024), jobs.get(2).vramMib());
        assertEquals(2, jobs.get(3).gpus());
        assertEquals(2, jobs.get(4).retries());
        assertEquals(Optional.of(Duration.ofHours(2)), jobs.get(5).timeout());
    }

    @Test
    void readmePipelineParsesToItsThreeJobs() {
        String readme = """
                [name=prep priority=5] python preprocess.py
                [name=train after=prep vram=20G gpus=2 gpu-ids=0-3] torchrun --nproc_per_node=2 train.py
                [after-any=train vram=8G timeout=30m on-timeout=requeue preemptible] python eval.py
                """;
        List<JobSpec> jobs = JobsFileParser.parse(readme, "jobs.txt");
        assertEquals(new Scheduling(5, List.of(), false, Scheduling.OnTimeout.FAIL, Optional.of("prep"), List.of()),
                jobs.get(0).scheduling());
        assertEquals(new Scheduling(0, List.of("0", "1", "2", "3"), false, Scheduling.OnTimeout.FAIL, Optional.of("train"),
                List.of(new Scheduling.Dependency("prep", true))), jobs.get(1).scheduling());
        assertEquals(new Scheduling(0, List.of(), true, Scheduling.OnTimeout.REQUEUE, Optional.empty(),
                List.of(new Scheduling.Dependency("train", false))), jobs.get(2).scheduling());
        assertEquals(JobSpec.parse("python preprocess.py").key(), jobs.get(0).key(), "attributes never change a key");
    }

    @Test
    void readmeFileLevelErrorsReadAsTheReadmeShowsThem() {
        assertEquals("jobs.txt:3: name=prep is already the name of line 1; give each job its own name", assertThrows(
                JobSpecException.class, () -> JobsFileParser.parse("[name=prep] a\nb\n[name=prep] c\n", "jobs.txt")).getMessage());
        assertEquals("jobs.txt:2: after=train makes a cycle: prep -> train -> prep; remove one of these dependencies", assertThrows(
                JobSpecException.class, () -> JobsFileParser.parse("a\n[name=prep after=train] b\n[name=train after=prep] c\n",
                        "jobs.txt")).getMessage());
    }

    @Test
    void hugeGpuRangeIsATypedErrorNotAnAllocation() {
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[gpu-ids=0-99999999] x"));
        assertEquals("gpu-ids=0-99999999", e.token());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[gpu-ids=0-4294967296] x"));
        assertEquals(1024, JobSpec.parse("[gpu-ids=2147482624-2147483647] x").scheduling().gpuIds().size(), "the top of int range");
    }

    @Test
    void hugeVramIsATypedErrorNotAnOverflow() {
        JobSpecException e = assertThrows(JobSpecException.class, () -> JobSpec.parse("[vram=99999999999999999999G] x"));
        assertEquals("vram=99999999999999999999G", e.token());
        // The largest accepted amount, 2^31 − 1 MiB, and one more.
        assertEquals(OptionalLong.of(Units.MAX_MIB), JobSpec.parse("[vram=2147483647] x").vramMib());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[vram=2147483648] x"));
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[vram=2097152G] x"));
    }

    @Test
    void hugeGpuCountIsATypedError() {
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[gpus=99999999999] x"));
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[gpus=4294967297] x")); // 2^32 + 1 must not wrap to 1
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[gpus=1025] x"));
        assertEquals(1024, JobSpec.parse("[gpus=1024] x").gpus());
    }

    @Test
    void exponentTimeoutIsATypedError() {
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[timeout=1e309] x"));
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[timeout=Infinity] x"));
    }

    @Test
    void tinyTimeoutIsKeptToTheNanosecondAndNeverBecomesZero() {
        assertEquals(Optional.of(Duration.ofNanos(100)), JobSpec.parse("[timeout=0.0000001s] x").timeout());
        // 0.1 ns rounds up to 1 ns: a positive timeout stays positive.
        assertEquals(Optional.of(Duration.ofNanos(1)), JobSpec.parse("[timeout=0.0000000001s] x").timeout());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[timeout=0s] x"));
    }

    @Test
    void timeoutUpTo3650DaysIsAccepted_oneNanosecondMoreIsNot() {
        assertEquals(Optional.of(Duration.ofDays(3650)), JobSpec.parse("[timeout=3650d] x").timeout());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[timeout=315360000.000000001] x"));
    }

    @Test
    void crlfLineEndsParseLikeLf() {
        String crlf = "[vram=8G]\tpython a.py\r\n\r\n# c\r\npython b.py\r\n";
        assertEquals(JobsFileParser.parse(crlf.replace("\r\n", "\n"), "jobs.txt"), JobsFileParser.parse(crlf, "jobs.txt"));
    }

    @Test
    void nulByteIsATypedErrorOnItsLine() {
        JobSpecException e = assertThrows(JobSpecException.class,
                () -> JobsFileParser.parse("python ok.py\npython b\0ad.py\n", "jobs.txt"));
        assertEquals(2, e.line());
        assertTrue(e.getMessage().startsWith("jobs.txt:2: NUL byte"), e.getMessage());
        assertTrue(e.getMessage().contains("\\x00"), "NUL shown escaped: " + e.getMessage());
    }

    @Test
    void commandStartingWithHashAfterABlock_isRefusedAsNewInput_butOneRecordedEarlierSurvivesToLine() {
        // A shell runs nothing for it, so a line typed now is refused; an earlier version accepted it, and
        // its journal may hold one.
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[] #weird-but-once-legal"));
        assertThrows(JobSpecException.class, () -> JobsFileParser.parse("[] #weird-but-once-legal", "<job>"));
        // Found by toLineReparsesToTheSameSpec: toLine() used to drop the block and turn the job into a comment.
        JobSpec spec = JobSpec.builder("#weird-but-once-legal").build();
        assertEquals("[] #weird-but-once-legal", spec.toLine());
        assertEquals(spec, JobSpec.parseRecorded(spec.toLine()));
    }

    @Test
    void commandStartingWithBracketKeepsAnEmptyBlockInToLine() {
        JobSpec spec = JobSpec.parse("[] [ -f x ] && y");
        assertEquals("[] [ -f x ] && y", spec.toLine());
        assertEquals(spec, JobSpec.parse(spec.toLine()));
    }

    @Test
    void leadingBomOfAFileIsSkipped() {
        assertEquals(JobsFileParser.parse("python a.py", "jobs.txt"), JobsFileParser.parse("\uFEFFpython a.py", "jobs.txt"));
    }

    @Test
    void keysAndCancelAreCaseInsensitive_andEachKeyMayAppearOnce() {
        JobSpec spec = JobSpec.parse("[VRAM=1.5gib Cancel] x");
        assertEquals(OptionalLong.of(1536), spec.vramMib());
        assertTrue(spec.cancel());
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[vram=1G VRAM=2G] x"));
        assertThrows(JobSpecException.class, () -> JobSpec.parse("[cancel cancel] x"));
    }
}

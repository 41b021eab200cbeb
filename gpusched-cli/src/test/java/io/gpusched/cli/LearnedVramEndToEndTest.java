package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vram=auto} and {@code --auto-vram}, end to end: the real CLI on simulated 24000 MiB GPUs, jobs
 * that really allocate (the sim job), the journal on disk between runs.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LearnedVramEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void theNextRunOfACommandDeclaresWhatTheLastPeaked_andItsVerdictSaysWhatWasLearned() throws Exception {
        CliRun run = new CliRun(dir, job("vram=auto", 1500, 0.1, 0.3) + job("vram=auto", 1500, 0.1, 0.3));
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertTrue(run.await("job 1 started").contains("undeclared (exclusive idle GPU; vram=auto: nothing learned yet"),
                run.output());
        assertTrue(run.await("job 1 finished").contains("vram=auto: next run declares 1500 MiB + spike buffer"), run.output());
        assertTrue(run.await("job 2 started").contains("declared 1650 MiB/gpu (learned: job 1 peaked at 1500 MiB, +10%)"),
                run.output());
        assertTrue(run.await("job 2 finished").contains("| declared 1650 MiB (learned: job 1 peaked at 1500 MiB, +10%) → within"),
                run.output());
    }

    @Test
    void autoVramTeachesUndeclaredLinesAcrossRuns_soTheSecondRunPacksThem() throws Exception {
        String line = job("", 9000, 0.1, 0.6);
        CliRun first = new CliRun(dir, line);
        assertEquals(0, first.runToEnd("--sim", "1", "--auto-vram"));
        // Two more of the same command: each learns 9900 MiB (+512 margin), and two fit in 24000 MiB.
        CliRun second = new CliRun(dir, line + line + line);
        assertEquals(0, second.runToEnd("--sim", "1", "--auto-vram"));
        int thirdStarts = second.indexOf("job 3 started on gpu [0]");
        assertTrue(thirdStarts >= 0 && thirdStarts < second.indexOf("job 2 finished"), "packed:\n" + second.output());
        assertTrue(second.await("job 3 started").contains("declared 9900 MiB/gpu (learned: job 1 peaked at 9000 MiB, +10%)"),
                second.output());
    }

    @Test
    void jobsOfOneRuleTeachEachOther_andTheJournalNamesTheRule() throws Exception {
        Path rules = dir.resolve("requirements.json");
        // The rule's figure is generous: two of its jobs would not fit one GPU together.
        Files.writeString(rules, "{\"rules\": [{\"name\": \"sim-9g\", \"match\": \"--vram 9000\", \"vram\": \"16G\"}]}");
        CliRun run = new CliRun(dir, job("vram=auto", 9000, 0.1, 0.3) + job("vram=auto", 9000, 0.1, 0.3, "--exit-code 0"));
        assertEquals(0, run.runToEnd("--sim", "1", "--requirements", rules.toString()));
        assertTrue(run.await("job 1 started").contains("declared 16384 MiB/gpu (rule \"sim-9g\")"), run.output());
        assertTrue(run.await("job 2 started").contains("declared 9900 MiB/gpu (learned from rule \"sim-9g\": job 1 peaked at"
                + " 9000 MiB, +10%)"), run.output());
        assertTrue(Files.readAllLines(run.logs.resolve("journal.jsonl")).stream()
                .anyMatch(l -> l.contains("\"event\":\"started\"") && l.contains("\"rule\":\"sim-9g\"")));
    }
}

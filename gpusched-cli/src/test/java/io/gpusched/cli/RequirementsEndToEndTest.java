package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --requirements}, end to end: the real CLI on simulated 24000 MiB GPUs. Undeclared jobs run
 * alone; a rule's vram packs them, and the log and {@code --events} say which rule.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RequirementsEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void aRulesVramPacksTwoUndeclaredJobsOnOneGpuAndTheLogNamesTheRule() throws Exception {
        Path rules = dir.resolve("requirements.json");
        Files.writeString(rules, """
                {"rules": [{"name": "sim-9g", "match": "--vram 9000", "vram": "10G"}],
                 "default": {"vram": "1G"}}
                """);
        Path events = dir.resolve("events.jsonl");
        CliRun run = new CliRun(dir, job("", 9000, 0.1, 1.0) + job("", 9000, 0.1, 1.0, "--exit-code 0"));
        assertEquals(0, run.runToEnd("--sim", "1", "--requirements", rules.toString(), "--events", events.toString()));
        int second = run.indexOf("job 2 started on gpu [0]");
        int firstDone = run.indexOf("job 1 finished");
        assertTrue(second >= 0 && second < firstDone, "both ran at once on gpu0:\n" + run.output());
        assertTrue(run.await("job 1 started").contains("declared 10240 MiB/gpu (rule \"sim-9g\")"), run.output());
        String json = Files.readString(events);
        assertTrue(json.contains("\"event\":\"job_started\"") && json.contains("\"rule\":\"sim-9g\""), json);
    }

    @Test
    void withoutTheRulesTheSameJobsRunOneAtATime() throws Exception {
        // The control: the packing above is the rule's doing.
        CliRun run = new CliRun(dir, job("", 9000, 0.1, 0.5) + job("", 9000, 0.1, 0.5, "--exit-code 0"));
        assertEquals(0, run.runToEnd("--sim", "1"));
        assertTrue(run.indexOf("job 1 finished") < run.indexOf("job 2 started"), run.output());
        assertFalse(run.output().contains("(rule "), run.output());
    }

    @Test
    void aMalformedRulesFileIsAOneLineErrorAtStartAndRunsNothing() throws Exception {
        Path rules = dir.resolve("requirements.json");
        Files.writeString(rules, "{\"rules\": [{\"match\": \"x\", \"vrma\": \"8G\"}]}");
        Path marker = dir.resolve("ran");
        CliRun run = new CliRun(dir, "[vram=1G] touch " + marker + "\n");
        assertEquals(2, run.runToEnd("--sim", "1", "--requirements", rules.toString()));
        assertEquals("gpusched: requirements.json:1: rule 1: unknown key 'vrma' — did you mean 'vram'?; known keys: "
                + "name, match, vram, gpus, timeout, retries, comment", run.errors().strip());
        assertFalse(Files.exists(marker));
    }
}

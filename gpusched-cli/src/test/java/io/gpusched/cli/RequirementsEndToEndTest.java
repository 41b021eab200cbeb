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

    @Test
    void gpuSchedulersLlmConfigAsItIs_twoHalfGpuModelsShareOneGpuAndTheLogNamesTheModel() throws Exception {
        // The file as gpu_scheduler's README writes it; the model is the command's --llm argument.
        Path config = dir.resolve("llm_config.json");
        Files.writeString(config, """
                {
                    "default_requirement": 1.0,
                    "models": {
                        "qwen2.5-3b-inst": 0.5,
                        "qwen2.5-7b-inst": 1.0
                    }
                }
                """);
        String llm3b = " # --llm qwen2.5-3b-inst\n";
        CliRun run = new CliRun(dir, job("", 11000, 0.1, 1.0).strip() + llm3b + job("", 11000, 0.1, 1.0).strip() + llm3b
                + job("", 9000, 0.1, 0.2).strip() + " # --llm qwen2.5-7b-inst\n");
        assertEquals(0, run.runToEnd("--sim", "1", "--requirements", config.toString()));
        // Half of the 24000 MiB card each, side by side.
        assertTrue(run.await("job 1 started").contains("declared 12000 MiB/gpu (0.5 of gpu0) (rule \"qwen2.5-3b-inst\")"),
                run.output());
        int second = run.indexOf("job 2 started on gpu [0]");
        assertTrue(second >= 0 && second < run.indexOf("job 1 finished"), "both halves at once on gpu0:\n" + run.output());
        // A whole GPU (1.0) is an undeclared job: alone, once the halves are done.
        assertTrue(run.await("job 3 started").contains("undeclared (exclusive idle GPU)"), run.output());
        assertTrue(run.indexOf("job 3 started") > run.indexOf("job 2 finished"), run.output());
    }

    @Test
    void aBadRequirementInAnLlmConfigIsOneLineNamingFileLineModelAndFix() throws Exception {
        Path config = dir.resolve("llm_config.json");
        Files.writeString(config, "{\"default_requirement\": 1.0,\n \"models\": {\"qwen2.5-3b-inst\": -0.5}}\n");
        Path marker = dir.resolve("ran");
        CliRun run = new CliRun(dir, "[vram=1G] touch " + marker + "\n");
        assertEquals(2, run.runToEnd("--sim", "1", "--requirements", config.toString()));
        assertEquals("gpusched: llm_config.json:2: models: \"qwen2.5-3b-inst\": bad GPU requirement '-0.5'; write how much "
                + "of a GPU it needs: a share of one GPU above 0 and below 1 (at most 9 decimals) such as 0.5, or whole GPUs"
                + " such as 1 or 2 (at most 1024)", run.errors().strip());
        assertFalse(Files.exists(marker));
    }

    @Test
    void aRuleOfHalfAGpuPacksTwoJobs() throws Exception {
        Path rules = dir.resolve("requirements.json");
        Files.writeString(rules, "{\"rules\": [{\"name\": \"half\", \"match\": \"--vram 11000\", \"gpus\": 0.5}]}");
        CliRun run = new CliRun(dir, job("", 11000, 0.1, 1.0) + job("", 11000, 0.1, 1.0, "--exit-code 0"));
        assertEquals(0, run.runToEnd("--sim", "1", "--requirements", rules.toString()));
        assertTrue(run.await("job 2 started").contains("declared 12000 MiB/gpu (0.5 of gpu0) (rule \"half\")"), run.output());
        int second = run.indexOf("job 2 started on gpu [0]");
        assertTrue(second >= 0 && second < run.indexOf("job 1 finished"), "both at once on gpu0:\n" + run.output());
    }
}

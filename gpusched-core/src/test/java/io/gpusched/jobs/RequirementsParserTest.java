package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpusched.alloc.GpuShare;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The requirements file: what it means, and the exact one-line message for each mistake. */
class RequirementsParserTest {

    private static Requirements parse(String json) {
        return RequirementsParser.parse(json.getBytes(StandardCharsets.UTF_8), "requirements.json");
    }

    private static String error(String json) {
        return assertThrows(RequirementsParser.RequirementsException.class, () -> parse(json)).getMessage();
    }

    @Test
    void readsRulesInOrderWithTheJobsFileUnitsAndADefault() {
        Requirements r = parse("""
                {"comment": "sizes",
                 "rules": [
                  {"name": "qwen2.5-7b", "match": "--llm qwen2.5-7b", "vram": "16G", "comment": "7.6e9 x 2 B"},
                  {"match": "re:(?i)70b", "vram": 81920, "gpus": 2, "timeout": "1.5h", "retries": "1"}
                 ],
                 "default": {"vram": "8G"}}
                """);
        assertEquals(List.of(
                new Requirements.Rule("qwen2.5-7b", "--llm qwen2.5-7b", false, OptionalLong.of(16384), OptionalInt.empty(),
                        Optional.empty(), OptionalInt.empty()),
                new Requirements.Rule("(?i)70b", "(?i)70b", true, OptionalLong.of(81920), OptionalInt.of(2),
                        Optional.of(Duration.ofMinutes(90)), OptionalInt.of(1))), r.rules());
        assertEquals(OptionalLong.of(8192), r.fallback().vramMib());
        assertEquals("default", r.fallback().name());
        assertEquals("qwen2.5-7b", r.ruleFor("python serve.py --llm qwen2.5-7b --port 1").name());
        assertEquals("(?i)70b", r.ruleFor("python serve.py --llm Llama-3-70B").name());
        assertEquals("default", r.ruleFor("python other.py").name());
    }

    @Test
    void eachMistakeIsOneLineNamingTheFileTheLineTheRuleAndTheFix() {
        assertEquals("requirements.json:3: rule 2: unknown key 'vrma' — did you mean 'vram'?; known keys: name, match, "
                + "vram, gpus, timeout, retries, comment", error("""
                {"rules": [{"match": "a", "vram": "1G"},
                  {"match": "b",
                   "vrma": "8G"}]}
                """));
        assertEquals("requirements.json:2: rule 1: bad vram '16X'; write MiB or a size from 1 to 2147483647 MiB, e.g."
                + " \"vram\": \"16G\", \"1.5GiB\" or 18000", error("""
                {"rules": [
                  {"match": "a", "vram": "16X"}]}
                """));
        // Out of range, the fix names the range: before, it said only "write MiB or a size", which 3000000000G is.
        assertEquals("requirements.json:1: rule 1: bad vram '3000000000G'; write MiB or a size from 1 to 2147483647 MiB,"
                + " e.g. \"vram\": \"16G\", \"1.5GiB\" or 18000",
                error("{\"rules\": [{\"match\": \"a\", \"vram\": \"3000000000G\"}]}"));
        assertEquals("requirements.json:1: rule 1: bad timeout '3651d'; write seconds or a duration above 0 and at most"
                + " 3650d, e.g. \"timeout\": \"2h\", \"90m\" or 3600",
                error("{\"rules\": [{\"match\": \"a\", \"timeout\": \"3651d\"}]}"));
        assertEquals("requirements.json:1: rule 1: bad gpus '0'; write a whole number of GPUs from 1 to 1024, or a share of one"
                + " GPU between 0 and 1 such as 0.5",
                error("{\"rules\": [{\"match\": \"a\", \"gpus\": 0}]}"));
        assertEquals("requirements.json:1: rule 1: bad timeout 'soon'; write seconds or a duration above 0 and at most 3650d,"
                + " e.g. \"timeout\": \"2h\", \"90m\" or 3600", error("{\"rules\": [{\"match\": \"a\", \"timeout\": \"soon\"}]}"));
        assertEquals("requirements.json:2: rule 2: has no \"match\"; give the command text it applies to, e.g. "
                + "\"match\": \"--llm qwen2.5-7b\", or \"re:\" and a regular expression", error("""
                {"rules": [{"match": "a", "vram": 1},
                  {"vram": "8G"}]}
                """));
        assertEquals("requirements.json:1: rule 1: \"re:(\" is not a valid regular expression (Unclosed group near "
                + "index 1); fix it, or drop \"re:\" to match the text literally",
                error("{\"rules\": [{\"match\": \"re:(\", \"vram\": 1}]}"));
        assertEquals("requirements.json:1: rule 1: \"a\" sets nothing; give it vram, gpus, timeout or retries",
                error("{\"rules\": [{\"match\": \"a\"}]}"));
        assertEquals("requirements.json:1: default: the default has a \"match\"; the default applies to every command "
                + "no rule matches; remove its \"match\", or make it a rule in \"rules\"",
                error("{\"default\": {\"match\": \"a\", \"vram\": 1}}"));
        assertEquals("requirements.json:1: rule 1: \"vram\" must be a string or a number; e.g. \"vram\": \"16G\"",
                error("{\"rules\": [{\"match\": \"a\", \"vram\": [1]}]}"));
        assertEquals("requirements.json:1: unknown key 'rule' at the top — did you mean 'rules'?; known keys: rules, "
                + "default, comment, default_requirement, models", error("{\"rule\": []}"));
        assertEquals("requirements.json:1: the file must be a JSON object; write {\"rules\": [{\"match\": \"...\", "
                + "\"vram\": \"16G\"}], \"default\": {...}}", error("[]"));
        assertEquals("requirements.json:2: not valid JSON: Unexpected character ('{' (code 123)): was expecting comma "
                + "to separate Array entries; fix the syntax (a missing comma, quote or bracket?)", error("""
                {"rules": [{"match": "a", "vram": 1}
                  {"match": "b", "vram": 2}]}
                """));
    }

    /** A FIFO or a device is never opened: a FIFO's open waited for a writer, /dev/zero was read without end. */
    @Test
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void aDirectoryAFifoOrADeviceIsRefusedInOneLine_neverRead(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("rules.json");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (Path f : List.of(fifo, Path.of("/dev/zero"))) {
            assertEquals(f.getFileName() + ": " + f + " is not a regular file (a FIFO, a device or a socket); write the"
                    + " rules to a file and give --requirements that", assertThrows(
                    RequirementsParser.RequirementsException.class, () -> RequirementsParser.read(f)).getMessage());
        }
        assertEquals(dir.getFileName() + ": " + dir + " is a directory; give --requirements the rules file (JSON) itself",
                assertThrows(RequirementsParser.RequirementsException.class, () -> RequirementsParser.read(dir)).getMessage());
    }

    @Test
    void aMissingFileNamesItAndThePath(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("rules.json");
        assertEquals("rules.json: cannot read " + f + " (not found); check the path given to --requirements",
                assertThrows(RequirementsParser.RequirementsException.class, () -> RequirementsParser.read(f)).getMessage());
        Files.writeString(f, "{\"default\": {\"gpus\": 2}}");
        assertEquals(OptionalInt.of(2), RequirementsParser.read(f).fallback().gpus());
    }

    /** gpu_scheduler's llm_config.json, as its README shows it. */
    private static final String LLM_CONFIG = """
            {
                "default_requirement": 1.0,
                "models": {
                    "qwen2.5-3b-inst": 0.5,
                    "qwen2.5-7b-inst": 1.0,
                    "qwen2.5-vl-32b-inst": 2.0,
                    "odd-size": 1.5
                }
            }
            """;

    private static final GpuShare HALF = new GpuShare(new BigDecimal("0.5"));

    private static JobSpec applied(Requirements r, String line) {
        return r.apply(JobSpec.parse(line)).spec();
    }

    @Test
    void gpuSchedulersLlmConfigIsReadAsItIs_eachModelARuleOnTheCommandsLlmArgument() {
        Requirements r = parse(LLM_CONFIG);
        assertEquals(List.of("qwen2.5-3b-inst", "qwen2.5-7b-inst", "qwen2.5-vl-32b-inst", "odd-size"),
                r.rules().stream().map(Requirements.Rule::name).toList());
        // 0.5 is half of one GPU's memory: a share, as [gpus=0.5] on the line.
        JobSpec half = applied(r, "python eval.py --llm qwen2.5-3b-inst --dataset test");
        assertEquals(Optional.of(HALF), half.share());
        assertEquals(1, half.gpus());
        assertEquals(OptionalLong.empty(), half.vramMib());
        assertEquals(Optional.of("qwen2.5-3b-inst"), r.apply(JobSpec.parse("python eval.py --llm=qwen2.5-3b-inst"))
                .rule());
        assertEquals(Optional.of(HALF), applied(r, "python eval.py --llm 'qwen2.5-3b-inst'").share());
        // 1.0 is one whole GPU: the job stays undeclared, so it runs alone on an idle GPU.
        assertEquals(JobSpec.parse("python train.py --llm qwen2.5-7b-inst"), applied(r, "python train.py --llm qwen2.5-7b-inst"));
        // Above 1, whole GPUs; 1.5 is placed as gpu_scheduler places it, on 2.
        assertEquals(2, applied(r, "python x.py --llm qwen2.5-vl-32b-inst").gpus());
        assertEquals(2, applied(r, "python x.py --llm odd-size").gpus());
        assertEquals(Optional.empty(), applied(r, "python x.py --llm odd-size").share());
        // The name is matched whole, never as a part of another.
        assertEquals("default", r.ruleFor("python x.py --llm qwen2.5-3b-inst-v2").name());
        assertEquals("default", r.ruleFor("python x.py --llm myqwen2.5-3b-inst").name());
        assertEquals("default", r.ruleFor("python x.py --model qwen2.5-3b-inst").name());
        assertEquals("qwen2.5-3b-inst", r.ruleFor("python x.py --llm qwen2.5-3b-inst; echo done").name());
        assertEquals(OptionalInt.of(1), r.fallback().gpus());
    }

    @Test
    void aFractionalDefaultRequirementGivesEveryOtherCommandThatShare() {
        Requirements r = parse("{\"default_requirement\": 0.25, \"models\": {\"big\": 1}}");
        assertEquals(Optional.of(new GpuShare(new BigDecimal("0.25"))), applied(r, "python x.py --llm small").share());
        assertEquals(Optional.of(new GpuShare(new BigDecimal("0.25"))), applied(r, "python plain.py").share());
        assertEquals(Optional.empty(), applied(r, "python x.py --llm big").share());
        assertEquals(OptionalInt.of(1), r.rules().get(0).gpus());
    }

    @Test
    void ourOwnRulesMaySayHalfAGpu() {
        Requirements r = parse("""
                {"rules": [{"name": "small", "match": "--llm qwen2.5-3b", "gpus": 0.5, "timeout": "1h"}],
                 "default": {"gpus": "0.25"}}
                """);
        assertEquals(Optional.of(HALF), r.rules().get(0).share());
        assertEquals(OptionalInt.empty(), r.rules().get(0).gpus());
        JobSpec j = applied(r, "python eval.py --llm qwen2.5-3b");
        assertEquals(Optional.of(HALF), j.share());
        assertEquals(Optional.of(Duration.ofHours(1)), j.timeout());
        assertEquals(Optional.of(new GpuShare(new BigDecimal("0.25"))), applied(r, "python other.py").share());
    }

    @Test
    void aRulesShareYieldsToWhatTheLineSaysAboutMemoryOrGpus() {
        Requirements r = parse("{\"rules\": [{\"match\": \"--llm s\", \"gpus\": 0.5, \"retries\": 1}]}");
        // The line's vram, its own share, its GPU count and its vram=auto each answer the same question.
        assertEquals(OptionalLong.of(8192), applied(r, "[vram=8G] python x.py --llm s").vramMib());
        assertEquals(Optional.empty(), applied(r, "[vram=8G] python x.py --llm s").share());
        assertEquals("0.25", applied(r, "[gpus=0.25] python x.py --llm s").share().orElseThrow().toString());
        JobSpec two = applied(r, "[gpus=2] python x.py --llm s");
        assertEquals(2, two.gpus());
        assertEquals(Optional.empty(), two.share());
        assertEquals(1, two.retries(), "the rule's other attributes still apply");
        JobSpec learning = applied(r, "[vram=auto] python x.py --llm s");
        assertEquals(Optional.empty(), learning.share());
        assertEquals(true, learning.learnVram());
        // A line's gpus=1 reads as none: pinned to two GPUs, it takes half of one of them.
        JobSpec pinned = applied(r, "[gpus=1 gpu-ids=0,1] python x.py --llm s");
        assertEquals(Optional.of(HALF), pinned.share());
        assertEquals(List.of("0", "1"), pinned.scheduling().gpuIds());
    }

    @Test
    void underAutoVramARulesShareIsTheDeclarationAndOtherJobsStillLearn() {
        Requirements r = parse("{\"rules\": [{\"match\": \"--llm s\", \"gpus\": 0.5}, {\"match\": \"--llm v\", "
                + "\"vram\": \"8G\"}]}");
        JobSpec shared = r.apply(JobSpec.parse("python x.py --llm s"), true).spec();
        assertEquals(Optional.of(HALF), shared.share());
        assertEquals(false, shared.learnVram());
        JobSpec sized = r.apply(JobSpec.parse("python x.py --llm v"), true).spec();
        assertEquals(true, sized.learnVram());
        assertEquals(OptionalLong.of(8192), sized.vramMib(), "the rule's figure, until a run teaches better");
        assertEquals(true, r.apply(JobSpec.parse("python other.py"), true).spec().learnVram());
        JobSpec declared = JobSpec.parse("[vram=2G] python x.py --llm s");
        assertSame(declared, r.apply(declared, true).spec());
    }

    @Test
    void eachMistakeInAnLlmConfigOrAShareIsOneLineNamingTheFileTheLineAndTheFix() {
        String fix = "write how much of a GPU it needs: a share of one GPU above 0 and below 1 (at most 9 decimals) such as "
                + "0.5, or whole GPUs such as 1 or 2";
        assertEquals("requirements.json:3: models: \"qwen2.5-3b-inst\": bad GPU requirement '0'; " + fix + " (at most 1024)",
                error("""
                {"default_requirement": 1.0,
                 "models": {"qwen2.5-7b-inst": 1.0,
                   "qwen2.5-3b-inst": 0}}
                """));
        assertEquals("requirements.json:1: default_requirement: bad GPU requirement 'half'; " + fix + " (at most 1024)",
                error("{\"default_requirement\": \"half\"}"));
        assertEquals("requirements.json:1: models: \"a\": must be a number; " + fix,
                error("{\"models\": {\"a\": [1]}}"));
        assertEquals("requirements.json:1: models: \"a\": bad GPU requirement '0.0000000001'; " + fix,
                error("{\"models\": {\"a\": 0.0000000001}}"));
        assertEquals("requirements.json:1: models: \"a b\": is not a model name as --llm takes it; give the word the "
                + "commands pass to --llm, without spaces (at most 200 characters)", error("{\"models\": {\"a b\": 1}}"));
        assertEquals("requirements.json:1: models: \"a\": is listed twice; keep one entry per model",
                error("{\"models\": {\"a\": 1, \"a\": 0.5}}"));
        assertEquals("requirements.json:1: \"models\" must be an object; write \"models\": {\"qwen2.5-7b-inst\": 1.0, "
                + "\"qwen2.5-3b-inst\": 0.5}", error("{\"models\": [\"a\"]}"));
        assertEquals("requirements.json:2: \"rules\" and \"models\" in one file; a file is either gpusched's rules (rules,"
                + " default) or gpu_scheduler's llm_config.json (models, default_requirement); keep one of the two",
                error("{\"rules\": [{\"match\": \"a\", \"vram\": 1}],\n \"models\": {\"b\": 1}}"));
        assertEquals("requirements.json:1: unknown key 'model' at the top — did you mean 'models'?; known keys: rules, "
                + "default, comment, default_requirement, models", error("{\"model\": {}}"));
        assertEquals("requirements.json:1: rule 1: bad gpus '1.5' (a fraction is a share of one GPU: above 0, below 1, at "
                + "most 9 decimals); write a whole number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 "
                + "such as 0.5", error("{\"rules\": [{\"match\": \"a\", \"gpus\": 1.5}]}"));
        assertEquals("requirements.json:1: rule 1: \"vram\" and \"gpus\": 0.5 both say how much memory the job needs; "
                + "keep one: \"gpus\": 0.5 (that share of whichever GPU it gets) or \"vram\" (the same MiB on any GPU)",
                error("{\"rules\": [{\"match\": \"a\", \"gpus\": 0.5, \"vram\": \"8G\"}]}"));
    }

    @Test
    void theShippedExampleParsesAndSizesTheCommonModels() throws Exception {
        Path example = Path.of("..", "examples", "requirements.json");
        Requirements r = RequirementsParser.read(example);
        assertEquals("qwen2.5-7b", r.ruleFor("python serve.py --llm qwen2.5-7b").name());
        JobSpec applied = r.apply(JobSpec.parse("python serve.py --llm qwen2.5-7b")).spec();
        assertEquals(OptionalLong.of(16384), applied.vramMib());
        // The line's own vram wins over the rule's.
        assertEquals(OptionalLong.of(20480), r.apply(JobSpec.parse("[vram=20G] python serve.py --llm qwen2.5-7b"))
                .spec().vramMib());
    }
}

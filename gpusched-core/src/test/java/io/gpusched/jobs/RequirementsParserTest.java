package io.gpusched.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
        assertEquals("requirements.json:2: rule 1: bad vram '16X'; write MiB or a size, e.g. \"vram\": \"16G\", "
                + "\"1.5GiB\" or 18000", error("""
                {"rules": [
                  {"match": "a", "vram": "16X"}]}
                """));
        assertEquals("requirements.json:1: rule 1: bad gpus '0'; write a whole number from 1 to 1024",
                error("{\"rules\": [{\"match\": \"a\", \"gpus\": 0}]}"));
        assertEquals("requirements.json:1: rule 1: bad timeout 'soon'; write seconds or a duration, e.g. \"timeout\": "
                + "\"2h\", \"90m\" or 3600", error("{\"rules\": [{\"match\": \"a\", \"timeout\": \"soon\"}]}"));
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
                + "default, comment", error("{\"rule\": []}"));
        assertEquals("requirements.json:1: the file must be a JSON object; write {\"rules\": [{\"match\": \"...\", "
                + "\"vram\": \"16G\"}], \"default\": {...}}", error("[]"));
        assertEquals("requirements.json:2: not valid JSON: Unexpected character ('{' (code 123)): was expecting comma "
                + "to separate Array entries; fix the syntax (a missing comma, quote or bracket?)", error("""
                {"rules": [{"match": "a", "vram": 1}
                  {"match": "b", "vram": 2}]}
                """));
    }

    @Test
    void aMissingFileNamesItAndThePath(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("rules.json");
        assertEquals("rules.json: cannot read " + f + " (NoSuchFileException); check the path given to --requirements",
                assertThrows(RequirementsParser.RequirementsException.class, () -> RequirementsParser.read(f)).getMessage());
        Files.writeString(f, "{\"default\": {\"gpus\": 2}}");
        assertEquals(OptionalInt.of(2), RequirementsParser.read(f).fallback().gpus());
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

package io.gpusched.engine;

import io.gpusched.engine.loop.StatusBoardWriter;
import io.gpusched.engine.table.JobsSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.RequirementsParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The requirements file is live, like the jobs file: an edit changes a pending job's requirement once
 * the file is stable, and a bad edit keeps the previous rules with one warning. Real files, a
 * hand-stepped ticker.
 */
class RequirementsLiveTest {
    private static final Duration QUIET = Duration.ofMillis(200);

    @TempDir
    Path dir;

    private final AtomicLong ticker = new AtomicLong(1_000_000_000L);
    private long mtime = 1_700_000_000L;
    private final List<String> errors = new ArrayList<>();

    private void write(Path f, String text) throws IOException {
        Files.writeString(f, text);
        Files.setLastModifiedTime(f, FileTime.fromMillis(1000 * mtime++));
    }

    /** The round that sees a change, then the one a quiet period later that takes it. */
    private JobSpec settle(JobsSource source) {
        source.refresh().ifPresent(errors::add);
        ticker.addAndGet(QUIET.toNanos());
        source.refresh().ifPresent(errors::add);
        return source.jobs().get(0);
    }

    @Test
    void anEditOfTheRulesChangesAPendingJobsRequirementAndABadEditKeepsThePreviousRules() throws IOException {
        Path jobs = dir.resolve("jobs.txt");
        Path rules = dir.resolve("requirements.json");
        write(jobs, "python serve.py --llm qwen2.5-7b\n[vram=4G] python small.py --llm qwen2.5-7b\n");
        write(rules, "{\"rules\": [{\"name\": \"qwen2.5-7b\", \"match\": \"--llm qwen2.5-7b\", \"vram\": \"16G\"}]}");
        JobsSource source = new JobsSource(Optional.of(jobs), List.of(), Optional.of(rules), RequirementsParser.read(rules),
                QUIET, ticker::get);
        JobSpec first = settle(source);
        assertEquals(OptionalLong.of(16384), first.vramMib());
        assertEquals(Optional.of("qwen2.5-7b"), source.ruleOf(first.key()));
        // The line's own vram wins, and names no rule.
        assertEquals(OptionalLong.of(4096), source.jobs().get(1).vramMib());
        assertEquals(Optional.empty(), source.ruleOf(source.jobs().get(1).key()));

        long version = source.version();
        write(rules, "{\"rules\": [{\"name\": \"7b-long-context\", \"match\": \"--llm qwen2.5-7b\", \"vram\": \"20G\"}]}");
        JobSpec edited = settle(source);
        assertEquals(OptionalLong.of(20480), edited.vramMib());
        assertEquals(Optional.of("7b-long-context"), source.ruleOf(edited.key()));
        assertTrue(source.version() > version, "the engine sees a changed queue");
        assertEquals(List.of(), errors);

        write(rules, "{\"rules\": [{\"match\": \"--llm qwen2.5-7b\", \"vram\": \"20X\"}]}");
        assertEquals(OptionalLong.of(20480), settle(source).vramMib());
        assertEquals(OptionalLong.of(20480), settle(source).vramMib());
        assertEquals(List.of("requirements.json:1: rule 1: bad vram '20X'; write MiB or a size from 1 to 2147483647 MiB, e.g."
                + " \"vram\": \"16G\", \"1.5GiB\" or 18000 — keeping the previous rules until the file is fixed"), errors, "warned once");

        write(rules, "{\"default\": {\"vram\": \"1G\"}}");
        JobSpec fixed = settle(source);
        assertEquals(OptionalLong.of(1024), fixed.vramMib());
        assertEquals(Optional.of("default"), source.ruleOf(fixed.key()));
    }

    @Test
    void theBoardNamesTheRuleAPendingJobsDeclarationComesFrom() {
        String rows = StatusBoardWriter.render(List.of(
                io.gpusched.event.StatusBoard.Pending.builder(3, "python serve.py --llm qwen2.5-7b")
                        .declaredMib(OptionalLong.of(16384)).rule(Optional.of("qwen2.5-7b")).build(),
                io.gpusched.event.StatusBoard.Pending.builder(4, "python other.py").declaredMib(OptionalLong.of(8192))
                        .build()), List.of());
        assertTrue(rows.contains("job 3   pending vram 16384 (rule \"qwen2.5-7b\") — python serve.py"), rows);
        assertTrue(rows.contains("job 4   pending vram 8192 — python other.py"), rows);
    }

    @Test
    void aSubmissionGetsTheSameRulesAsALine() throws IOException {
        Path rules = dir.resolve("requirements.json");
        write(rules, "{\"rules\": [{\"name\": \"qwen2.5-7b\", \"match\": \"--llm qwen2.5-7b\", \"vram\": \"16G\", "
                + "\"timeout\": \"2h\"}]}");
        JobsSource source = new JobsSource(Optional.empty(), List.of(), Optional.of(rules), RequirementsParser.read(rules),
                QUIET, ticker::get);
        source.submit(JobSpec.parse("python serve.py --llm qwen2.5-7b").withKey("s1"));
        source.submit(JobSpec.parse("[vram=20G] python serve.py --llm qwen2.5-7b").withKey("s2"));
        source.refresh();
        assertEquals(OptionalLong.of(16384), source.jobs().get(0).vramMib());
        assertEquals(Optional.of("qwen2.5-7b"), source.ruleOf("s1"));
        // Attribute by attribute: the submission's vram, the rule's timeout.
        assertEquals(OptionalLong.of(20480), source.jobs().get(1).vramMib());
        assertEquals(Optional.of(Duration.ofHours(2)), source.jobs().get(1).timeout());
    }
}

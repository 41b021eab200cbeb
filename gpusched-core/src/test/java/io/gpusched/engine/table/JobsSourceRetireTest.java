package io.gpusched.engine.table;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Requirements;
import io.gpusched.jobs.RequirementsParser;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Ended submissions leave the queue ({@link JobsSource#retire}) without the queue being built again: the
 * lines left keep the requirement rules as they were applied, so a daemon with many queued does not apply
 * the rules to every line each time one submission ends. A rule applied anew makes a new {@link JobSpec}, so
 * the same instances after a retirement show that nothing was applied again.
 */
class JobsSourceRetireTest {
    private static final Requirements RULES = RequirementsParser.parse("""
            {"rules": [{"name": "big", "match": "big", "vram": "20G"}], "default": {"vram": "8G"}}
            """.getBytes(StandardCharsets.UTF_8), "requirements.json");

    private static JobsSource source() {
        return new JobsSource(Optional.empty(), List.of(JobSpec.parse("python file-line.py")), Optional.empty(), RULES,
                Duration.ZERO, System::nanoTime);
    }

    private static JobSpec submission(String command, int no) {
        return JobSpec.parse(command).withKey("s" + no);
    }

    @Test
    void anEndedSubmissionLeavesTheQueueWithoutTheRulesAppliedAgainToTheOthers() {
        JobsSource source = source();
        source.submit(submission("python big.py", 2));
        source.submit(submission("python small.py", 3));
        source.submit(submission("python big.py --seed 2", 4));
        List<JobSpec> before = source.jobs();
        long version = source.version();

        source.retire(Set.of("s3"));

        List<JobSpec> after = source.jobs();
        assertEquals(List.of("python file-line.py", "python big.py", "python big.py --seed 2"),
                after.stream().map(JobSpec::command).toList());
        assertSame(before.get(0), after.get(0), "the file's line was not applied again");
        assertSame(before.get(1), after.get(1), "the submission before the ended one was not applied again");
        assertSame(before.get(3), after.get(2), "the submission after the ended one was not applied again");
        assertNotEquals(version, source.version(), "the queue changed: its version moves");
        assertEquals(OptionalLong.of(20480), after.get(2).vramMib(), "the rule stays applied");
    }

    @Test
    void whatIsLeftIsWhatAQueueBuiltAfreshWouldHold() {
        JobsSource source = source();
        source.submit(submission("python big.py", 2));
        source.jobs();
        source.submit(submission("python small.py", 3)); // appended, not yet taken into the built list
        source.submit(submission("python other.py", 4));
        assertEquals(Optional.of("big"), source.ruleOf("s2"));
        assertEquals(Optional.of("default"), source.ruleOf("s3"));

        source.retire(Set.of("s2", "s3"));

        JobsSource fresh = source();
        fresh.submit(submission("python other.py", 4));
        assertEquals(fresh.jobs(), source.jobs());
        assertEquals(Optional.empty(), source.ruleOf("s2"), "a retired job's rule is forgotten, as a rebuild forgets it");
        assertEquals(Optional.empty(), source.ruleOf("s3"));
        assertEquals(Optional.of("default"), source.ruleOf("s4"));
        assertEquals(Optional.empty(), source.spec("s2"));
        assertEquals(Optional.of(fresh.jobs().get(1)), source.spec("s4"));
        assertEquals(List.of(), source.cancelMarked());
    }

    @Test
    void aRetirementMovesTheVersionButNotTheVersionJobsLastJoinedAt() {
        JobsSource source = source();
        source.submit(submission("python big.py", 2));
        source.submit(submission("python small.py", 3));
        source.jobs();
        long joined = source.joinedVersion();
        assertEquals(source.version(), joined, "a submission is a join");

        source.retire(Set.of("s2"));

        assertEquals(joined, source.joinedVersion(), "an ended submission leaving is no join: nothing to number");
        assertEquals(joined + 1, source.version());
        source.submit(submission("python other.py", 4));
        assertEquals(source.version(), source.joinedVersion());
    }

    @Test
    void aKeyNotQueuedChangesNothing() {
        JobsSource source = source();
        source.submit(submission("python big.py", 2));
        List<JobSpec> before = source.jobs();
        long version = source.version();
        source.retire(Set.of("s9"));
        assertSame(before, source.jobs());
        assertEquals(version, source.version());
    }
}

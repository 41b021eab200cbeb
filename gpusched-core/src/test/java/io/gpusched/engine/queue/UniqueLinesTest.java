package io.gpusched.engine.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The index of {@code unique} lines: the first line of the same job that stands, found without a walk of the file. */
class UniqueLinesTest {
    /** Lines as a jobs file keys them (a command's n-th line has occurrence n). */
    private static List<JobSpec> file(String... lines) {
        List<JobSpec> out = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String l : lines) {
            JobSpec j = JobSpec.parse(l);
            out.add(j.withKey(JobKeys.key(j.command(), seen.merge(j.command(), 1, Integer::sum) - 1)));
        }
        return out;
    }

    private static final java.util.function.Predicate<JobSpec> EVERY_LINE_STANDS = j -> true;

    @Test
    void anEarlierPlainLineOfTheSameJobStandsForAUniqueOne() {
        List<JobSpec> jobs = file("[vram=1G] train.py", "other.sh", "[vram=1G unique] train.py");
        UniqueLines index = UniqueLines.of(jobs, j -> true);
        assertEquals(OptionalInt.of(0), index.firstStanding(2, EVERY_LINE_STANDS));
    }

    @Test
    void aUniqueLineStandsForItselfWhenNoEarlierCopyStands() {
        List<JobSpec> jobs = file("[vram=1G] train.py", "[cancel vram=1G] train.py", "[vram=1G unique] train.py");
        UniqueLines index = UniqueLines.of(jobs, j -> true);
        Set<String> failed = Set.of(jobs.get(0).key());
        // The first ended otherwise than ok, the second is marked cancel: neither stands.
        assertEquals(OptionalInt.of(2), index.firstStanding(2, j -> !failed.contains(j.key())));
    }

    @Test
    void otherAttributesMakeAnotherJob() {
        List<JobSpec> jobs = file("[vram=2G] train.py", "[vram=1G unique] train.py");
        assertEquals(OptionalInt.of(1), UniqueLines.of(jobs, j -> true).firstStanding(1, EVERY_LINE_STANDS));
    }

    @Test
    void submissionsAndPlainLinesAreNoOnesGroup_andAFileWithoutAUniqueLineIndexesNothing() {
        List<JobSpec> jobs = file("[vram=1G] train.py", "[vram=1G unique] train.py");
        JobSpec submitted = jobs.get(1).withKey("s3");
        List<JobSpec> withSubmission = List.of(jobs.get(0), submitted);
        UniqueLines index = UniqueLines.of(withSubmission, j -> !j.key().equals("s3"));
        assertTrue(index.isEmpty(), "a unique submission is the submissions' business");
        assertEquals(OptionalInt.empty(), index.firstStanding(1, EVERY_LINE_STANDS));

        UniqueLines plain = UniqueLines.of(file("a.sh", "a.sh"), j -> true);
        assertTrue(plain.isEmpty());
        UniqueLines mixed = UniqueLines.of(jobs, j -> true);
        assertEquals(OptionalInt.empty(), mixed.firstStanding(0, EVERY_LINE_STANDS), "a plain line is not looked up");
    }
}

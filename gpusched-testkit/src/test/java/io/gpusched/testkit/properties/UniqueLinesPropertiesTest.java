package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpusched.engine.queue.UniqueLines;
import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The index of {@code unique} lines answers what the walk of the whole file it replaced answered: for
 * every unique line of the jobs file, the first line of its job (in file order) that stands for it, over
 * random queues of file lines and submissions where any line's job may or may not stand.
 */
class UniqueLinesPropertiesTest {
    /** A queue (file lines and submissions, interleaved or not), which keys are submissions, which jobs stand. */
    record Table(List<JobSpec> jobs, Set<String> submissions, Set<String> standing) {
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            for (JobSpec j : jobs) {
                b.append("\n  ").append(j.key()).append(submissions.contains(j.key()) ? " (submitted)" : "")
                        .append(standing.contains(j.key()) ? " stands: " : ": ").append(j.toLine());
            }
            return b.toString();
        }
    }

    private static final List<String> COMMANDS = List.of("train.py", "eval.sh", "prep.sh");
    private static final List<String> VRAM = List.of("", "vram=1G", "vram=2G");

    static Gen<Table> tables() {
        return (r, size) -> {
            int n = r.nextInt(Math.max(1, size / 2) + 1);
            List<JobSpec> jobs = new ArrayList<>();
            Set<String> submissions = new HashSet<>();
            Set<String> standing = new HashSet<>();
            Map<String, Integer> seen = new HashMap<>();
            boolean interleave = r.nextBoolean();
            int submitted = 0;
            for (int i = 0; i < n; i++) {
                List<String> attrs = new ArrayList<>();
                String vram = VRAM.get(r.nextInt(VRAM.size()));
                if (!vram.isEmpty()) {
                    attrs.add(vram);
                }
                if (r.nextInt(3) == 0) {
                    attrs.add("unique");
                }
                if (r.nextInt(6) == 0) {
                    attrs.add("cancel");
                }
                String command = COMMANDS.get(r.nextInt(COMMANDS.size()));
                JobSpec j = JobSpec.parse((attrs.isEmpty() ? "" : "[" + String.join(" ", attrs) + "] ") + command);
                // Submissions come after the file's lines in a real queue; interleaved, the index must not care.
                boolean submission = r.nextInt(5) == 0 && (interleave || i >= n / 2);
                String key = submission ? "s" + (1000 + submitted++)
                        : JobKeys.key(j.command(), seen.merge(j.command(), 1, Integer::sum) - 1);
                if (submission) {
                    submissions.add(key);
                }
                if (r.nextInt(10) < 6) {
                    standing.add(key);
                }
                jobs.add(j.withKey(key));
            }
            return new Table(List.copyOf(jobs), submissions, standing);
        };
    }

    /**
     * The walk the index replaced (PendingQueue.standingFor before it): every file line, in order, the
     * first of each same-job line that is not marked cancel and stands; nothing unless a file line is unique.
     */
    private static Map<String, String> scan(List<JobSpec> jobs, Predicate<JobSpec> fileLine, Predicate<JobSpec> stands) {
        if (jobs.stream().noneMatch(j -> j.unique() && fileLine.test(j))) {
            return Map.of();
        }
        Map<String, String> first = new HashMap<>();
        for (JobSpec j : jobs) {
            String line = fileLine.test(j) ? j.sameJobLine() : null;
            if (line != null && !j.cancel() && !first.containsKey(line) && stands.test(j)) {
                first.put(line, j.key());
            }
        }
        return first;
    }

    @Test
    void theIndexNamesTheLineTheWalkOfTheFileNamed_forEveryUniqueLine() {
        Property.forAll(tables()).tries(1000).check(t -> {
            Predicate<JobSpec> fileLine = j -> !t.submissions().contains(j.key());
            Predicate<JobSpec> stands = j -> t.standing().contains(j.key());
            Map<String, String> walked = scan(t.jobs(), fileLine, stands);
            UniqueLines index = UniqueLines.of(t.jobs(), fileLine);
            for (int p = 0; p < t.jobs().size(); p++) {
                JobSpec j = t.jobs().get(p);
                OptionalInt at = index.firstStanding(p, stands);
                Optional<String> found = at.isPresent() ? Optional.of(t.jobs().get(at.getAsInt()).key()) : Optional.empty();
                if (j.unique() && fileLine.test(j)) {
                    assertEquals(Optional.ofNullable(walked.get(j.sameJobLine())), found, "line " + p + " of" + t);
                } else {
                    assertEquals(Optional.empty(), found, "only unique file lines are looked up: line " + p + " of" + t);
                }
            }
        });
    }
}

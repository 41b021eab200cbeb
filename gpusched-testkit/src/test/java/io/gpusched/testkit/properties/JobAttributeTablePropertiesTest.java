package io.gpusched.testkit.properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Every row of the attribute table ({@link Attribute}), generated: each row's own setting over its
 * whole range round-trips through {@link JobSpec#toLine()} and the parser (a line alone and in a file), and the generators every
 * other property draws from set each row. A row added to the table is covered here with no test edited.
 */
class JobAttributeTablePropertiesTest {
    private static final int TRIES_PER_ROW = 300;

    /** The row that writes {@code a} back: {@code after-ok} is written as {@code after}. */
    private static Attribute writer(Attribute a) {
        return a.sameAs().orElse(a);
    }

    @Test
    void eachRowSetOnAnyJobIsWrittenByToLineAndParsedBackToTheSameJob_alone_inAFile_andWithCrlf() {
        for (Attribute a : Attribute.ALL) {
            Gen<JobSpec> withIt = JobSpecArbitraries.independentJobSpecs()
                    .with(JobSpecArbitraries.setting(a), (spec, change) -> change.apply(spec));
            Property.forAll(withIt).tries(TRIES_PER_ROW).check(spec -> {
                String token = writer(a).written(spec).orElseThrow(() ->
                        new AssertionError(a + "'s setting left it at its default: " + spec));
                String line = spec.toLine();
                assertTrue(line.startsWith("[") && line.contains(token), a + ": " + token + " in " + line);
                JobSpec back;
                try {
                    back = JobSpec.parse(line);
                } catch (JobSpecException e) {
                    throw new AssertionError(a + ": toLine() gave an unparsable line: " + line, e);
                }
                assertEquals(spec, back, a + " via " + line);
                if (spec.scheduling().after().isEmpty()) {
                    // A dependency needs its job in the same file: one line on its own is only read alone.
                    assertEquals(List.of(spec.toBuilder().line(2).build()),
                            JobsFileParser.parse("# one job\r\n" + line + "\r\n", "jobs.txt"), a + " in a file: " + line);
                }
            });
        }
    }

    @Test
    void theSpecGeneratorsSetEveryRowOfTheTable() {
        SplittableRandom random = new SplittableRandom(11);
        Map<String, Integer> seen = new TreeMap<>();
        for (int i = 0; i < 3000; i++) {
            JobSpec spec = JobSpecArbitraries.jobSpecs().next(random, 1 + i % Gen.MAX_SIZE);
            for (Attribute a : Attribute.ALL) {
                if (writer(a).written(spec).isPresent()) {
                    seen.merge(writer(a).key(), 1, Integer::sum);
                }
            }
        }
        for (Attribute a : Attribute.ALL) {
            // The seed is fixed; the rarest row (a dependency that may end either way) comes up well over 15 times.
            assertTrue(seen.getOrDefault(writer(a).key(), 0) >= 15, a + " is hardly generated: " + seen);
        }
    }
}

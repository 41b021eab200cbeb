package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobSpec;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import io.gpusched.testkit.arbitraries.Property;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The options of {@code submit} and {@code srun} that set a job attribute come from the attribute table:
 * each row with a flag is an option of both, listed in both helps, and the line they build reads back as
 * the values typed, whatever quotes or spaces those hold. A row added to the table is checked here with
 * no test edited.
 */
class AttributeOptionsTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return new Cli(sink, new PrintStream(err, true, StandardCharsets.UTF_8), s -> {
        }).run(args);
    }

    @Test
    void everyRowButCancelHasAFlag_andItIsAnOptionOfSubmitAndSrunAlike_listedInBothHelps() {
        String submitHelp = ClientOptions.usage("submit");
        String srunHelp = ClientOptions.usage("srun");
        for (Attribute a : Attribute.ALL) {
            if (a == Attribute.CANCEL) {
                // [cancel] marks a jobs-file line cancelled; a submitted job is cancelled with gpusched cancel N.
                assertTrue(a.flag().isEmpty());
                continue;
            }
            String option = a.flag().orElseThrow(() -> new AssertionError(a + " has no flag")).option();
            assertTrue(ClientOptions.spec("submit").optionsMap().containsKey(option), option);
            assertTrue(ClientOptions.spec("srun").optionsMap().containsKey(option), option);
            assertTrue(submitHelp.contains(option) && srunHelp.contains(option), option + " in both helps");
            err.reset();
            assertEquals(Cli.USAGE, run("queue", option));
            assertEquals("gpusched: " + option + " is an option of gpusched submit\n", err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void theLineTheOptionsBuildReadsBackAsTheValuesTyped_quotesAndSpacesIncluded() {
        Property.forAll(JobSpecArbitraries.jobSpecs()).tries(300).check(spec -> {
            List<String> args = new ArrayList<>();
            for (Attribute a : Attribute.ALL) {
                a.flag().ifPresent(f -> a.written(spec).ifPresent(token -> {
                    args.add(f.option());
                    if (!a.bare()) {
                        args.add(typed(token.substring(a.key().length() + 1)));
                    }
                }));
            }
            for (String verb : Set.of("submit", "srun")) {
                List<String> all = new ArrayList<>(args);
                all.add("--");
                all.add(spec.command());
                String line = ClientOptions.parse(verb, all).line();
                JobSpec back = JobSpec.parse(line);
                assertEquals(spec.command(), back.command(), line);
                for (Attribute a : Attribute.ALL) {
                    if (a.flag().isPresent()) {
                        assertEquals(a.written(spec), a.written(back), a + " via " + args + " → " + line);
                    }
                }
            }
        });
    }

    @Test
    void oneWordAfterDashesIsAShellLine_severalAreExactArgv_andABracketStartsNoBlock() {
        assertEquals("[] [ -f x ] && echo y", ClientOptions.parse("submit", List.of("--", "[ -f x ] && echo y")).line());
        assertEquals("[vram=2048] sh -c 'echo $X; sleep 2'",
                ClientOptions.parse("submit", List.of("--vram=2048", "--", "sh", "-c", "echo $X; sleep 2")).line());
        assertEquals("[gpus=2] python3 -c 'print(1)'", ClientOptions.parse("srun", List.of("-n", "2", "python3", "-c",
                "print(1)")).line());
    }

    /** The value a user types for a block token's written value: quotes as a block reads them, taken off. */
    private static String typed(String written) {
        if (written.startsWith("'")) {
            return written.substring(1, written.length() - 1);
        }
        if (written.startsWith("\"")) {
            return written.substring(1, written.length() - 1).replaceAll("\\\\([\\\\\"])", "$1");
        }
        return written;
    }
}

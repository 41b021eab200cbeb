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
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The options of {@code submit} and {@code srun} that set a job attribute come from the attribute table:
 * each row with a flag is an option of both (of {@code submit} only where the daemon's launch applies
 * it), listed in both helps, and the line they build reads back as the values typed, whatever quotes
 * or spaces those hold. A row added to the table is checked here with no test edited.
 */
class AttributeOptionsTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        return new Cli(sink, new PrintStream(err, true, StandardCharsets.UTF_8), s -> {
        }).run(args);
    }

    @Test
    void eachRowWithAFlagIsAnOptionOfSubmitAndSrun_butSrunRefusesThoseTheDaemonsLaunchApplies() {
        Set<String> submitUsage = HelpText.usageOptions(ClientCommand.HELP).get("submit");
        Set<String> srunUsage = HelpText.usageOptions(SrunCommand.HELP).get("srun");
        List<String> srunOptions = HelpText.options(SrunCommand.HELP).stream().map(HelpText.Option::name).toList();
        List<String> submitOptions = HelpText.options(ClientCommand.HELP).stream().map(HelpText.Option::name).toList();
        for (Attribute a : Attribute.ALL) {
            if (a.flag().isEmpty()) {
                assertEquals(Optional.empty(), AttributeOptions.of("--" + a.key()), a.key());
                continue;
            }
            String option = a.flag().get().option();
            String name = option.substring(2);
            assertEquals(Optional.of(a), AttributeOptions.of(option));
            assertTrue(submitUsage.contains(name) && submitOptions.contains(name), option + " in submit's help");
            assertEquals(AttributeOptions.forSrun(a), srunUsage.contains(name) && srunOptions.contains(name),
                    option + " in srun's help");
            List<String> args = new ArrayList<>(List.of("srun", option));
            if (!a.bare()) {
                args.add("1");
            }
            if (!AttributeOptions.forSrun(a)) {
                err.reset();
                args.addAll(List.of("--", "true"));
                assertEquals(Cli.USAGE, run(args.toArray(String[]::new)));
                assertEquals("gpusched: " + option + " is an option of gpusched submit: srun runs the command itself, in"
                        + " this terminal\n", err.toString(StandardCharsets.UTF_8));
            }
            err.reset();
            assertEquals(Cli.USAGE, run("queue", option));
            assertEquals("gpusched: " + option + " is an option of gpusched submit\n", err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void theLineTheOptionsBuildReadsBackAsTheValuesTyped_quotesAndSpacesIncluded() {
        Property.forAll(JobSpecArbitraries.jobSpecs()).tries(1000).check(spec -> {
            List<String> args = new ArrayList<>();
            for (Attribute a : Attribute.ALL) {
                a.flag().ifPresent(f -> a.written(spec).ifPresent(token -> {
                    args.add(f.option());
                    if (!a.bare()) {
                        args.add(typed(token.substring(a.key().length() + 1)));
                    }
                }));
            }
            AttributeOptions options = new AttributeOptions();
            for (int i = 0; i < args.size(); i++) {
                int at = i;
                i = options.add(AttributeOptions.of(args.get(i)).orElseThrow(() -> new AssertionError(args.get(at))), args, i);
            }
            String line = options.line(spec.command());
            JobSpec back = JobSpec.parse(line);
            assertEquals(spec.command(), back.command(), line);
            for (Attribute a : Attribute.ALL) {
                if (a.flag().isPresent()) {
                    assertEquals(a.written(spec), a.written(back), a + " via " + args + " → " + line);
                }
            }
        });
    }

    @Test
    void withoutOptionsTheLineIsAnEmptyBlockAndTheCommand_soABracketStartsNoBlock() {
        assertEquals("[] [ -f x ] && echo y", new AttributeOptions().line("[ -f x ] && echo y"));
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

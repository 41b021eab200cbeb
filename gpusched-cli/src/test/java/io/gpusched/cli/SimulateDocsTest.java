package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code gpusched simulate} is findable from {@code gpusched --help} and docs/backends.md, options included. */
class SimulateDocsTest {
    /** Surefire runs in the module's directory; the docs are at the repository root. */
    private static final Path BACKENDS = Path.of("..", "docs", "backends.md");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int run(String... argv) {
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        return new Cli(print, print, s -> { }).run(argv);
    }

    @Test
    void mainHelpShowsTheSimulateUsage() {
        assertEquals(0, run("--help"));
        String help = out.toString(StandardCharsets.UTF_8);
        assertTrue(help.contains("gpusched simulate JOBS_FILE"), help);
        assertTrue(help.contains("(see gpusched simulate --help)"), help);
    }

    @Test
    void theDocsExplainSimulateWithEveryOptionItTakes() throws IOException {
        assertEquals(0, run("simulate", "--help"));
        Set<String> options = new LinkedHashSet<>();
        Matcher m = Pattern.compile("(?m)^ +(?:-h, )?(--[a-z][a-z-]*)").matcher(out.toString(StandardCharsets.UTF_8));
        while (m.find()) {
            options.add(m.group(1));
        }
        assertTrue(options.size() >= 8, options.toString());
        String readme = Files.readString(BACKENDS);
        String heading = "### Replaying a jobs file: `gpusched simulate`";
        int start = readme.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, BACKENDS + " has no section " + heading);
        int end = readme.indexOf("\n## ", start);
        String section = readme.substring(start, end < 0 ? readme.length() : end);
        assertTrue(section.contains("gpusched simulate JOBS_FILE"), section);
        for (String option : options) {
            assertTrue(section.contains("`" + option) || section.contains(" " + option + "`"),
                    BACKENDS + "'s gpusched simulate section does not explain " + option);
        }
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/stats.md is what {@code gpusched stats} prints: its sample is the hand-computed
 * journal's output, its chart ({@code docs/stats-plot.svg}) the chart of that journal, and it explains every
 * option.
 */
class StatsDocsTest {
    /** Surefire runs in the module's directory; the docs are at the repository root. */
    private static final Path STATS = Path.of("..", "docs", "stats.md");
    private static final Path PLOT = Path.of("..", "docs", "stats-plot.svg");
    private static final String HEADING = "# Statistics: `gpusched stats`";

    @TempDir
    Path dir;

    private static String section() throws Exception {
        String page = Files.readString(STATS);
        assertTrue(page.startsWith(HEADING + "\n"), STATS + " does not open with " + HEADING);
        return page;
    }

    @Test
    void theDocsSampleIsTheHandComputedJournalsOutput() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Files.writeString(logs.resolve("journal.jsonl"), StatsHandComputedTest.journal());
        String printed = run(logs, "--log-dir", logs.toString());
        assertTrue(section().contains("```\n$ gpusched stats --log-dir logs\n" + printed + "```\n"),
                STATS + "'s sample is not what gpusched stats prints for StatsHandComputedTest's journal:\n" + printed);
    }

    @Test
    void docsStatsPlotIsTheHandComputedJournalsChart() throws Exception {
        Path logs = Files.createDirectory(dir.resolve("logs"));
        Files.writeString(logs.resolve("journal.jsonl"), StatsHandComputedTest.journal());
        Path fresh = Path.of("target", "stats-plot.svg");
        run(logs, "--log-dir", logs.toString(), "--plot", fresh.toString());
        assertEquals(Files.readString(fresh), Files.readString(PLOT), "docs/stats-plot.svg is out of date: copy"
                + " gpusched-cli/" + fresh + " over it");
        assertTrue(section().contains("![") && section().contains("(stats-plot.svg)"), STATS + " shows the chart");
    }

    @Test
    void theDocsExplainEveryOption() throws Exception {
        Set<String> options = new LinkedHashSet<>();
        StatsCommand.spec().options().forEach(o -> options.add(o.longestName()));
        options.remove("--help");
        assertTrue(options.size() >= 6, options.toString());
        String section = section();
        for (String option : options) {
            assertTrue(section.contains("`" + option) || section.contains(" " + option + "`"),
                    STATS + " does not explain " + option);
        }
    }

    private static String run(Path logs, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = new StatsCommand(new PrintStream(out, true, StandardCharsets.UTF_8), System.err,
                InstantSource.fixed(Instant.ofEpochMilli(StatsHandComputedTest.T0 + 240 * 60_000)), ZoneId.of("UTC"),
                p -> "ada").run(args);
        assertEquals(0, code);
        return out.toString(StandardCharsets.UTF_8);
    }
}

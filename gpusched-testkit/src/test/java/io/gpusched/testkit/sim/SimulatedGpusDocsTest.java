package io.gpusched.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.gpu.BackendOptions;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the documentation says about simulated GPUs, checked against the code, so the text cannot rot
 * silently: docs/java-api.md's snippet is compiled and run with that page's own sim line, and
 * docs/backends.md's option lists name every option the code accepts.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SimulatedGpusDocsTest {
    /** Surefire runs in the module's directory; the docs are at the repository root. */
    private static final Path JAVA_API = Path.of("..", "docs", "java-api.md");
    private static final Path BACKENDS = Path.of("..", "docs", "backends.md");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final Pattern STATUS_LINE = Pattern.compile("(?m)^[A-Z_]+, peak \\d+ MiB$");

    @TempDir
    Path dir;

    /**
     * The snippet as a {@code gpusched-testkit} user runs it (no {@code gpusched-nvml} on this class
     * path): its {@code detect} line replaced by the page's sim line, compiled, and run in a fresh
     * JVM in a scratch directory (the snippet writes {@code gpusched_logs} where it runs).
     */
    @Test
    void javaSnippetRunsOnSimulatedGpusWithThePagesSimLine() throws Exception {
        String section = Files.readString(JAVA_API);
        List<String> blocks = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(section);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        String snippet = blocks.get(0);
        String detectLine = snippet.lines().findFirst().orElseThrow();
        assertTrue(detectLine.contains("GpuBackends.detect("), "the snippet opens with detect: " + detectLine);
        String simLine = blocks.stream().flatMap(String::lines).filter(l -> l.contains("GpuBackends.load(\"sim\""))
                .findFirst().orElseThrow(() -> new AssertionError("no GpuBackends.load(\"sim\", ...) line under"
                        + " in " + JAVA_API));
        String source = "import io.gpusched.*;\nimport io.gpusched.model.*;\nimport io.gpusched.event.*;\nimport io.gpusched.options.*;\nimport io.gpusched.gpu.*;\nimport io.gpusched.jobs.*;\n"
                + "import java.nio.file.Path;\n\npublic class ReadmeSnippet {\n"
                + "    public static void main(String[] args) throws Exception {\n"
                + snippet.replace(detectLine, simLine) + "    }\n}\n";
        Path src = Files.writeString(dir.resolve("ReadmeSnippet.java"), source);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        String classPath = System.getProperty("java.class.path");
        String diagnostics = jdkTool("javac", "-d", classes.toString(), "-cp", classPath, src.toString());
        assertTrue(diagnostics.isEmpty(), JAVA_API + "'s snippet does not compile cleanly:\n" + diagnostics + "\n" + source);
        String out = jdkTool("java", "-XX:TieredStopAtLevel=1", "-cp", classes + File.pathSeparator + classPath,
                "ReadmeSnippet");
        assertTrue(out.contains("sim (2 GPUs x 24000 MiB"), "ran on the simulated GPUs:\n" + out);
        assertTrue(STATUS_LINE.matcher(out).find(), "printed the job's result:\n" + out);
    }

    @Test
    void backendOptionsListedAreTheOnesTheProviderKnows() throws IOException {
        String reason = new SimulatedGpuBackendProvider().availability(BackendOptions.of("no-such-option", "1")).reason();
        String known = reason.substring(reason.indexOf("known: ") + "known: ".length());
        String section = section(BACKENDS, "## Simulated GPUs", "\n### ");
        for (String key : known.split(",\\s*")) {
            assertTrue(section.contains("`" + key + "`"), BACKENDS + "'s Simulated GPUs does not explain option " + key);
        }
    }

    @Test
    void simJobTableListsEveryFlagTheJobTakes() throws IOException {
        Set<String> flags = new LinkedHashSet<>();
        Matcher m = Pattern.compile("--[a-z][a-z-]*").matcher(SimJobOptions.USAGE);
        while (m.find()) {
            flags.add(m.group());
        }
        assertTrue(flags.size() >= 9, flags.toString());
        String section = section(BACKENDS, "### The simulated job: `$GPUSCHED_SIMJOB`", "\n### ");
        for (String flag : flags) {
            assertTrue(section.contains("`" + flag), BACKENDS + "'s simulated job section does not explain " + flag);
        }
    }

    /** Runs a JDK tool in the scratch directory; fails with its output unless it exits 0. */
    private String jdkTool(String tool, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", tool).toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), tool + " hung:\n" + out);
        assertEquals(0, p.exitValue(), tool + " failed:\n" + out);
        return out;
    }

    private static String section(Path page, String heading, String end) throws IOException {
        String text = Files.readString(page);
        int start = text.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, page + " has no section " + heading);
        int stop = text.indexOf(end, start + heading.length() + 1);
        return text.substring(start, stop < 0 ? text.length() : stop);
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's tour is run as written, so it cannot go stale: every {@code ```console} block after a
 * {@code <!-- tested} comment is a shell session whose {@code $ } lines run in order in a scratch
 * directory, each exiting 0 and printing every line the README shows under it. And every option the
 * README and docs/ show on a {@code gpusched} command line is one that command's {@code --help} lists.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReadmeCommandsTest {
    /** Surefire runs in the module's directory; the README and docs are at the repository root. */
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path README = REPO.resolve("README.md");
    /** The commands newcomers and CI are told about; the tour must keep them. */
    private static final String DEMO = "bin/gpusched examples/demo.txt --sim 2 --fresh -v";
    private static final String TESTS = "mvn -B verify";
    private static final Pattern CLOCK = Pattern.compile("^\\[\\d\\d:\\d\\d:\\d\\d\\] ");
    private static final Pattern FENCE = Pattern.compile("(?ms)^```[a-z]*\\n(.*?)^```");
    private static final Pattern INVOCATION = Pattern.compile("(?:^|[\\s/])gpusched\\s+([^\\s:]+)(?=\\s|$)(.*)");
    private static final Pattern OPTION = Pattern.compile("(?<![\\w-])--[a-z][a-z-]*");
    private static final Set<String> VERBS = Set.of("serve", "submit", "queue", "show", "info", "cancel", "logs", "attach",
            "pause", "resume", "dashboard", "top", "srun", "stats", "status", "simulate", "convert");

    @TempDir
    Path dir;

    /** One {@code $ } line of a session and the output lines the README shows under it. */
    record Step(String command, List<String> shown) {
    }

    @Test
    void theReadmeShowsTheDemoInATestedTourAndTheTestCommandCiRuns() throws IOException {
        List<List<Step>> tours = tours(Files.readString(README));
        assertFalse(tours.isEmpty(), "README.md has no <!-- tested --> console block");
        assertTrue(tours.stream().flatMap(List::stream).anyMatch(s -> s.command().equals(DEMO)),
                "README.md's tested tour no longer runs " + DEMO);
        assertTrue(Files.readString(README).contains("```\n" + TESTS + "\n```"), "README.md no longer shows " + TESTS);
        assertTrue(Files.readString(REPO.resolve(".ci/run")).contains("\n" + TESTS + "\n"), ".ci/run no longer runs " + TESTS);
    }

    @Test
    void everyTourCommandExitsZeroAndPrintsWhatTheReadmeShows() throws Exception {
        List<List<Step>> tours = tours(Files.readString(README));
        assertTrue(tours.stream().mapToInt(List::size).sum() >= 5, tours.toString());
        Path bin = Files.createDirectories(dir.resolve("bin"));
        // Stands in for the repository's bin/gpusched: this test's class path instead of the built jar, and
        // a state directory of the test's for serve (run by root, it would be /var/lib/gpusched).
        Files.writeString(bin.resolve("gpusched"), """
                #!/bin/sh
                if [ "$1" = serve ]; then shift; set -- serve --log-dir "$TOUR_STATE" "$@"; fi
                exec "$TOUR_JAVA" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -XX:-UsePerfData \\
                    -cp "$TOUR_CLASSPATH" io.gpusched.cli.Main "$@"
                """);
        Files.setPosixFilePermissions(bin.resolve("gpusched"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path examples = Files.createDirectories(dir.resolve("examples"));
        try (Stream<Path> files = Files.list(REPO.resolve("examples"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, examples.resolve(f.getFileName()));
            }
        }
        Path socket = dir.resolve("run/gpusched.sock");
        Map<String, String> env = Map.of("TOUR_STATE", dir.resolve("state").toString(),
                "TOUR_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "TOUR_CLASSPATH", System.getProperty("java.class.path"),
                "GPUSCHED_SOCKET", socket.toString(), "NO_COLOR", "1");
        List<Process> background = new ArrayList<>();
        try {
            for (List<Step> tour : tours) {
                for (Step step : tour) {
                    run(step, env, socket, background);
                }
            }
        } finally {
            background.forEach(ServeDaemon::stopGracefully);
        }
    }

    @Test
    void everyOptionTheReadmeAndDocsShowOnAGpuschedCommandLineIsOneItTakes() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(README));
        try (Stream<Path> docs = Files.list(REPO.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        int checked = 0;
        for (Path page : pages) {
            Matcher block = FENCE.matcher(Files.readString(page));
            while (block.find()) {
                for (String line : block.group(1).split("\n")) {
                    for (String option : options(line)) {
                        String verb = verb(line);
                        assertTrue(help(verb, line.contains("--executor slurm")).contains(option), REPO.relativize(page)
                                + " shows " + option + " on a gpusched " + verb + " line that its --help does not list: "
                                + line);
                        checked++;
                    }
                }
            }
        }
        assertTrue(checked >= 50, "only " + checked + " options checked");
    }

    /** Runs one step: in the background ({@code &}), as {@code kill %1}, or waited for and checked. */
    private void run(Step step, Map<String, String> env, Path socket, List<Process> background) throws Exception {
        String command = step.command();
        if (command.equals("kill %1")) {
            assertFalse(background.isEmpty(), "kill %1 with nothing in the background");
            Process first = background.get(0);
            first.destroy();
            assertTrue(first.waitFor(30, TimeUnit.SECONDS), "kill %1 did not stop: " + command);
            return;
        }
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command.endsWith("&")
                ? "exec " + command.substring(0, command.length() - 1).strip() : command)
                .directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        if (command.endsWith("&")) {
            assertTrue(command.startsWith("bin/gpusched serve"), "only a daemon goes in the background: " + command);
            Path log = dir.resolve("background-" + background.size() + ".log");
            background.add(pb.redirectOutput(log.toFile()).start());
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); !answers(socket); Thread.sleep(50)) {
                assertTrue(System.nanoTime() < end && background.get(background.size() - 1).isAlive(),
                        "the daemon did not come up: " + command + "\n" + Files.readString(log));
            }
            return;
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "hung: " + command + "\n" + out);
        assertEquals(0, p.exitValue(), "$ " + command + "\n" + out);
        List<String> lines = out.lines().map(String::stripTrailing).toList();
        for (String shown : step.shown()) {
            Pattern expected = shownLine(shown);
            assertTrue(lines.stream().anyMatch(l -> expected.matcher(l).matches()),
                    "README.md shows\n  " + shown + "\nunder $ " + command + ", but it printed\n" + out);
        }
    }

    /** A shown line as a pattern: {@code …} stands for whatever varies, and a leading clock for any time. */
    static Pattern shownLine(String shown) {
        String s = shown.stripTrailing();
        StringBuilder regex = new StringBuilder();
        Matcher clock = CLOCK.matcher(s);
        if (clock.find()) {
            regex.append("\\[\\d\\d:\\d\\d:\\d\\d\\] ");
            s = s.substring(clock.end());
        }
        String[] parts = s.split("…", -1);
        for (int i = 0; i < parts.length; i++) {
            regex.append(i > 0 ? ".*" : "").append(Pattern.quote(parts[i]));
        }
        return Pattern.compile(regex.toString());
    }

    /** The sessions of README.md's tested console blocks, in order. */
    static List<List<Step>> tours(String readme) {
        List<List<Step>> tours = new ArrayList<>();
        Matcher m = Pattern.compile("(?ms)^<!-- tested[^\\n]*-->\\n```console\\n(.*?)^```").matcher(readme);
        while (m.find()) {
            List<Step> steps = new ArrayList<>();
            for (String line : m.group(1).split("\n")) {
                if (line.startsWith("$ ")) {
                    steps.add(new Step(line.substring(2).strip(), new ArrayList<>()));
                } else if (!line.isBlank()) {
                    assertFalse(steps.isEmpty(), "output before any $ line in a tested block: " + line);
                    steps.get(steps.size() - 1).shown().add(line);
                }
            }
            tours.add(steps);
        }
        return tours;
    }

    /** @return the verb of a gpusched command line, or {@code ""} for a jobs-file run */
    private static String verb(String line) {
        Matcher m = INVOCATION.matcher(line);
        return m.find() && VERBS.contains(m.group(1)) ? m.group(1) : "";
    }

    /**
     * The options a code line gives gpusched itself: none when the line does not start gpusched; never
     * those in quotes, after {@code --} (the job's own command) or in a trailing {@code #} comment.
     */
    static Set<String> options(String line) {
        Matcher m = INVOCATION.matcher(line);
        Set<String> options = new LinkedHashSet<>();
        if (!m.find()) {
            return options;
        }
        String rest = (m.group(1) + m.group(2)).replaceAll("'[^']*'|\"[^\"]*\"", "''");
        for (String cut : List.of(" -- ", " # ", " --$")) {
            Matcher c = Pattern.compile(cut).matcher(rest);
            if (c.find()) {
                rest = rest.substring(0, c.start());
            }
        }
        Matcher o = OPTION.matcher(rest);
        while (o.find()) {
            options.add(o.group());
        }
        return options;
    }

    private static String help(String verb, boolean slurm) {
        String help = cli(verb.isEmpty() ? new String[] {"--help"} : new String[] {verb, "--help"});
        return slurm ? help + cli("jobs.txt", "--executor", "slurm", "--help") : help;
    }

    private static boolean answers(Path socket) {
        return Files.exists(socket) && cli("queue", "--socket", socket.toString()).startsWith("0:");
    }

    /** @return the exit code, a colon, then what the CLI printed, run in this JVM */
    private static String cli(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int code = new Cli(print, print, s -> { }).run(argv);
        return code + ":" + out.toString(StandardCharsets.UTF_8);
    }
}

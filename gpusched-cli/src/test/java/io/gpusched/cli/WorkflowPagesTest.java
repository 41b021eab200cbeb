package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pages that walk another tool's users through their workflow on gpusched ({@code docs/from-*.md})
 * hold transcripts, and this test is what produces them: it runs every command of every transcript, in
 * order, against a real root daemon ({@code gpusched serve} with the options the page names), as the
 * real Unix user its prompt names, and compares what each printed with the page.
 *
 * <p>A transcript is a {@code console} block right after a comment
 * {@code <!-- transcript serve="OPTIONS" users="alice bob" -->}. In it, {@code alice$ CMD} runs
 * {@code CMD} through {@code /bin/sh} as alice in her own directory ({@code /home/alice} on the page), with
 * the CLI as {@code gpusched} (and {@code python}, where the system has {@code python3} alone) on her PATH
 * and the daemon's socket in {@code GPUSCHED_SOCKET}; {@code root# CMD}
 * runs it as root; the lines up to the next prompt are what it printed, stdout and stderr together. Each
 * transcript has a daemon of its own, and its users' directories start empty. A command that ends in
 * {@code <<'EOF'} takes the lines up to {@code EOF} with it (a here-document, to write a file); in the
 * daemon's options and in a command {@code /home/} is where the users' directories are.
 *
 * <p>What differs from run to run is masked on both sides before they are compared: clock times, dates,
 * durations, process ids, the simulated GPUs' temporary directory and the runs of blanks that align a table. Everything else (job numbers, states,
 * exit codes, memory, messages) must match. With {@code -Dgpusched.transcripts=write} the test writes
 * what it saw into the pages instead (unmasked), which is how they were made.
 */
class WorkflowPagesTest {
    private static final Path DOCS = Path.of("..", "docs");
    private static final Pattern DIRECTIVE = Pattern.compile(
            "<!-- transcript serve=\"([^\"]*)\" users=\"([^\"]*)\" -->\\R```console\\R(.*?)```", Pattern.DOTALL);
    private static final Pattern PROMPT = Pattern.compile("^(?:([a-z][a-z0-9-]*)\\$|root#) (.*)$");
    private static final boolean WRITE = "write".equals(System.getProperty("gpusched.transcripts"));

    @TempDir
    Path dir;

    /** A command of a transcript: who runs it ({@code root} for {@code #}), the line, what it printed. */
    record Step(String user, String command, List<String> printed) {
    }

    /** One transcript of a page: the daemon's options, its users, its steps, and where it stands. */
    record Transcript(String serve, List<String> users, List<Step> steps, int start, int end) {
    }

    static Stream<Path> pages() throws Exception {
        try (Stream<Path> all = Files.list(DOCS)) {
            return all.filter(p -> p.getFileName().toString().matches("from-.*\\.md")).sorted().toList().stream();
        }
    }

    @Test
    void everySeedToolHasAWorkflowPageWithATranscript() throws Exception {
        List<String> names = pages().map(p -> p.getFileName().toString()).toList();
        assertEquals(List.of("from-gpu-scheduler.md", "from-local-gpu-scheduler.md", "from-mgpu.md", "from-tgpu.md"), names);
        for (Path page : pages().toList()) {
            assertFalse(transcripts(Files.readString(page)).isEmpty(), page + " has no transcript");
        }
    }

    @Test
    void maskingHidesOnlyWhatVariesFromRunToRun() {
        assertEquals(mask("job 3 ok in 12s, peak 3000 MiB at 04:01:02"), mask("job 3 ok in 2s, peak 3000 MiB at 11:22:33"));
        assertEquals(mask("1  alice   running   1h02m"), mask("1 alice running 0m05s"));
        assertEquals(mask("usage in /tmp/gpusched-sim-4239824043556838197)"), mask("usage in /tmp/gpusched-sim-17-3044-4026531836-5)"));
        assertFalse(mask("job 3 ok").equals(mask("job 4 ok")), "job numbers are compared");
        assertFalse(mask("peak 3000 MiB").equals(mask("peak 3001 MiB")), "memory is compared");
        assertFalse(mask("exit 0").equals(mask("exit 1")), "exit codes are compared");
    }

    @ParameterizedTest
    @MethodSource("pages")
    void theTranscriptsOfAPageAreWhatItsCommandsPrint(Path page) throws Exception {
        UnixUsers.assumeRoot("needs root to serve real users the page's commands");
        UnixUsers.assumeSetpriv();
        String text = Files.readString(page);
        List<Transcript> transcripts = transcripts(text);
        StringBuilder rewritten = new StringBuilder();
        int at = 0;
        List<String> mismatches = new ArrayList<>();
        for (int t = 0; t < transcripts.size(); t++) {
            Transcript transcript = transcripts.get(t);
            List<Step> seen = run(transcript, dir.resolve("t" + t));
            rewritten.append(text, at, transcript.start()).append(render(seen));
            at = transcript.end();
            for (int i = 0; i < transcript.steps().size(); i++) {
                Step want = transcript.steps().get(i);
                Step got = seen.get(i);
                if (!mask(String.join("\n", want.printed())).equals(mask(String.join("\n", got.printed())))) {
                    mismatches.add(prompt(want) + "\n  page:\n    " + String.join("\n    ", want.printed())
                            + "\n  now:\n    " + String.join("\n    ", got.printed()));
                }
            }
        }
        rewritten.append(text.substring(at));
        if (WRITE) {
            Files.writeString(page, rewritten.toString());
            return;
        }
        if (!mismatches.isEmpty()) {
            fail(page.getFileName() + ": " + mismatches.size() + " command(s) print something else now (rerun with "
                    + "-Dgpusched.transcripts=write to take the new output, after reading it):\n" + String.join("\n", mismatches));
        }
    }

    static List<Transcript> transcripts(String page) {
        List<Transcript> out = new ArrayList<>();
        Matcher m = DIRECTIVE.matcher(page);
        while (m.find()) {
            List<Step> steps = new ArrayList<>();
            String[] lines = m.group(3).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                Matcher p = PROMPT.matcher(line);
                if (p.matches()) {
                    StringBuilder command = new StringBuilder(p.group(2));
                    if (p.group(2).endsWith("<<'EOF'")) {
                        // A here-document: its lines are the command's, up to EOF.
                        do {
                            command.append('\n').append(lines[++i]);
                        } while (!lines[i].equals("EOF"));
                    }
                    steps.add(new Step(p.group(1) == null ? "root" : p.group(1), command.toString(), new ArrayList<>()));
                } else if (!steps.isEmpty()) {
                    steps.get(steps.size() - 1).printed().add(line);
                } else if (!line.isBlank()) {
                    throw new IllegalArgumentException("a transcript starts with a prompt, not: " + line);
                }
            }
            for (Step s : steps) {
                // The block's last line ends before its closing fence: no output line is empty at the end.
                while (!s.printed().isEmpty() && s.printed().get(s.printed().size() - 1).isEmpty()) {
                    s.printed().remove(s.printed().size() - 1);
                }
            }
            List<String> users = m.group(2).isBlank() ? List.of() : List.of(m.group(2).trim().split("\\s+"));
            out.add(new Transcript(m.group(1), users, steps, m.start(3), m.end(3)));
        }
        return out;
    }

    /** The steps as the page writes them: each prompt, then what it printed. */
    private static String render(List<Step> steps) {
        StringBuilder b = new StringBuilder();
        for (Step s : steps) {
            b.append(prompt(s)).append('\n');
            for (String line : s.printed()) {
                b.append(line).append('\n');
            }
        }
        return b.toString();
    }

    private static String prompt(Step s) {
        return ("root".equals(s.user()) ? "root#" : s.user() + "$") + " " + s.command();
    }

    /** Clock times, dates, durations and pids masked; blanks collapsed, so a table's alignment does not count. */
    static String mask(String s) {
        String m = s.replaceAll("\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?Z?", "<when>")
                .replaceAll("\\b\\d{1,2}:\\d{2}:\\d{2}\\b", "<time>")
                .replaceAll("\\b\\d+h\\d{2}m\\b|\\b\\d+m\\d{2}s\\b|\\b\\d+(\\.\\d+)? ?(ms|s)\\b", "<dur>")
                .replaceAll("\\b(pid|pgid|session) \\d+", "$1 <n>")
                .replaceAll("/tmp/gpusched-sim-[\\d-]+", "/tmp/gpusched-sim-<n>")
                .replaceAll("\"(pid|uptime_s|started|ended|submitted)\": ?[0-9.]+", "\"$1\":<n>");
        return m.replaceAll("[ \\t]+", " ").strip();
    }

    /** Runs a transcript's commands against a daemon of its own; @return each step with what it printed now */
    private List<Step> run(Transcript t, Path root) throws Exception {
        Files.createDirectories(root);
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> created = UnixUsers.add(t.users().toArray(String[]::new));
        String cp = UnixUsers.userClasspath(Files.createDirectories(root.resolve("classpath")));
        Path bin = Files.createDirectories(root.resolve("bin"));
        Path cli = bin.resolve("gpusched");
        Files.writeString(cli, "#!/bin/sh\nexec " + ServeDaemon.java() + " -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
                + " -XX:-UsePerfData -cp " + cp + " " + Main.class.getName() + " \"$@\"\n");
        Files.setPosixFilePermissions(cli, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (Files.isExecutable(Path.of("/usr/bin/python3")) && !Files.exists(Path.of("/usr/bin/python"))) {
            // The tools' users type python; where the system names it python3 only, their PATH says python too.
            Files.createSymbolicLink(bin.resolve("python"), Path.of("/usr/bin/python3"));
        }
        Path homes = Files.createDirectories(root.resolve("home"));
        for (String u : t.users()) {
            UnixUsers.ownDir(u, homes.resolve(u));
        }
        Files.createDirectories(homes.resolve("root"));
        List<Step> seen = new ArrayList<>();
        String serve = t.serve().replace("/home/", homes + "/");
        try (ServeDaemon daemon = new ServeDaemon(root, serve.isBlank() ? new String[0] : serve.split("\\s+"))) {
            daemon.start();
            Files.setPosixFilePermissions(root.resolve("run"), PosixFilePermissions.fromString("rwxr-xr-x"));
            for (Step s : t.steps()) {
                seen.add(new Step(s.user(), s.command(), printed(s, bin, homes, daemon.socket())));
            }
        } finally {
            UnixUsers.remove(created);
        }
        return seen;
    }

    /** What one step prints, with the test's directories written as the page's ({@code /home/USER}). */
    private static List<String> printed(Step s, Path bin, Path homes, Path socket) throws Exception {
        Path home = homes.resolve(s.user());
        String command = s.command().replace("/home/", homes + "/");
        List<String> argv = "root".equals(s.user()) ? new ArrayList<>(List.of("/bin/sh", "-c", command))
                : UnixUsers.setpriv(s.user(), "/bin/sh", "-c", command);
        ProcessBuilder pb = new ProcessBuilder(argv).directory(home.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", bin + ":/usr/local/bin:/usr/bin:/bin");
        pb.environment().put("HOME", home.toString());
        pb.environment().put("USER", s.user());
        pb.environment().put("LANG", "C.UTF-8");
        pb.environment().put("COLUMNS", "100");
        pb.environment().put("GPUSCHED_SOCKET", socket.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), prompt(s) + " did not end");
        out = out.replace(homes.toString(), "/home").replace(socket.toString(), "/run/gpusched/gpusched.sock");
        List<String> lines = new ArrayList<>(List.of(out.split("\n", -1)));
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        return lines;
    }
}

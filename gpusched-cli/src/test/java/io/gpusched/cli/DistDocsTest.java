package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The man page and the completions, made from the help texts: nothing documented is missing from them. */
class DistDocsTest {
    @TempDir
    Path dir;

    @Test
    void theManPageHasEveryRunOptionAsAnEntry_andEveryVerbsHelp() {
        String man = DistDocs.manPage("9.9");
        assertTrue(man.contains(".TH GPUSCHED 1 \"\" \"gpusched 9.9\""), man);
        for (HelpText.Option o : HelpText.options(CliArgs.help(false))) {
            assertTrue(man.contains("\\fB\\-\\-" + ManPage.escape(o.name()) + "\\fR"), o.name());
        }
        for (String section : List.of(".SH SYNOPSIS", ".SH OPTIONS", ".SH \"EXIT STATUS\"", ".SH COMMANDS",
                ".SS \"gpusched srun\"", ".SS \"gpusched top\"", ".SH \"CONFIGURATION FILE\"")) {
            assertTrue(man.contains(section), section);
        }
        // a line of help text starting with a dot would be a roff request
        assertTrue(man.lines().filter(l -> l.startsWith(".")).allMatch(l -> l.matches("\\.(\\\\\"|TH|SH|SS|PP|TP|nf|fi|I|BR) ?.*")),
                man);
    }

    @Test
    void groffReadsTheManPageWithoutAWarning() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/groff")), "skipped: groff is not installed");
        Path page = dir.resolve("gpusched.1");
        Files.writeString(page, DistDocs.manPage("9.9"));
        Process p = new ProcessBuilder("groff", "-man", "-ww", "-z", page.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals("", out);
        assertEquals(0, p.exitValue());
    }

    @Test
    void verbsComeFromTheUsageLines() {
        assertEquals(Set.of("status", "stats", "help", "version", "simulate", "serve", "submit", "queue", "cancel", "logs",
                "attach", "pause", "resume", "dashboard", "show", "drain", "doctor", "top", "convert", "info", "srun"), DistDocs.completionModel().verbs());
    }

    /** What bash's completion offers for a command line whose last word is being typed. */
    private List<String> bashCompletes(String... words) throws IOException, InterruptedException {
        Path script = dir.resolve("gpusched.bash");
        Files.writeString(script, Completion.bash(DistDocs.completionModel()));
        StringBuilder array = new StringBuilder();
        for (String w : words) {
            array.append(" '").append(w).append('\'');
        }
        String cmd = "cd '" + dir + "' && source '" + script + "' && COMP_WORDS=(gpusched" + array + ") && COMP_CWORD="
                + words.length + " && _gpusched && printf '%s\\n' \"${COMPREPLY[@]}\"";
        Process p = new ProcessBuilder("bash", "-c", cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out.lines().filter(l -> !l.isEmpty()).toList();
    }

    @Test
    void bashCompletesVerbsOptionsPerVerbAndPathsForPathOptions() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "skipped: bash is not installed");
        assertEquals(List.of("submit"), bashCompletes("sub"));
        assertEquals(List.of("--exclusive"), bashCompletes("--exc"));
        assertEquals(List.of("--all"), bashCompletes("queue", "--a"));
        assertEquals(List.of("--admin-group"), bashCompletes("serve", "--adm"));
        assertEquals(List.of("--config"), bashCompletes("serve", "--conf"));
        assertEquals(List.of("--vram"), bashCompletes("submit", "--vr"));
        Files.createDirectories(dir.resolve("logs-here"));
        Files.writeString(dir.resolve("logs-file"), "");
        assertEquals(List.of("logs-here"), bashCompletes("serve", "--log-dir", "logs-"));
        assertEquals(List.of("logs-file", "logs-here"), bashCompletes("serve", "--jobs", "logs-").stream().sorted().toList());
    }

    @Test
    void zshParsesItsCompletion() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/zsh")) || Files.isExecutable(Path.of("/bin/zsh")),
                "skipped: zsh is not installed (Debian's zsh package)");
        Path script = dir.resolve("_gpusched");
        Files.writeString(script, Completion.zsh(DistDocs.completionModel()));
        Process p = new ProcessBuilder("zsh", "-n", script.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
    }

    @Test
    void pathOptionsAreKnownFromTheirValueNames() {
        Completion.Model m = DistDocs.completionModel();
        assertTrue(m.dirOptions().contains("--log-dir"), m.dirOptions().toString());
        for (String f : List.of("--jobs", "--socket", "--config", "--requirements", "--events", "--output")) {
            assertTrue(m.fileOptions().contains(f), f + " in " + m.fileOptions());
        }
    }

    @Test
    void submitAndSrunCompleteEveryAttributeFlag_fromTheSpecsTheParserUses_inBashZshAndFish() throws Exception {
        Completion.Model m = DistDocs.completionModel();
        String fish = Completion.fish(m);
        for (io.gpusched.jobs.Attribute a : io.gpusched.jobs.Attribute.ALL) {
            a.flag().ifPresent(f -> {
                for (String verb : List.of("submit", "srun")) {
                    assertTrue(m.verbOptions().get(verb).contains(f.option()), verb + " " + f.option());
                    assertTrue(fish.contains("complete -c gpusched -n '__fish_seen_subcommand_from " + verb + "' -l "
                            + f.option().substring(2) + "\n"), verb + " " + f.option() + " in fish");
                }
            });
        }
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "skipped: bash is not installed");
        assertEquals(List.of("--on-timeout"), bashCompletes("srun", "--on-t"));
        assertEquals(List.of("--preemptible"), bashCompletes("submit", "--pree"));
    }
    @Test
    void serveAndARunAreCompletedAndManPagedFromTheSpecsTheirParserUses() throws Exception {
        Completion.Model m = DistDocs.completionModel();
        Set<String> serve = new java.util.LinkedHashSet<>();
        CliArgs.spec(true).options().forEach(o -> serve.addAll(List.of(o.names())));
        Set<String> run = new java.util.LinkedHashSet<>();
        CliArgs.spec(false).options().forEach(o -> run.addAll(List.of(o.names())));
        assertEquals(serve, m.verbOptions().get("serve"));
        assertEquals(run, m.runOptions());
        assertTrue(serve.contains("--stop-jobs-on-exit") && !run.contains("--stop-jobs-on-exit"), run.toString());
        String man = DistDocs.manPage("9.9");
        assertTrue(man.contains(".SS \"gpusched serve\""), man);
        for (String option : serve) {
            if (option.startsWith("--")) {
                assertTrue(man.contains("\\fB\\-\\-" + ManPage.escape(option.substring(2)) + "\\fR"), option);
            }
        }
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "skipped: bash is not installed");
        assertEquals(List.of("--stop-jobs-on-exit"), bashCompletes("serve", "--stop-j"));
        assertEquals(List.of(), bashCompletes("--stop-j"), "a run does not take serve's own options");
    }
}

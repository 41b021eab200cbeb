package io.gpusched.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes what the packages ship beside the jar, all made from the option specs the CLI parses with and the
 * help texts it prints, so none is a second copy kept by hand: the man page {@code gpusched.1}, {@code gpusched.bash} and {@code _gpusched}
 * (completion), {@code gpusched.fish}, and the commented example {@code gpusched.conf}. gpusched-dist's build runs it:
 * {@code java -cp gpusched.jar io.gpusched.cli.DistDocs OUT_DIR VERSION}.
 */
final class DistDocs {
    private static final Pattern DEFAULT = Pattern.compile("\\[([0-9][^\\]\\s;]*)]");

    private DistDocs() {
    }

    /**
     * @param args the directory to write into (made if missing) and the version for the man page
     * @throws IOException when a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: DistDocs OUT_DIR VERSION");
            System.exit(Cli.USAGE);
        }
        Path out = Files.createDirectories(Path.of(args[0]));
        Files.writeString(out.resolve("gpusched.1"), manPage(args[1]), StandardCharsets.UTF_8);
        Completion.Model model = completionModel();
        Files.writeString(out.resolve("gpusched.bash"), Completion.bash(model), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("_gpusched"), Completion.zsh(model), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("gpusched.fish"), Completion.fish(model), StandardCharsets.UTF_8);
        Files.writeString(out.resolve("gpusched.conf"), exampleConfig(), StandardCharsets.UTF_8);
    }

    /** The verbs declared with picocli, each with its spec: their man page sections and completions come from it. */
    static Map<String, picocli.CommandLine.Model.CommandSpec> specs() {
        Map<String, picocli.CommandLine.Model.CommandSpec> specs = new LinkedHashMap<>();
        specs.put("serve", CliArgs.spec(true));
        ClientOptions.VERBS.forEach(v -> specs.put(v, ClientOptions.spec(v)));
        specs.put("top", TopCommand.spec());
        specs.put("status", StatusCommand.spec());
        specs.put("stats", StatsCommand.spec());
        specs.put("simulate", SimulateCommand.spec());
        specs.put("doctor", DoctorCommand.spec());
        specs.put("convert", ConvertCommand.spec());
        return specs;
    }

    static String manPage(String version) {
        List<ManPage.Section> commands = new ArrayList<>();
        specs().forEach((verb, spec) -> commands.add(new ManPage.Section("gpusched " + verb,
                verb.equals("serve") ? serveSection() : ClientOptions.usage(spec))));
        commands.add(new ManPage.Section("gpusched --executor slurm", SlurmCommand.USAGE));
        return ManPage.render(version, CliArgs.help(false), commands, ServeConfig.HELP);
    }

    /** serve's help less its configuration file paragraph, which the man page has as a section of its own. */
    private static String serveSection() {
        String help = CliArgs.help(true);
        int file = help.indexOf("\n\nConfiguration file:");
        return (file < 0 ? help : help.substring(0, file)) + "\n\nIts configuration file: see CONFIGURATION FILE.";
    }

    static Completion.Model completionModel() {
        return Completion.model(CliArgs.spec(false), specs());
    }

    /**
     * Every key the file takes, commented out with its description and its default (or the value's name),
     * under the file format's description: uncommenting a line is all it takes.
     */
    static String exampleConfig() {
        StringBuilder out = new StringBuilder();
        out.append("# gpusched serve's options: /etc/gpusched/gpusched.conf is read by the root daemon (gpusched.service).\n");
        out.append("# Generated from gpusched --help; every option below is commented out, so its default applies.\n");
        out.append("# Restart the daemon to apply a change.\n#\n");
        ServeConfig.HELP.lines().forEach(l -> out.append("# ").append(l).append('\n'));
        Map<String, Optional<String>> keys = ServeConfig.keys();
        for (picocli.CommandLine.Model.OptionSpec o : CliArgs.spec(true).options()) {
            String key = o.longestName().substring(2);
            if (!keys.containsKey(key)) {
                continue;
            }
            String description = String.join(" ", o.description()).replace("%%", "%");
            Optional<String> metavar = keys.get(key);
            out.append("\n");
            wrap(out, "--" + key + metavar.map(m -> " " + m).orElse("") + ": " + description);
            // The default when it is a value the option takes (a number or duration, not "all" or "off").
            String example = metavar.orElse("");
            for (Matcher d = DEFAULT.matcher(description); d.find(); ) {
                example = d.group(1);
            }
            out.append('#').append(key).append(metavar.isEmpty() ? "" : " = " + example).append('\n');
        }
        return out.toString();
    }

    /** A description as {@code #} lines of at most about 100 columns. */
    private static void wrap(StringBuilder out, String text) {
        StringBuilder line = new StringBuilder("#");
        for (String word : text.split(" ")) {
            if (line.length() > 1 && line.length() + 1 + word.length() > 100) {
                out.append(line).append('\n');
                line = new StringBuilder("#");
            }
            line.append(' ').append(word);
        }
        out.append(line).append('\n');
    }
}

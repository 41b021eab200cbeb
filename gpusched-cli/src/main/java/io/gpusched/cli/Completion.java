package io.gpusched.cli;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Bash, zsh and fish completion for gpusched, made at build time (see {@link DistDocs}): the verbs from
 * {@link Verbs}, the client verbs' and srun's options from their picocli specs ({@link ClientOptions}),
 * the other verbs' from their help texts, and which options take a file or directory from the value
 * names given them ({@code --log-dir DIR}).
 */
final class Completion {
    /** What gets completed: the verbs, the options of a plain run, each verb's options, the path-valued ones. */
    record Model(Set<String> verbs, Set<String> runOptions, Map<String, Set<String>> verbOptions,
                 Set<String> fileOptions, Set<String> dirOptions, Set<String> commandVerbs) {
    }

    private static final Pattern PATH_OPTION = Pattern.compile("(?<![\\w-])(--[a-z][a-z0-9-]*)[ =](FILE|PATH|JOURNAL|DIR)\\b");

    private Completion() {
    }

    /**
     * @param main the run's help ({@link CliArgs#HELP}), whose option lines are a run's and serve's options
     * @param specs the verbs declared with picocli, each with its spec (the one its parser uses)
     * @param ownHelp the verbs with a hand-written help text of their own, each with it
     */
    static Model model(String main, Map<String, picocli.CommandLine.Model.CommandSpec> specs, Map<String, String> ownHelp) {
        Set<String> verbs = new LinkedHashSet<>();
        Verbs.ALL.forEach(v -> verbs.add(v.name()));
        Set<String> run = new LinkedHashSet<>();
        for (HelpText.Option o : HelpText.options(main)) {
            o.letter().ifPresent(c -> run.add("-" + c));
            run.add("--" + o.name());
        }
        Map<String, Set<String>> perVerb = new LinkedHashMap<>();
        Set<String> serve = new LinkedHashSet<>(run);
        HelpText.usageOptions(main).getOrDefault("serve", Set.of()).forEach(o -> serve.add("--" + o));
        perVerb.put("serve", serve);
        Set<String> files = new TreeSet<>();
        Set<String> dirs = new TreeSet<>();
        // The verbs declared with picocli: their specs, the same the parser uses.
        for (Map.Entry<String, picocli.CommandLine.Model.CommandSpec> e : specs.entrySet()) {
            String verb = e.getKey();
            Set<String> s = new LinkedHashSet<>();
            for (picocli.CommandLine.Model.OptionSpec o : e.getValue().options()) {
                s.addAll(List.of(o.names()));
                String label = o.paramLabel();
                if (label.equals("DIR")) {
                    dirs.add(o.longestName());
                } else if (label.equals("PATH") || label.equals("FILE")) {
                    files.add(o.longestName());
                }
            }
            perVerb.put(verb, s);
        }
        ownHelp.forEach((verb, help) -> {
            // Its option lines where it has them (the prose names other tools' options too), else its usage.
            Set<String> s = new LinkedHashSet<>();
            HelpText.usageOptions(help).values().forEach(os -> os.forEach(o -> s.add("--" + o)));
            for (HelpText.Option o : HelpText.options(help)) {
                o.letter().ifPresent(c -> s.add("-" + c));
                s.add("--" + o.name());
            }
            perVerb.put(verb, s);
        });
        for (String text : concat(main, ownHelp)) {
            Matcher m = PATH_OPTION.matcher(text);
            while (m.find()) {
                (m.group(2).equals("DIR") ? dirs : files).add(m.group(1));
            }
        }
        files.removeAll(dirs);
        return new Model(verbs, run, perVerb, files, dirs, Set.of("submit", "srun"));
    }

    private static List<String> concat(String main, Map<String, String> own) {
        List<String> all = new java.util.ArrayList<>(List.of(main));
        all.addAll(own.values());
        return all;
    }

    /** The bash script: {@code complete -F _gpusched gpusched}. */
    static String bash(Model m) {
        StringBuilder out = new StringBuilder();
        out.append("# bash completion for gpusched. Generated from its --help texts by io.gpusched.cli.Completion; do not edit.\n");
        out.append("_gpusched() {\n");
        out.append("    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} verb=${COMP_WORDS[1]} i opts\n");
        out.append("    case $prev in\n");
        if (!m.dirOptions().isEmpty()) {
            out.append("        ").append(String.join("|", m.dirOptions())).append(")\n");
            out.append("            COMPREPLY=($(compgen -d -- \"$cur\")); return 0 ;;\n");
        }
        if (!m.fileOptions().isEmpty()) {
            out.append("        ").append(String.join("|", m.fileOptions())).append(")\n");
            out.append("            COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;\n");
        }
        out.append("    esac\n");
        out.append("    if [ \"$COMP_CWORD\" -eq 1 ]; then\n");
        out.append("        COMPREPLY=($(compgen -W \"").append(words(m.verbs())).append(' ')
                .append(words(m.runOptions())).append("\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n");
        out.append("        return 0\n    fi\n");
        out.append("    case $verb in\n        ").append(String.join("|", m.commandVerbs())).append(")\n");
        out.append("            # the command after --, as for a shell prompt\n");
        out.append("            for ((i = 2; i < COMP_CWORD; i++)); do\n");
        out.append("                if [ \"${COMP_WORDS[i]}\" = -- ]; then COMPREPLY=($(compgen -c -f -- \"$cur\")); return 0; fi\n");
        out.append("            done ;;\n    esac\n");
        out.append("    case $verb in\n");
        m.verbOptions().forEach((verb, options) ->
                out.append("        ").append(verb).append(") opts=\"").append(words(options)).append("\" ;;\n"));
        out.append("        *) opts=\"").append(words(m.runOptions())).append("\" ;;\n");
        out.append("    esac\n");
        out.append("    if [[ $cur == -* ]]; then\n");
        out.append("        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n");
        out.append("    else\n");
        out.append("        COMPREPLY=($(compgen -f -- \"$cur\"))\n");
        out.append("    fi\n");
        out.append("    return 0\n"); // compgen's 1 for no match is not a failure
        out.append("}\n");
        out.append("complete -o filenames -F _gpusched gpusched\n");
        return out.toString();
    }

    /** The zsh script, a {@code #compdef gpusched} function file named {@code _gpusched}. */
    static String zsh(Model m) {
        StringBuilder out = new StringBuilder();
        out.append("#compdef gpusched\n");
        out.append("# zsh completion for gpusched. Generated from its --help texts by io.gpusched.cli.Completion; do not edit.\n");
        out.append("_gpusched() {\n");
        out.append("    local -a verbs opts\n");
        out.append("    verbs=(").append(words(m.verbs())).append(")\n");
        out.append("    case ${words[CURRENT-1]} in\n");
        if (!m.dirOptions().isEmpty()) {
            out.append("        (").append(String.join("|", m.dirOptions())).append(") _directories; return ;;\n");
        }
        if (!m.fileOptions().isEmpty()) {
            out.append("        (").append(String.join("|", m.fileOptions())).append(") _files; return ;;\n");
        }
        out.append("    esac\n");
        out.append("    if (( CURRENT == 2 )); then\n");
        out.append("        opts=(").append(words(m.runOptions())).append(")\n");
        out.append("        _alternative 'verbs:verb:compadd -a verbs' 'options:option:compadd -a opts' 'files:jobs file:_files'\n");
        out.append("        return\n    fi\n");
        out.append("    if [[ ${words[2]} == (").append(String.join("|", m.commandVerbs()))
                .append(") ]] && (( ${words[(I)--]} > 0 && ${words[(I)--]} < CURRENT )); then\n");
        out.append("        _command_names -e; return\n    fi\n");
        out.append("    case ${words[2]} in\n");
        m.verbOptions().forEach((verb, options) ->
                out.append("        (").append(verb).append(") opts=(").append(words(options)).append(") ;;\n"));
        out.append("        (*) opts=(").append(words(m.runOptions())).append(") ;;\n");
        out.append("    esac\n");
        out.append("    if [[ $PREFIX == -* ]]; then\n        compadd -a opts\n    else\n        _files\n    fi\n");
        out.append("}\n");
        out.append("_gpusched \"$@\"\n");
        return out.toString();
    }

    /** The fish script, {@code gpusched.fish} for {@code ~/.config/fish/completions/} or the vendor directory. */
    static String fish(Model m) {
        StringBuilder out = new StringBuilder();
        out.append("# fish completion for gpusched. Generated by io.gpusched.cli.Completion; do not edit.\n");
        out.append("complete -c gpusched -f\n");
        out.append("complete -c gpusched -n __fish_use_subcommand -a '").append(words(m.verbs())).append("'\n");
        out.append("complete -c gpusched -n __fish_use_subcommand -F\n");
        m.verbOptions().forEach((verb, options) -> {
            for (String o : options) {
                out.append("complete -c gpusched -n '__fish_seen_subcommand_from ").append(verb).append("' ")
                        .append(o.startsWith("--") ? "-l " + o.substring(2) : "-s " + o.substring(1));
                if (m.dirOptions().contains(o)) {
                    out.append(" -r -a '(__fish_complete_directories)'");
                } else if (m.fileOptions().contains(o)) {
                    out.append(" -r -F");
                }
                out.append('\n');
            }
        });
        for (String o : m.runOptions()) {
            if (o.startsWith("--")) {
                out.append("complete -c gpusched -n __fish_use_subcommand -l ").append(o.substring(2)).append('\n');
            }
        }
        out.append("complete -c gpusched -n '__fish_seen_subcommand_from ").append(words(m.commandVerbs()))
                .append("' -a '(__fish_complete_subcommand --fcs-skip=2)'\n");
        return out.toString();
    }

    private static String words(Set<String> words) {
        return String.join(" ", words);
    }
}

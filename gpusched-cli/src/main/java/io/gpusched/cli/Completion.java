package io.gpusched.cli;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Bash, zsh and fish completion for gpusched, made at build time (see {@link DistDocs}): the verbs from
 * {@link Verbs}, every verb's options (and a jobs-file run's) from the picocli specs their parsers use,
 * and which options take a file or directory from the value names given them ({@code --log-dir DIR}).
 */
final class Completion {
    /** What gets completed: the verbs, the options of a plain run, each verb's options, the path-valued ones. */
    record Model(Set<String> verbs, Set<String> runOptions, Map<String, Set<String>> verbOptions,
                 Set<String> fileOptions, Set<String> dirOptions, Set<String> commandVerbs) {
    }

    /** Value names that stand for a file ({@code FILE.svg} too); {@code DIR} stands for a directory. */
    private static final Pattern FILE_LABEL = Pattern.compile("(?:FILE|PATH|JOURNAL)(?:\\..*)?");

    private Completion() {
    }

    /**
     * @param run a jobs-file run's spec ({@link CliArgs#spec(boolean)}): the options offered after bare {@code gpusched}
     * @param specs every verb's spec, serve's included (the one its parser uses)
     */
    static Model model(CommandSpec run, Map<String, CommandSpec> specs) {
        Set<String> verbs = new LinkedHashSet<>();
        Verbs.ALL.forEach(v -> verbs.add(v.name()));
        Set<String> files = new TreeSet<>();
        Set<String> dirs = new TreeSet<>();
        Set<String> runOptions = options(run, files, dirs);
        Map<String, Set<String>> perVerb = new LinkedHashMap<>();
        specs.forEach((verb, spec) -> perVerb.put(verb, options(spec, files, dirs)));
        files.removeAll(dirs);
        return new Model(verbs, runOptions, perVerb, files, dirs, Set.of("submit", "srun"));
    }

    /** A spec's option names; the path-valued ones also go to {@code files} or {@code dirs}, by their value's name. */
    private static Set<String> options(CommandSpec spec, Set<String> files, Set<String> dirs) {
        Set<String> names = new LinkedHashSet<>();
        for (OptionSpec o : spec.options()) {
            names.addAll(List.of(o.names()));
            if (o.arity().max() > 0 && o.paramLabel().equals("DIR")) {
                dirs.add(o.longestName());
            } else if (o.arity().max() > 0 && FILE_LABEL.matcher(o.paramLabel()).matches()) {
                files.add(o.longestName());
            }
        }
        return names;
    }

    /** The bash script: {@code complete -F _gpusched gpusched}. */
    static String bash(Model m) {
        StringBuilder out = new StringBuilder();
        out.append("# bash completion for gpusched. Generated from its option specs by io.gpusched.cli.Completion; do not edit.\n");
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
        out.append("# zsh completion for gpusched. Generated from its option specs by io.gpusched.cli.Completion; do not edit.\n");
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

package io.gpusched.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the CLI's own help texts as data, so the man page, the shell completions and the configuration
 * file's keys come from the text {@code --help} prints, and no second copy of an option list is kept by hand.
 *
 * <p>A help text is lines: usage lines first ({@code usage: gpusched VERB ...}, then lines indented to
 * line up under it), paragraphs, and option lines ({@code "  --name METAVAR   description"}, continued
 * by lines indented further). Blocks are separated by blank lines.
 */
final class HelpText {
    /** One documented option: its long name without {@code --}, its short letter, its value's name. */
    record Option(String name, Optional<Character> letter, Optional<String> metavar, String description) {
        /** Whether the option takes no value ({@code --exclusive}). */
        boolean flag() {
            return metavar.isEmpty();
        }

        /** Whether its value names a file or directory (the completions then offer paths). */
        boolean takesPath() {
            return metavar.map(m -> m.matches("(?:FILE|DIR|PATH|JOURNAL)(?:\\..*)?")).orElse(false);
        }
    }

    /** An option line: two spaces, maybe {@code -x, }, {@code --name}, maybe one space and a value, two spaces. */
    private static final Pattern OPTION_LINE =
            Pattern.compile("^  (?:-([a-zA-Z]), )?--([a-z][a-z0-9-]*)(?:[ =](\\S+))?(?: {2,}(.*)|$)");
    /** A word naming a verb after {@code gpusched } in a usage line: {@code submit|queue}, {@code help | version}. */
    private static final Pattern USAGE_VERBS = Pattern.compile("^(?:usage:)? +gpusched ([a-z]+(?: ?\\| ?[a-z]+)*)\\b");
    private static final Pattern NAMED_VERBS = Pattern.compile("(?:^|\\| +)gpusched ([a-z]+(?:\\|[a-z]+)*)\\b");
    private static final Pattern LONG_OPTION = Pattern.compile("(?<![\\w-])--([a-z][a-z0-9-]*)");

    private HelpText() {
    }

    /** The blocks of a help text: runs of non-blank lines. */
    static List<List<String>> blocks(String help) {
        List<List<String>> out = new ArrayList<>();
        List<String> block = new ArrayList<>();
        for (String line : help.split("\n", -1)) {
            if (line.isBlank()) {
                if (!block.isEmpty()) {
                    out.add(block);
                    block = new ArrayList<>();
                }
            } else {
                block.add(line);
            }
        }
        if (!block.isEmpty()) {
            out.add(block);
        }
        return out;
    }

    /** Whether {@code line} starts an option's entry. */
    static boolean isOptionLine(String line) {
        return OPTION_LINE.matcher(line).find();
    }

    /** The options of a help text's option lines, in the order documented; continuation lines join the description. */
    static List<Option> options(String help) {
        List<Option> out = new ArrayList<>();
        String[] lines = help.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = OPTION_LINE.matcher(lines[i]);
            if (!m.find()) {
                continue;
            }
            StringBuilder description = new StringBuilder(m.group(4) == null ? "" : m.group(4).strip());
            while (i + 1 < lines.length && lines[i + 1].startsWith("    ") && !isOptionLine(lines[i + 1])) {
                description.append(description.length() == 0 ? "" : " ").append(lines[++i].strip());
            }
            out.add(new Option(m.group(2), Optional.ofNullable(m.group(1)).map(s -> s.charAt(0)),
                    Optional.ofNullable(m.group(3)), description.toString()));
        }
        return out;
    }

    /**
     * The verbs the usage lines name, in order: {@code gpusched serve ...} gives serve, {@code gpusched
     * submit|queue ...} both. Only lines that start a usage entry count, not the prose.
     */
    static Set<String> verbs(String help) {
        Set<String> out = new LinkedHashSet<>();
        for (String line : help.split("\n", -1)) {
            Matcher m = USAGE_VERBS.matcher(line);
            if (m.find()) {
                for (String v : m.group(1).split(" ?\\| ?")) {
                    out.add(v);
                }
            }
        }
        return out;
    }

    /**
     * Each verb's usage entry in a help text (its usage line and the lines continuing it), as the
     * {@code --options} it names: {@code gpusched queue [--user U|me] [--all] [--json]} gives queue
     * user, all and json, in order. A line's description column (after three spaces) does not count.
     */
    static Map<String, Set<String>> usageOptions(String help) {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        List<String> current = List.of();
        for (String line : help.split("\n", -1)) {
            if (line.isBlank()) {
                break; // the usage block ends at the first blank line
            }
            String syntax = line.replaceFirst("^usage:", "").strip().split(" {3,}")[0];
            Matcher verb = NAMED_VERBS.matcher(syntax);
            while (verb.find()) {
                // "gpusched pause GPU...  |  gpusched resume GPU...": each entry its own verbs
                current = List.of(verb.group(1).split(" ?\\| ?"));
                current.forEach(v -> out.putIfAbsent(v, new LinkedHashSet<>()));
            }
            Matcher opt = LONG_OPTION.matcher(syntax);
            while (opt.find()) {
                for (String v : current) {
                    out.get(v).add(opt.group(1));
                }
            }
        }
        return out;
    }

    /** Every {@code --option} a text names anywhere, in order of first mention. */
    static Set<String> mentionedOptions(String text) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = LONG_OPTION.matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}

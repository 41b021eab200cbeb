package io.gpusched.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the CLI's own help texts as data, so the man page comes from the text {@code --help} prints, and no
 * second copy of an option list is kept by hand (the completions and the configuration file's keys read the
 * picocli specs themselves).
 *
 * <p>A help text is lines: usage lines first ({@code usage: gpusched VERB ...}, then lines indented to
 * line up under it), paragraphs, and option lines ({@code "  --name METAVAR   description"}, continued
 * by lines indented further). Blocks are separated by blank lines.
 */
final class HelpText {
    /** One documented option: its long name without {@code --}, its short letter, its value's name. */
    record Option(String name, Optional<Character> letter, Optional<String> metavar, String description) {
    }

    /** An option line: two spaces, maybe {@code -x, }, {@code --name}, maybe one space and a value, two spaces. */
    private static final Pattern OPTION_LINE =
            Pattern.compile("^  (?:-([a-zA-Z]), )?--([a-z][a-z0-9-]*)(?:[ =](\\S+))?(?: {2,}(.*)|$)");

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
}

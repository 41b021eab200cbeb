package io.gpusched.cli;

import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobsFileParser;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The options of {@code gpusched submit} and {@code gpusched srun} that set a job attribute, made from
 * the attribute table ({@link Attribute}): {@code --KEY VALUE} (or {@code --KEY} for a bare word) for each
 * row with a {@linkplain Attribute#flag() flag}. Both verbs read them here, so they name the same
 * attributes with the same options, and write the same job line: a block of {@code key=value} tokens,
 * each value quoted as the block reads it back ({@link JobsFileParser#quote}), then the command.
 * {@code srun} refuses the rows that act when the daemon launches the command
 * ({@link Attribute#daemonLaunch()}): it runs its command itself.
 */
final class AttributeOptions {
    /** Where an option line's description starts, as in the other option lists. */
    private static final int DESCRIPTION_COLUMN = 22;

    private final List<String> tokens = new ArrayList<>();

    /**
     * @param option a word of the command line, e.g. {@code --vram}
     * @return the attribute it sets; empty when it is not an attribute's option
     */
    static Optional<Attribute> of(String option) {
        if (!option.startsWith("--")) {
            return Optional.empty();
        }
        return Attribute.forKey(option.substring(2))
                .filter(a -> a.flag().filter(f -> f.option().equals(option)).isPresent());
    }

    /**
     * Adds an attribute's token from the command line.
     *
     * @param attribute the attribute the option at {@code i} sets
     * @param args the command line's words
     * @param i where the option is
     * @return the index of the last word used: {@code i}, or {@code i + 1} for the value
     * @throws UsageException if the option needs a value and none follows
     */
    int add(Attribute attribute, List<String> args, int i) {
        if (attribute.bare()) {
            tokens.add(attribute.key());
            return i;
        }
        if (i + 1 >= args.size()) {
            throw new UsageException(args.get(i) + " needs a value");
        }
        tokens.add(attribute.key() + "=" + JobsFileParser.quote(args.get(i + 1)));
        return i + 1;
    }

    /**
     * @param command the shell command
     * @return the job line: the attributes given, in the order given, then the command; an empty block
     *     when there are none, so a command starting with {@code [} or {@code #} stays the command
     */
    String line(String command) {
        return "[" + String.join(" ", tokens) + "] " + command;
    }

    /** @return whether {@code gpusched srun} takes the attribute's option */
    static boolean forSrun(Attribute a) {
        return !a.daemonLaunch();
    }

    /**
     * @param which the rows to list
     * @return the usage entries of those with an option, in table order: {@code [--vram 18G]}, {@code [--tty]}
     */
    static List<String> usage(Predicate<Attribute> which) {
        List<String> out = new ArrayList<>();
        for (Attribute a : Attribute.ALL) {
            if (which.test(a)) {
                a.flag().ifPresent(f -> out.add("[" + f.option() + f.metavar().map(m -> " " + m).orElse("") + "]"));
            }
        }
        return out;
    }

    /**
     * @param which the rows to list
     * @param letters a short option for a row's option, e.g. {@code -n} for {@code --gpus}; may be empty
     * @param note what to add to a row's help, e.g. {@code (submit only)}; empty for nothing
     * @return the option lines of those with an option, in table order, one per line:
     *     {@code "  --vram 18G          GPU memory per GPU ..."}
     */
    static List<String> optionLines(Predicate<Attribute> which, java.util.Map<Attribute, String> letters,
                                    java.util.function.Function<Attribute, String> note) {
        List<String> out = new ArrayList<>();
        for (Attribute a : Attribute.ALL) {
            if (!which.test(a) || a.flag().isEmpty()) {
                continue;
            }
            Attribute.Flag f = a.flag().get();
            String name = "  " + (letters.containsKey(a) ? letters.get(a) + ", " : "") + f.option()
                    + f.metavar().map(m -> " " + m).orElse("");
            String extra = note.apply(a);
            out.add(name + " ".repeat(Math.max(2, DESCRIPTION_COLUMN - name.length())) + f.help()
                    + (extra.isEmpty() ? "" : " " + extra));
        }
        return out;
    }

    /**
     * @param first the usage line's start, e.g. {@code "       gpusched submit "}
     * @param entries the entries that follow, each kept whole on a line
     * @param width the longest line
     * @return the usage lines, continuations indented to line up under the first entry
     */
    static List<String> wrap(String first, List<String> entries, int width) {
        List<String> lines = new ArrayList<>();
        String indent = " ".repeat(first.length());
        StringBuilder line = new StringBuilder(first);
        for (String e : entries) {
            if (line.length() > indent.length() && line.length() + 1 + e.length() > width) {
                lines.add(line.toString());
                line = new StringBuilder(indent);
            }
            line.append(line.length() > indent.length() ? " " : "").append(e);
        }
        lines.add(line.toString());
        return lines;
    }
}

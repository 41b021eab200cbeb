package io.gpusched.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The words for two mistakes any option's value can make, said the same by every reader of a command line:
 * picocli's ({@link ClientOptions#parse}), a plain run's and serve's ({@link CliArgs#read}), serve's
 * {@code --config} before its file is read ({@link ServeConfig}), and {@code --executor slurm}'s
 * ({@link SlurmCommand}). Apart from {@link ClientOptions} so that a plain run, read without picocli, loads
 * none of picocli's classes to say them ({@code StartupTest}).
 */
final class OptionValues {
    private OptionValues() {
    }

    /**
     * The one line for an option given more than once: {@code --log-dir given twice (a, b): give it once}.
     * A value that is empty, or holds a blank, a comma or a parenthesis, is quoted.
     *
     * @param option the option's name
     * @param values the values given, in order (two or more)
     * @return the message, without the {@code gpusched: } prefix
     */
    static String givenTwice(String option, List<String> values) {
        List<String> shown = new ArrayList<>();
        for (String v : values) {
            shown.add(v.isEmpty() || v.matches(".*[\\s,()'].*") ? "'" + v + "'" : v);
        }
        return option + " given " + (values.size() == 2 ? "twice" : values.size() + " times") + " ("
                + String.join(", ", shown) + "): give it once";
    }

    /**
     * What an option whose value names a file, a directory, a command, a user or a group gets told when
     * that value is empty or blank (an unset variable, most often), by the name of its value:
     * {@code --on-finish ''} did nothing, {@code --events ''} said {@code cannot write : : Is a directory},
     * {@code --socket ''} looked for a daemon at {@code ""}. Numbers, durations and sizes have their own
     * words for it.
     */
    private static final Map<String, String> NEEDS = Map.ofEntries(Map.entry("DIR", "a directory"),
            Map.entry("FILE", "a file"), Map.entry("FILE.svg", "a file"), Map.entry("JOURNAL", "a file"),
            Map.entry("PATH", "a path"), Map.entry("CMD", "a command"), Map.entry("NAME", "a name"),
            Map.entry("G", "a group name"), Map.entry("U", "a user name"), Map.entry("U|me", "a user name or me"),
            Map.entry("SIZES", "memory sizes, e.g. 24000 or 24000,80G"));

    /**
     * The one line for an empty value of an option that names a file, directory, command, user or group:
     * {@code --on-finish needs a command, got '': give one, or leave --on-finish out}.
     *
     * @param option the option's name
     * @param label its value's name in the help ({@code FILE}, {@code DIR}, {@code CMD}, ...)
     * @param value the value given
     * @return the message (without the {@code gpusched: } prefix); empty when the value is not blank, or the
     *     option's value is not one of those kinds
     */
    static Optional<String> emptyValue(String option, String label, String value) {
        String needs = option.equals("--events") ? "a file (or - for standard output)" : NEEDS.get(label);
        if (needs == null || !value.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(option + " needs " + needs + ", got '" + value + "': give one, or leave " + option + " out");
    }
}

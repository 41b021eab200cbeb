package io.gpusched.jobs;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A program and its arguments written as one POSIX shell line that runs exactly them: what a jobs-file
 * line and the journal hold (every job's command is a line {@code /bin/sh -c} runs), for a command
 * given as words ({@code gpusched submit -- python3 -c 'print(1)'}, {@link JobSpec.Builder#argv}).
 * The one place commands given as words are quoted.
 *
 * <p>A word of only safe characters ({@code A-Z a-z 0-9 _ @ % + = : , . / -}) stays bare; any other goes
 * in single quotes, a {@code '} inside written as {@code '\''}; the empty word is {@code ''}. So no
 * word is split, globbed, expanded or read as an operator, whatever it holds.
 */
public final class ShellWords {
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private ShellWords() {
    }

    /**
     * @param word one word, any characters but NUL (which no argument can hold)
     * @return it as the shell reads it back as that one word: bare when safe, else single-quoted
     * @throws IllegalArgumentException if it holds a NUL character
     */
    public static String quote(String word) {
        Objects.requireNonNull(word, "word");
        if (word.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a command word cannot hold a NUL character");
        }
        if (SAFE.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /**
     * @param argv the program and its arguments; at least one word
     * @return the shell line that runs exactly them: each word {@linkplain #quote(String) quoted}, joined by
     *     single spaces
     * @throws IllegalArgumentException if {@code argv} is empty or a word holds a NUL character
     */
    public static String join(List<String> argv) {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("a command needs at least its program");
        }
        StringBuilder out = new StringBuilder();
        for (String w : argv) {
            out.append(out.length() == 0 ? "" : " ").append(quote(w));
        }
        return out.toString();
    }
}

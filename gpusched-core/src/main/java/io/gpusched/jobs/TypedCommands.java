package io.gpusched.jobs;

/**
 * What a command typed now (a jobs-file line, a submission) must be beyond the grammar: a line that a
 * shell, reading it as a line of a script, would run differently from the one whole job gpusched runs
 * with {@code /bin/sh -c}, is refused with its fix rather than run. Each rule is one that a line once
 * accepted may break: they are applied to new input only, never to a line read back from the journal
 * (see {@link JobSpec#parseRecorded(String)}), so a job an earlier version accepted is not judged again.
 *
 * <p>The rules: no carriage return (a file with CR line ends is one long line to an LF reader), no
 * other C0 control but TAB; a command that is more than a shell comment and does not start with
 * {@code ]} (a block's bracket too many); and no backslash escaping
 * the line end, as a shell continuation or as an escaped blank the end strips.
 */
final class TypedCommands {
    /** Characters after which a {@code #} starts a shell comment, besides the start of the command. */
    private static final String WORD_BREAKS = " \t;&|()<>";

    private TypedCommands() {
    }

    /**
     * The line less ASCII spaces and tabs at both ends: the blanks a shell reads as separators. Not
     * {@link String#strip()}, which also takes other Unicode whitespace, characters a shell keeps as
     * part of a word.
     */
    static String stripBlanks(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && isBlank(s.charAt(from))) {
            from++;
        }
        while (to > from && isBlank(s.charAt(to - 1))) {
            to--;
        }
        return s.substring(from, to);
    }

    /** @return the ASCII spaces and tabs that end {@code s}, which {@link #stripBlanks} takes off */
    static String trailingBlanks(String s) {
        int to = s.length();
        while (to > 0 && isBlank(s.charAt(to - 1))) {
            to--;
        }
        return s.substring(to);
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t';
    }

    /**
     * A carriage return in a command or a comment line: a file with CR line ends (old Mac style, some
     * generators) reaches the parser as one line, whose jobs would run as one command, or be skipped
     * unseen after a comment at its start.
     *
     * @param line the command, or the comment line less its line end (LF, or CRLF)
     */
    static void checkNoCr(String line, String source, int lineNo) {
        if (line.indexOf('\r') >= 0) {
            throw new JobSpecException(source, lineNo, line, "carriage return (CR) inside line:",
                    "a job is one line, ended by LF or CRLF; convert CR line ends with tr '\\r' '\\n'");
        }
    }

    /**
     * The checks on a command.
     *
     * @param command the command, stripped of blanks at both ends
     * @param blanksAfter the blanks after the command that the strip took, shown when they matter
     */
    static void check(String command, String blanksAfter, String source, int lineNo) {
        checkNoCr(command, source, lineNo);
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (c < 0x20 && c != '\t') {
                throw new JobSpecException(source, lineNo, command,
                        String.format("control character \\x%02x in command:", (int) c),
                        "write it as an escape the command reads, e.g. printf '\\033' for ESC; TAB is the one control"
                                + " character a command may hold as it is");
            }
        }
        if (command.charAt(0) == '#') {
            // After a block: the line was not skipped as a comment, but the shell would run nothing.
            throw new JobSpecException(source, lineNo, command, "the command is only a shell comment:",
                    "put '#' at the start of the line to skip it, or write the command before the '#'");
        }
        if (command.charAt(0) == ']') {
            // No program is called ']': the line's block has one ']' too many, and the shell would say
            // "]: not found" only once the job had its GPUs.
            throw new JobSpecException(source, lineNo, command, "the command starts with ']' (one too many after the"
                    + " attribute block?):", "remove the extra ']'");
        }
        if (endsInEscape(command)) {
            if (!blanksAfter.isEmpty()) {
                throw new JobSpecException(source, lineNo, command + blanksAfter,
                        "line ends with '\\' and a blank, which a shell reads as an escaped blank (and a line"
                                + " continuation with a stray blank after it looks the same):",
                        "quote a blank that is meant ('a '); for a continuation, join the next line onto this one, or put"
                                + " the command in a script");
            }
            throw new JobSpecException(source, lineNo, command,
                    "line ends with '\\' (a shell line continuation), but a job is one line:",
                    "join the next line onto this one, or put the command in a script");
        }
    }

    /**
     * Whether a shell reading the command as a line of a script would take its last character, a
     * backslash, as escaping what follows it: the line end, or a blank the strip took. A backslash
     * inside single quotes, escaped by another, or in a comment escapes nothing.
     */
    static boolean endsInEscape(String command) {
        int n = command.length();
        if (n == 0 || command.charAt(n - 1) != '\\') {
            return false;
        }
        char quote = 0;
        boolean wordStart = true;
        for (int i = 0; i < n; i++) {
            char c = command.charAt(i);
            if (quote == '\'') {
                quote = c == '\'' ? 0 : quote;
                continue;
            }
            if (c == '\\') {
                if (i == n - 1) {
                    return true;
                }
                i++;
                wordStart = false;
                continue;
            }
            if (quote == '"') {
                quote = c == '"' ? 0 : quote;
                continue;
            }
            if (c == '#' && wordStart) {
                return false;
            }
            if (c == '\'' || c == '"') {
                quote = c;
            }
            wordStart = WORD_BREAKS.indexOf(c) >= 0;
        }
        return false;
    }
}

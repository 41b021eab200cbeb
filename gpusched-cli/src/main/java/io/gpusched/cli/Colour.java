package io.gpusched.cli;

import java.io.PrintStream;

/** ANSI colour for log lines: only on a terminal, never with {@code NO_COLOR} set (https://no-color.org). */
final class Colour {
    private static final String YELLOW = "\u001b[33m";
    private static final String RESET = "\u001b[0m";

    private Colour() {
    }

    /** @return whether lines printed to {@code stream} may be coloured */
    static boolean enabled(PrintStream stream) {
        return enabled(stream, System.getenv("NO_COLOR"), System.console() != null);
    }

    static boolean enabled(PrintStream stream, String noColor, boolean terminal) {
        boolean std = stream == System.out || stream == System.err;
        return std && terminal && (noColor == null || noColor.isEmpty());
    }

    /** @return the line with a {@code WARN} line in yellow; others unchanged */
    static String paint(String line) {
        return line.startsWith("WARN") ? YELLOW + line + RESET : line;
    }
}

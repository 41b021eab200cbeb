package io.gpusched.cli;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The terminal {@code gpusched top} draws on, by hand rather than through a library: {@code stty} on
 * {@code /dev/tty} for key-at-a-time input, and a handful of ANSI escapes (alternate screen, cursor
 * position, colours). {@link #close} puts everything back and may be called from any path and any
 * thread, more than once.
 */
final class Terminal implements AutoCloseable {
    private static final String ENTER = "\u001b[?1049h\u001b[?25l\u001b[?7l\u001b[2J";
    private static final String LEAVE = "\u001b[0m\u001b[?7h\u001b[?25h\u001b[?1049l";
    private static final File TTY = new File("/dev/tty");

    /** @param rows the terminal's rows @param columns its columns */
    record Size(int rows, int columns) {
    }

    private final PrintStream out;
    private final String saved;
    private boolean open = true;

    private Terminal(PrintStream out, String saved) {
        this.out = out;
        this.saved = saved;
    }

    /**
     * Switches the terminal to key-at-a-time input without echo and with Ctrl-C as a key (so quitting
     * is ours to do, terminal restored first), and to its alternate screen, whose contents the
     * terminal throws away on {@link #close}, leaving the shell's screen as it was.
     *
     * @param utf8 whether the terminal takes UTF-8 (as the locale says, {@link QueueTable#utf8Locale}):
     *     then the frame is written in UTF-8, else in ASCII ({@link LocaleText}), a job's command included
     * @return the terminal, to close
     * @throws IOException when there is no terminal or stty fails
     */
    static Terminal open(boolean utf8) throws IOException {
        java.io.OutputStream fd = new java.io.FileOutputStream(java.io.FileDescriptor.out);
        PrintStream out = utf8 ? new PrintStream(fd, false, java.nio.charset.StandardCharsets.UTF_8)
                : LocaleText.ascii(new java.io.BufferedOutputStream(fd, 1 << 16));
        String saved = stty("-g").strip();
        stty("-icanon", "-echo", "-isig", "-ixon", "-iexten", "min", "1", "time", "0");
        Terminal t = new Terminal(out, saved);
        out.print(ENTER);
        out.flush();
        return t;
    }

    /** @return the terminal's size now, as the kernel knows it (so after every SIGWINCH) */
    /**
     * The width a table printed now may take: {@code COLUMNS} when it is set to a number, else the
     * terminal's own when standard output is one; empty when output goes to a file or a pipe.
     *
     * @return the columns, at least 1
     */
    static java.util.OptionalInt columns() {
        String env = System.getenv("COLUMNS");
        if (env != null && env.strip().matches("[0-9]{1,5}") && Integer.parseInt(env.strip()) > 0) {
            return java.util.OptionalInt.of(Integer.parseInt(env.strip()));
        }
        if (System.console() == null) {
            return java.util.OptionalInt.empty();
        }
        try {
            String[] rc = stty("size").strip().split("\\s+");
            return java.util.OptionalInt.of(Math.max(1, Integer.parseInt(rc[1])));
        } catch (IOException | RuntimeException e) {
            return java.util.OptionalInt.empty();
        }
    }

    Size size() throws IOException {
        String[] rc = stty("size").strip().split("\\s+");
        try {
            return new Size(Integer.parseInt(rc[0]), Integer.parseInt(rc[1]));
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new IOException("stty size said '" + String.join(" ", rc) + "'");
        }
    }

    /**
     * Draws a frame over the last one, line by line in place (no clearing, so no flicker).
     *
     * @param lines the frame, at most {@code size.rows()} lines of at most {@code size.columns()}
     * @param size the size it was made for
     * @param colour whether to colour it
     */
    synchronized void draw(List<ScreenLine> lines, Size size, boolean colour) {
        if (!open) {
            return;
        }
        StringBuilder b = new StringBuilder();
        for (int row = 0; row < size.rows(); row++) {
            b.append("\u001b[").append(row + 1).append(";1H");
            ScreenLine line = row < lines.size() ? lines.get(row) : ScreenLine.empty();
            b.append(colour ? line.ansi() : line.plain());
            // Clear the rest of the row only when there is a rest: at the last column, with the cursor
            // on the last character, the erase would take that character too.
            if (line.columns() < size.columns()) {
                b.append("\u001b[K");
            }
        }
        out.print(b);
        out.flush();
    }

    /** Leaves the alternate screen and puts the terminal's settings back as they were. */
    @Override
    public synchronized void close() {
        if (!open) {
            return;
        }
        open = false;
        out.print(LEAVE);
        out.flush();
        try {
            stty(saved);
        } catch (IOException e) {
            // Nothing more to try; the shell's own "reset" recovers.
        }
    }

    private static String stty(String... args) throws IOException {
        List<String> argv = new java.util.ArrayList<>(List.of("stty"));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectInput(TTY).redirectError(ProcessBuilder.Redirect.PIPE).start();
        String said = read(p.getInputStream());
        String err = read(p.getErrorStream());
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("stty " + String.join(" ", args) + " failed: " + err.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running stty");
        }
        return said;
    }

    private static String read(InputStream in) throws IOException {
        return new String(in.readAllBytes(), Charset.defaultCharset());
    }
}

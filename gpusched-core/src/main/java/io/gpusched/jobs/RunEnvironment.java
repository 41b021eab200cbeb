package io.gpusched.jobs;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a job's command runs in beyond the environment it starts with: a conda environment
 * ({@code conda=}) and shell text run before it ({@code setup=}). {@link #DEFAULT} is what a line
 * without them gets: the command alone, as before.
 *
 * <p>The job's shell ({@code /bin/sh}) runs {@code setup} first, in itself, so its {@code .},
 * {@code export} and {@code cd} reach the command; a setup that exits non-zero ends the job with its
 * status before the command runs. Then, with {@code conda}, it runs
 * {@code conda run -n NAME --no-capture-output sh -c CMD} (or {@code -p PATH}), so the command is still
 * one shell command line and stays in the job's session.
 *
 * @param conda the conda environment: a name matching {@link #CONDA_NAME}, or the absolute path of an
 *     environment's prefix (starting with {@code /}, without control characters); empty means none
 * @param setup shell text run before the command by the same shell: not blank, one line without NUL,
 *     at most {@link JobsFileParser#MAX_LINE_BYTES} bytes of UTF-8; empty means none
 * @param tty whether the command runs in a detached tmux session of its own ({@code [tty]}), which
 *     {@code gpusched attach N} attaches to
 */
public record RunEnvironment(Optional<String> conda, Optional<String> setup, boolean tty) {
    /**
     * A conda environment's name: letters, digits, {@code _ . + -}, 1 to 128 of them, not starting
     * with {@code -} or {@code .} (conda would read the first as an option).
     */
    public static final Pattern CONDA_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}");
    /** No conda environment, no setup: the command runs on its own. */
    public static final RunEnvironment DEFAULT = new RunEnvironment(Optional.empty(), Optional.empty(), false);

    /**
     * Validates the fields.
     *
     * @param conda see {@link #conda()}
     * @param setup see {@link #setup()}
     * @param tty see {@link #tty()}
     * @throws IllegalArgumentException if one is not as described there
     */
    public RunEnvironment {
        Objects.requireNonNull(conda, "conda");
        Objects.requireNonNull(setup, "setup");
        conda.ifPresent(c -> {
            if (!isCondaEnv(c)) {
                throw new IllegalArgumentException("not a conda environment name or absolute prefix path: '" + c + "'");
            }
        });
        setup.ifPresent(s -> {
            if (!isSetup(s)) {
                throw new IllegalArgumentException("setup must be one line of shell text, not blank, without NUL,"
                        + " at most " + JobsFileParser.MAX_LINE_BYTES + " bytes");
            }
        });
    }

    /**
     * Without a terminal, as every line was before {@code [tty]}.
     *
     * @param conda see {@link #conda()}
     * @param setup see {@link #setup()}
     */
    public RunEnvironment(Optional<String> conda, Optional<String> setup) {
        this(conda, setup, false);
    }

    /**
     * @param conda see {@link #conda()}
     * @return an environment with this conda environment and no setup
     */
    public static RunEnvironment conda(String conda) {
        return new RunEnvironment(Optional.of(conda), Optional.empty());
    }

    /**
     * @param setup see {@link #setup()}
     * @return an environment with this setup and no conda environment
     */
    public static RunEnvironment setup(String setup) {
        return new RunEnvironment(Optional.empty(), Optional.of(setup));
    }

    /** @return whether the command runs on its own: no conda environment, no setup, no terminal */
    public boolean isDefault() {
        return conda.isEmpty() && setup.isEmpty() && !tty;
    }

    /** @return this environment with a terminal ({@code [tty]}) */
    public RunEnvironment withTty() {
        return new RunEnvironment(conda, setup, true);
    }

    /** @return whether {@link #conda()} is a prefix path ({@code conda run -p}) rather than a name ({@code -n}) */
    public boolean condaPrefix() {
        return conda.filter(c -> c.startsWith("/")).isPresent();
    }

    static boolean isCondaEnv(String c) {
        if (c.startsWith("/")) {
            return c.chars().noneMatch(ch -> ch < 0x20 || ch == 0x7f);
        }
        return CONDA_NAME.matcher(c).matches();
    }

    static boolean isSetup(String s) {
        return !s.isBlank() && s.indexOf('\0') < 0 && s.indexOf('\n') < 0
                && (s.length() <= JobsFileParser.MAX_LINE_BYTES / 3
                || JobsLines.utf8Length(s, 0, s.length()) <= JobsFileParser.MAX_LINE_BYTES);
    }
}

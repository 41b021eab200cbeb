package io.gpusched.engine.spawn;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.RunEnvironment;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The shell text the job's wrapper evaluates for a line with {@code conda=} or {@code setup=}, and how
 * the end of its log tells why such a job failed before its command ran.
 *
 * <p>The text is run where a plain command would be (the wrapper's subshell, or the inner shell of a
 * job run as its owner), so it stays in the job's session, and signals, timeouts and attribution work
 * as for any command. First the setup: evaluated by that shell itself, so its {@code .}, {@code export}
 * and {@code cd} reach the command; {@code command eval} keeps a failing {@code .} or a syntax error
 * from ending the shell before it can say the setup failed. {@code source} is defined as {@code .}
 * where the shell lacks it (dash, Debian's {@code /bin/sh}), since most activate instructions say
 * {@code source}. Then the command: as written, or through
 * {@code conda run -n ENV --no-capture-output sh -c CMD}, which keeps it one shell command line
 * (conda quotes each argument for its own script since 4.12). Without {@code conda} on the PATH the
 * job ends with 127, as a shell's command not found, after one line saying so and what to do.
 */
public final class EnvironmentScript {
    /** What to do when {@code conda} is not on the job's PATH. */
    static final String CONDA_FIX = "activate conda's base in the shell that starts gpusched (or submits the job),"
            + " or add setup='. ~/miniconda3/etc/profile.d/conda.sh' (where conda is installed) to the job";

    private EnvironmentScript() {
    }

    /**
     * @param spec a job
     * @return the shell text its wrapper evaluates: its command alone when it has no environment
     */
    public static String of(JobSpec spec) {
        RunEnvironment env = spec.environment();
        if (env.conda().isEmpty() && env.setup().isEmpty()) {
            return spec.command();
        }
        StringBuilder s = new StringBuilder();
        env.setup().ifPresent(setup -> s
                .append("command -v source >/dev/null 2>&1 || source() { . \"$@\"; }\n")
                .append("command eval ").append(quote(setup))
                .append(" || { __gs_s=$?; printf 'gpusched: setup exited %s; the command did not run\\n' \"$__gs_s\" >&2;")
                .append(" exit \"$__gs_s\"; }\n"));
        if (env.conda().isPresent()) {
            String conda = env.conda().get();
            s.append("command -v conda >/dev/null 2>&1 || { printf '%s\\n' ")
                    .append(quote("gpusched: " + condaMissing(conda) + "; " + CONDA_FIX)).append(" >&2; exit 127; }\n")
                    .append("conda run ").append(env.condaPrefix() ? "-p " : "-n ").append(quote(conda))
                    .append(" --no-capture-output sh -c ").append(quote(spec.command()));
        } else {
            s.append(spec.command());
        }
        return s.toString();
    }

    /**
     * @param spec a job
     * @param tty where its terminal is, when it has one ({@code [tty]})
     * @return the shell text its wrapper evaluates: {@link #of(JobSpec)}, run in that terminal if any
     */
    public static String of(JobSpec spec, io.gpusched.model.TtySession tty) {
        String script = of(spec);
        return spec.environment().tty() ? TtyScript.of(script, tty) : script;
    }

    /**
     * Why a job failed before its command ran, and what to do.
     *
     * @param cause e.g. {@code setup exited 1; the command did not run}, or
     *     {@code conda=torch but no 'conda' on PATH}
     * @param fix where to look, or what to change
     */
    public record Failure(String cause, String fix) {
    }

    /**
     * Why a job with an environment failed before its command ran, as the last line of its log says.
     *
     * @param env the job's environment
     * @param exitCode its exit status
     * @param log its log
     * @param logTail the end of its log
     * @return empty when the command itself ran (or nothing says it did not)
     */
    public static Optional<Failure> failure(RunEnvironment env, int exitCode, Path log, String logTail) {
        if (env.isDefault() || exitCode == 0) {
            return Optional.empty();
        }
        String last = lastLine(logTail);
        String setupFailed = "setup exited " + exitCode + "; the command did not run";
        if (env.setup().isPresent() && last.equals("gpusched: " + setupFailed)) {
            return Optional.of(new Failure(setupFailed, "the setup's output is in " + log));
        }
        if (env.tty() && exitCode == 127 && last.equals("gpusched: " + TtyScript.TMUX_MISSING + "; " + TtyScript.TMUX_FIX)) {
            return Optional.of(new Failure(TtyScript.TMUX_MISSING, TtyScript.TMUX_FIX));
        }
        if (env.conda().isPresent() && exitCode == 127) {
            String missing = condaMissing(env.conda().get());
            if (last.startsWith("gpusched: " + missing + ";")) {
                return Optional.of(new Failure(missing, CONDA_FIX));
            }
        }
        return Optional.empty();
    }

    private static String condaMissing(String conda) {
        return "conda=" + conda + " but no 'conda' on PATH";
    }

    /** The last non-blank line of a log's tail, stripped: where the wrapper and its helpers say why. */
    static String lastLine(String text) {
        String t = text.stripTrailing();
        return t.substring(t.lastIndexOf('\n') + 1).strip();
    }

    /** In single quotes for {@code sh}: every character stands for itself, a {@code '} is closed, escaped and reopened. */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}

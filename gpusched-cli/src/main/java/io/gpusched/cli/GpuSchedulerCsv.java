package io.gpusched.cli;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobSpecException;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.Scheduling;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Turns the fractional screen scheduler's jobs file ({@code scheduler.py}, seed 001) into ours: lines
 * {@code priority,script_path,conda_env,arguments,allowed_gpus}, {@code #} comments, blank lines.
 * The first four commas separate fields and the rest is {@code allowed_gpus}, which may hold commas
 * itself ({@code 4,5,6,7}); so, as in the original, {@code arguments} cannot hold a comma.
 *
 * <p>{@code priority} there is lower-first, here higher-first, so it is negated. {@code conda_env}
 * becomes {@code conda=} (empty: none, the command runs with the PATH's {@code python}),
 * {@code allowed_gpus} {@code gpu-ids=} (IDs and ranges are written the same) with {@code gpus=1} where it
 * lists several (there: any one of them; here {@code gpu-ids} alone is all of them), and the script and its
 * arguments the command {@code python SCRIPT ARGS}: the path quoted for the shell where it needs it,
 * the arguments kept as written, since the original handed them to a shell too. Every line is
 * {@code unique}: the original hashes each job's script, arguments and environment and does not queue
 * one whose hash is queued, running or succeeded, and its users rely on that.
 */
final class GpuSchedulerCsv {
    // Characters a shell word may hold unquoted and mean the same.
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9_./+@%:=,-]+");
    private static final Pattern CUDA_ARGUMENT = Pattern.compile("(^|\\s)--cuda(\\s|=|$)");

    private GpuSchedulerCsv() {
    }

    /**
     * What one input line became.
     *
     * @param line our jobs-file line (or the comment or blank line as it was); empty when the input line
     *     was skipped (a header, or a bad line)
     * @param warning one line to tell the user, naming the input line; empty when there is nothing to say
     * @param bad whether the line could not be converted
     */
    record Converted(Optional<String> line, Optional<String> warning, boolean bad) {
    }

    /**
     * @param source the input's name, for warnings ({@code jobs.txt})
     * @param lineNo the line's number, from 1
     * @param raw the line, without its line break
     * @return what it became
     */
    static Converted convert(String source, int lineNo, String raw) {
        String where = source + ":" + lineNo;
        String text = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
        String t = text.strip();
        if (t.isEmpty() || t.startsWith("#")) {
            return new Converted(Optional.of(t), Optional.empty(), false);
        }
        String[] f = t.split(",", 5);
        if (f.length == 5 && f[0].strip().toLowerCase(Locale.ROOT).equals("priority")) {
            return new Converted(Optional.empty(), Optional.empty(), false); // the format's header line
        }
        if (f.length < 4) {
            return bad(where, "not priority,script_path,conda_env,arguments,allowed_gpus", t);
        }
        Optional<Integer> priority = priority(f[0].strip());
        if (priority.isEmpty()) {
            return bad(where, "priority is not a whole number within ±" + Scheduling.MAX_PRIORITY, t);
        }
        String script = f[1].strip();
        if (script.isEmpty()) {
            return bad(where, "no script_path", t);
        }
        String conda = f[2].strip();
        String arguments = f[3].strip();
        String gpus = f.length == 5 ? f[4].replaceAll("\\s+", "") : "";
        List<String> attrs = new ArrayList<>();
        if (priority.get() != 0) {
            attrs.add("priority=" + -priority.get());
        }
        if (!gpus.isEmpty()) {
            attrs.add("gpu-ids=" + gpus);
        }
        if (!conda.isEmpty()) {
            attrs.add("conda=" + JobsFileParser.quote(conda));
        }
        // Its users rely on a job added again after it succeeded not running again (its content hash).
        attrs.add("unique");
        String command = "python " + shellWord(script) + (arguments.isEmpty() ? "" : " " + arguments);
        String line = (attrs.isEmpty() ? "" : "[" + String.join(" ", attrs) + "] ") + command;
        try {
            if (JobSpec.parse(line).scheduling().gpuIds().size() > 1) {
                // allowed_gpus is "any of these"; our gpu-ids alone would take them all.
                attrs.add(attrs.indexOf("gpu-ids=" + gpus), "gpus=1");
                line = "[" + String.join(" ", attrs) + "] " + command;
            }
        } catch (JobSpecException e) {
            return bad(where, e.getMessage().replaceFirst("^<job>:1: ", ""), t);
        }
        Optional<String> warning = CUDA_ARGUMENT.matcher(arguments).find()
                ? Optional.of("gpusched convert: " + where + ": --cuda is passed as written; gpusched does not rewrite it"
                        + " with the job's GPUs (they are in CUDA_VISIBLE_DEVICES, as cuda:0 on, and GPUSCHED_GPUS)")
                : Optional.empty();
        return new Converted(Optional.of(line), warning, false);
    }

    private static Converted bad(String where, String why, String line) {
        return new Converted(Optional.empty(), Optional.of("gpusched convert: " + where + ": " + why + ", skipped: " + line),
                true);
    }

    private static Optional<Integer> priority(String s) {
        if (!s.matches("[+-]?[0-9]{1,7}")) {
            return Optional.empty();
        }
        int p = Integer.parseInt(s);
        return Math.abs(p) <= Scheduling.MAX_PRIORITY ? Optional.of(p) : Optional.empty();
    }

    /** The word as {@code sh} reads it back: bare when it can be, else in single quotes. */
    static String shellWord(String s) {
        return PLAIN_WORD.matcher(s).matches() ? s : "'" + s.replace("'", "'\\''") + "'";
    }
}

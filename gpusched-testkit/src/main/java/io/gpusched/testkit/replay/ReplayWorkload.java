package io.gpusched.testkit.replay;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.JobsFileParser;
import io.gpusched.jobs.Units;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a gpusched jobs file as a replay workload. A job's duration comes from, in order:
 * <ol>
 *   <li>a trailing shell comment {@code # duration=DUR} in the command ({@code DUR} as in
 *       {@code timeout=}: {@code 90}, {@code 1.5s}, {@code 2m}, {@code 3h}); the shell ignores it
 *       when the job runs;</li>
 *   <li>the sim job's own flags when the command runs the sim job ({@code $GPUSCHED_SIMJOB} or a
 *       {@code simjob} program): {@code --ramp} (default 0.5 s) + {@code --hold} (default 1 s), with
 *       {@code --vram} as the actual peak;</li>
 *   <li>the default duration given by the caller.</li>
 * </ol>
 * A line that gets no duration from any of these is an error naming the line. A line's
 * {@code timeout=} is kept: a job that would run longer is stopped at it. A trailing {@code # at=DUR}
 * (in the same comment, e.g. {@code # duration=10m at=2h}) is when the job joins the queue; without it,
 * at the start. Its scheduling attributes (priority, {@code gpu-ids}, {@code preemptible}) are kept.
 */
public final class ReplayWorkload {
    private static final Pattern DURATION_COMMENT = Pattern.compile("#\\s*duration\\s*=\\s*(\\S+)");
    private static final Pattern ARRIVAL_COMMENT = Pattern.compile("#.*\\bat\\s*=\\s*(\\S+)");
    private static final Pattern PEAK_COMMENT = Pattern.compile("#.*\\bpeak\\s*=\\s*(\\S+)");

    private ReplayWorkload() {
    }

    /**
     * @param file a jobs file
     * @param defaultDuration used for lines that state no duration
     * @return the jobs in queue order, numbered from 1; cancelled lines are left out
     * @throws IllegalArgumentException naming the line when a duration is missing or malformed
     * @throws io.gpusched.jobs.JobSpecException when the file does not parse
     */
    public static List<ReplayJob> fromJobsFile(Path file, Optional<Duration> defaultDuration) {
        return fromSpecs(JobsFileParser.parse(file), defaultDuration, file.toString());
    }

    /**
     * @param text jobs-file text
     * @param defaultDuration used for lines that state no duration
     * @return the jobs, as {@link #fromJobsFile}
     */
    public static List<ReplayJob> fromText(String text, Optional<Duration> defaultDuration) {
        return fromSpecs(JobsFileParser.parse(text, "<jobs>"), defaultDuration, "<jobs>");
    }

    private static List<ReplayJob> fromSpecs(List<JobSpec> specs, Optional<Duration> defaultDuration, String source) {
        List<ReplayJob> out = new ArrayList<>();
        int no = 0;
        for (JobSpec s : specs) {
            no++;
            if (s.cancel()) {
                continue;
            }
            String cmd = s.command();
            Optional<Duration> d = Optional.empty();
            OptionalLong peak = OptionalLong.empty();
            Matcher m = DURATION_COMMENT.matcher(cmd);
            if (m.find()) {
                d = Optional.of(Units.parseDuration(m.group(1)).orElseThrow(() -> new IllegalArgumentException(
                        source + ":" + s.line() + ": bad duration '" + m.group(1) + "' (use e.g. 90, 1.5s, 2m, 3h)")));
            }
            Matcher pm = PEAK_COMMENT.matcher(cmd);
            if (pm.find()) {
                peak = Units.parseMib(pm.group(1));
            }
            if (isSimJob(cmd)) {
                List<String> tokens = List.of(cmd.split("\\s+"));
                if (d.isEmpty()) {
                    double seconds = flag(tokens, "--ramp", 0.5, source, s) + flag(tokens, "--hold", 1.0, source, s);
                    d = Optional.of(Duration.ofNanos(Math.round(seconds * 1e9)));
                }
                if (peak.isEmpty()) {
                    double vram = flag(tokens, "--vram", -1, source, s);
                    double spike = flag(tokens, "--spike", 0, source, s);
                    if (Math.max(vram, spike) > 0) {
                        peak = OptionalLong.of((long) Math.ceil(Math.max(vram, spike)));
                    }
                }
            }
            if (d.isEmpty()) {
                d = defaultDuration;
            }
            if (d.isEmpty()) {
                throw new IllegalArgumentException(source + ":" + s.line() + ": no duration: add '# duration=DUR' to the line,"
                        + " run the sim job with --ramp/--hold, or pass --default-duration");
            }
            Duration arrival = Duration.ZERO;
            Matcher am = ARRIVAL_COMMENT.matcher(cmd);
            if (am.find()) {
                arrival = Units.parseDuration(am.group(1)).or(() -> am.group(1).matches("0+(\\.0+)?s?")
                        ? Optional.of(Duration.ZERO) : Optional.empty()).orElseThrow(() -> new IllegalArgumentException(
                        source + ":" + s.line() + ": bad arrival '" + am.group(1) + "' (use e.g. 0, 90, 1.5s, 2m, 3h)"));
            }
            out.add(new ReplayJob(no, cmd, s.vramMib(), s.gpus(), d.get(), peak, s.timeout(), arrival, s.scheduling(), s.share()));
        }
        return out;
    }

    private static boolean isSimJob(String cmd) {
        return cmd.contains("GPUSCHED_SIMJOB") || cmd.matches("(?s).*\\bsimjob\\b.*")
                || cmd.contains("io.gpusched.testkit.sim.SimJob");
    }

    private static double flag(List<String> tokens, String name, double dflt, String source, JobSpec s) {
        for (int i = 0; i < tokens.size(); i++) {
            String t = tokens.get(i);
            String value = null;
            if (t.equals(name) && i + 1 < tokens.size()) {
                value = tokens.get(i + 1);
            } else if (t.startsWith(name + "=")) {
                value = t.substring(name.length() + 1);
            }
            if (value != null) {
                try {
                    return Double.parseDouble(value.replace("\"", "").replace("'", ""));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(source + ":" + s.line() + ": bad " + name + " value '" + value + "'");
                }
            }
        }
        return dflt;
    }
}

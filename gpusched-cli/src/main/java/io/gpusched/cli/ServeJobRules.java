package io.gpusched.cli;

import io.gpusched.Scheduler;
import io.gpusched.jobs.Scheduling;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code gpusched serve}'s rules over every job it takes: {@code --dedup} (every submission is
 * {@code unique}), {@code --max-job-time} and {@code --on-max-job-time} (mgpu's limit and its context
 * switch), declared in serve's option table ({@code CliArgs}) and parsed here.
 *
 * @param dedup {@code --dedup}: every {@code submit} is {@code unique} (an {@code srun} only with its own
 *     {@code --unique})
 * @param maxJobTime {@code --max-job-time}: the longest any attempt runs; empty for no limit
 * @param onMaxJobTime {@code --on-max-job-time}: what reaching it does (requeue, the default, or fail);
 *     empty when not given
 */
record ServeJobRules(boolean dedup, Optional<Duration> maxJobTime, Optional<Scheduling.OnTimeout> onMaxJobTime) {
    /** No rule: what serve does without these options, and what a jobs-file run always does. */
    static final ServeJobRules NONE = new ServeJobRules(false, Optional.empty(), Optional.empty());

    /** What a jobs file says instead, for a run given one of these options: the rest of its error line. */
    static final java.util.Map<String, String> IN_A_JOBS_FILE = java.util.Map.of(
            "--dedup", "; in a jobs file, mark a line [unique]",
            "--max-job-time", "; in a jobs file, give a line timeout= (and on-timeout=)",
            "--on-max-job-time", "; in a jobs file, give a line timeout= (and on-timeout=)");

    /**
     * @param option {@code --dedup}, {@code --max-job-time} or {@code --on-max-job-time}
     * @param value its value, read only by an option that takes one
     * @return these rules with that option applied
     * @throws UsageException for a bad value
     */
    ServeJobRules with(String option, Supplier<String> value) {
        return switch (option) {
            case "--dedup" -> new ServeJobRules(true, maxJobTime, onMaxJobTime);
            case "--max-job-time" -> {
                String v = value.get();
                Duration d = io.gpusched.jobs.Units.parseDuration(v.strip()).orElseThrow(
                        () -> io.gpusched.jobs.Units.isDurationForm(v.strip())
                        ? CliArgs.durationOutOfRange("--max-job-time", v, Optional.empty(), "")
                        : new UsageException("--max-job-time needs a positive duration like 90, 90s, 15m, 2h or 1.5d, got '"
                        + v + "'"));
                yield new ServeJobRules(dedup, Optional.of(d), onMaxJobTime);
            }
            case "--on-max-job-time" -> {
                String v = value.get();
                Scheduling.OnTimeout o = switch (v.strip()) {
                    case "requeue" -> Scheduling.OnTimeout.REQUEUE;
                    case "fail" -> Scheduling.OnTimeout.FAIL;
                    default -> throw new UsageException("--on-max-job-time must be requeue or fail, got '" + v + "'");
                };
                yield new ServeJobRules(dedup, maxJobTime, Optional.of(o));
            }
            default -> throw new IllegalArgumentException("not a job rule: " + option);
        };
    }

    /**
     * The checks across these options, once all are read.
     *
     * @return these rules
     * @throws UsageException for {@code --on-max-job-time} without {@code --max-job-time}
     */
    ServeJobRules checked() {
        if (onMaxJobTime.isPresent() && maxJobTime.isEmpty()) {
            throw new UsageException("--on-max-job-time says what --max-job-time does; give --max-job-time D too");
        }
        return this;
    }

    /**
     * @param b the scheduler being built
     * @return it, with these rules
     */
    Scheduler.Builder applyTo(Scheduler.Builder b) {
        maxJobTime.ifPresent(d -> b.maxJobTime(d, onMaxJobTime.orElse(Scheduling.OnTimeout.REQUEUE)));
        return b.dedup(dedup);
    }
}

package io.gpusched.cli;

import io.gpusched.Scheduler;
import io.gpusched.jobs.Scheduling;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code gpusched serve}'s rules over every job it takes: {@code --dedup} (every submission is
 * {@code unique}), {@code --max-job-time} and {@code --on-max-job-time} (mgpu's limit and its context
 * switch). One block, parsed here and documented in {@link #HELP}, so the options move together wherever
 * serve's options are declared.
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

    /** The options, as typed. */
    static final Set<String> OPTIONS = Set.of("--dedup", "--max-job-time", "--on-max-job-time");

    /** Their lines of serve's option list, in {@link CliArgs#HELP}'s layout. */
    static final String HELP = String.join("\n",
            "  --dedup                serve: every submit is unique: one whose user has the same job (command,",
            "                         attributes, directory) queued, running or ended ok is not queued again,",
            "                         and submit names that job (srun only with its own --unique) [off]",
            "  --max-job-time D       serve: stop any job that has run D (90, 15m, 2h) and, by",
            "                         --on-max-job-time, queue it again at the end or fail it; a job's own",
            "                         smaller timeout= wins; srun jobs are failed, not requeued [off]",
            "  --on-max-job-time requeue|fail  serve: what --max-job-time does: requeue (mgpu's context",
            "                         switch: to the end of the queue, its attempt not counted) or fail",
            "                         (ends timeout) [requeue]");

    /**
     * @param option one of {@link #OPTIONS}
     * @param value its value, read only by an option that takes one
     * @param serve whether these are serve's options
     * @return these rules with that option applied
     * @throws UsageException outside serve, or for a bad value
     */
    ServeJobRules with(String option, Supplier<String> value, boolean serve) {
        if (!serve) {
            throw new UsageException(option + " is an option of gpusched serve" + (option.equals("--dedup")
                    ? "; in a jobs file, mark a line [unique]" : "; in a jobs file, give a line timeout= (and on-timeout=)"));
        }
        return switch (option) {
            case "--dedup" -> new ServeJobRules(true, maxJobTime, onMaxJobTime);
            case "--max-job-time" -> {
                String v = value.get();
                Duration d = io.gpusched.jobs.Units.parseDuration(v.strip()).orElseThrow(() -> new UsageException(
                        "--max-job-time needs a positive duration like 90, 90s, 15m, 2h or 1.5d, got '" + v + "'"));
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

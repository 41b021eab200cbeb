package io.gpusched.cli;

import io.gpusched.Scheduler;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code gpusched serve}'s rules over every job it takes: {@code --dedup} (every submission is
 * {@code unique}). One block, parsed here and documented in {@link #HELP}, so the options move together
 * wherever serve's options are declared.
 *
 * @param dedup {@code --dedup}: every {@code submit} is {@code unique} (an {@code srun} only with its own
 *     {@code --unique})
 */
record ServeJobRules(boolean dedup) {
    /** No rule: what serve does without these options, and what a jobs-file run always does. */
    static final ServeJobRules NONE = new ServeJobRules(false);

    /** The options, as typed. */
    static final Set<String> OPTIONS = Set.of("--dedup");

    /** Their lines of serve's option list, in {@link CliArgs#HELP}'s layout. */
    static final String HELP = String.join("\n",
            "  --dedup                serve: every submit is unique: one whose user has the same job (command,",
            "                         attributes, directory) queued, running or ended ok is not queued again,",
            "                         and submit names that job (srun only with its own --unique) [off]");

    /**
     * @param option one of {@link #OPTIONS}
     * @param value its value, read only by an option that takes one
     * @param serve whether these are serve's options
     * @return these rules with that option applied
     * @throws UsageException outside serve
     */
    ServeJobRules with(String option, Supplier<String> value, boolean serve) {
        if (!serve) {
            throw new UsageException(option + " is an option of gpusched serve; in a jobs file, mark a line [unique]");
        }
        return switch (option) {
            case "--dedup" -> new ServeJobRules(true);
            default -> throw new IllegalArgumentException("not a job rule: " + option);
        };
    }

    /**
     * @param b the scheduler being built
     * @return it, with these rules
     */
    Scheduler.Builder applyTo(Scheduler.Builder b) {
        return b.dedup(dedup);
    }
}

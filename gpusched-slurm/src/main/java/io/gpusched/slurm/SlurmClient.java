package io.gpusched.slurm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Slurm's own commands, through an injected {@link CommandRunner}: submit, list, cancel. */
final class SlurmClient {
    /** One job as {@code squeue} lists it. */
    record Queued(long id, String name, String state) {
    }

    private final CommandRunner commands;

    SlurmClient(CommandRunner commands) {
        this.commands = commands;
    }

    /** What {@code sbatch} made of one job. */
    sealed interface Submission {
    }

    /** @param id the job id {@code sbatch --parsable} printed ({@code 123} or {@code 123;cluster}) */
    record Accepted(long id) implements Submission {
    }

    /**
     * Slurm answered and refused this job: what it asks for (its gres, time limit, comment) is wrong for the
     * cluster. Other jobs may still be taken.
     *
     * @param why one line: sbatch's exit status and its own words
     */
    record Refused(String why) implements Submission {
    }

    /**
     * Slurm refused this job for now: the user or account has as many jobs queued as a submit-count limit
     * allows ({@code MaxSubmitJobs}, {@code MaxSubmitJobsPerUser}, {@code GrpSubmitJobs} on a QOS or an
     * association). Nothing about the job itself: the same job is taken once some of the user's jobs end.
     *
     * @param code Slurm's reason code, e.g. {@code QOSMaxSubmitJobPerUserLimit}
     * @param why one line: sbatch's exit status and its own words
     */
    record SubmitLimit(String code, String why) implements Submission {
    }

    /**
     * Slurm's reason codes (its job state reasons, {@code job_state_reason_string}) for a submit-count limit,
     * which sbatch prints on a line of its own before {@code Batch job submission failed: Job violates
     * accounting/QOS policy (job submit limit, user's size and/or time limits)}. That second line is the same
     * for a job over a size or time limit ({@code QOSMaxGRESPerJob}, {@code QOSMaxWallDurationPerJobLimit}...),
     * which does not clear by waiting, so only these codes make a refusal wait.
     */
    static final List<String> SUBMIT_LIMIT_CODES = List.of("QOSMaxSubmitJobPerUserLimit",
            "QOSMaxSubmitJobPerAccountLimit", "QOSGrpSubmitJobsLimit", "AssocMaxSubmitJobLimit", "AssocGrpSubmitJobsLimit");

    /**
     * The submit-count limit a refusal names.
     *
     * @param said what sbatch printed, on one line
     * @return the first of {@link #SUBMIT_LIMIT_CODES} it names as a word of its own; empty when none
     */
    static Optional<String> submitLimit(String said) {
        for (String code : SUBMIT_LIMIT_CODES) {
            // As a word: a longer reason that merely starts with a code's letters is another reason.
            if (java.util.regex.Pattern.compile("(?<![A-Za-z0-9])" + code + "(?![A-Za-z0-9])").matcher(said).find()) {
                return Optional.of(code);
            }
        }
        return Optional.empty();
    }

    /**
     * Submits a job script from a file, as {@code sbatch [options] FILE}: sbatch reads and keeps the script
     * when it submits, and however long the command is, no argument comes near the kernel's limit on one
     * ({@code MAX_ARG_STRLEN}, 128 KiB), which {@code --wrap=SCRIPT} would hit with a long command.
     *
     * @param sbatchOptions the options, before the script
     * @param script the job script ({@link #script(List)})
     * @return the job's id, Slurm's refusal of this job, or its refusal for now (a submit-count limit)
     * @throws SlurmException when the cluster cannot take any job ({@link #clusterWide}: sbatch cannot be
     *     run, slurmctld cannot be reached, the run's partition or account is refused) or when whether the
     *     job was submitted cannot be told (sbatch succeeded without printing a job id)
     */
    Submission submit(List<String> sbatchOptions, Path script) {
        List<String> argv = new ArrayList<>();
        argv.add("sbatch");
        argv.add("--parsable");
        argv.addAll(sbatchOptions);
        argv.add(script.toString());
        CommandRunner.Result r;
        try {
            r = commands.run(argv);
        } catch (java.io.UncheckedIOException e) {
            String why = oneLine(e.getMessage());
            throw new SlurmException("sbatch cannot be run: " + why + (why.contains("error=2,") || why.contains("error=13,")
                    ? "; is Slurm's client (slurm-client) installed and on the PATH?" : "; no job can be submitted"));
        }
        String out = r.stdout().trim();
        int semi = out.indexOf(';');
        String id = semi < 0 ? out : out.substring(0, semi);
        if (r.ok() && id.matches("[0-9]{1,10}")) {
            return new Accepted(Long.parseLong(id));
        }
        String said = oneLine(r.stderr() + " " + out);
        if (r.ok()) {
            // It may have been submitted: refusing the job (and running the others) could run it twice.
            throw new SlurmException("sbatch exited 0 without a job id (" + said + "); cannot tell whether the job"
                    + " was submitted, so nothing more is");
        }
        Optional<String> wide = clusterWide(r.exitCode(), said);
        if (wide.isPresent()) {
            throw new SlurmException("sbatch failed (exit " + r.exitCode() + "): " + said + "; " + wide.get());
        }
        Optional<String> limit = submitLimit(said);
        if (limit.isPresent()) {
            return new SubmitLimit(limit.get(), "sbatch refused it for now (exit " + r.exitCode() + "): " + said);
        }
        return new Refused("sbatch refused it (exit " + r.exitCode() + "): " + said);
    }

    /**
     * Whether an {@code sbatch} failure says that no job can be submitted, whatever it asks for, and then what
     * to check. Slurm's own messages ({@code slurm_strerror}, the same words since Slurm 15): what cannot reach
     * or talk to slurmctld, and a refusal of what every job of the run is submitted with (the run's
     * {@code --partition} or the default one, {@code --account}, the user or group). Anything else Slurm
     * says of one job's request ({@code Requested node configuration is not available}, {@code Invalid generic
     * resource (gres) specification}, {@code Requested time limit is invalid}...) refuses that job only.
     *
     * @param exitCode sbatch's exit status, not 0
     * @param said what it printed, on one line
     * @return the fix to name when the whole cluster is unusable; empty when only this job was refused
     */
    static Optional<String> clusterWide(int exitCode, String said) {
        String s = said.toLowerCase(java.util.Locale.ROOT);
        if (exitCode > 128) {
            return Optional.of("sbatch was killed by signal " + (exitCode - 128));
        }
        for (String unreachable : List.of("unable to contact slurm controller", "socket timed out",
                "connection refused", "zero bytes were transmitted or received", "communication connection failure",
                "could not establish a configuration source", "slurm.conf", "authentication", "munge")) {
            if (s.contains(unreachable)) {
                return Optional.of("is slurmctld up and reachable from here, and munge running?");
            }
        }
        for (String runWide : List.of("invalid partition", "no partition specified", "invalid account",
                "invalid qos", "access/permission denied", "not permitted to use this partition", "invalid user id")) {
            if (s.contains(runWide)) {
                return Optional.of("every job of the run is submitted with the same partition (--partition or the"
                        + " cluster's default) and account (--account): check them");
            }
        }
        return Optional.empty();
    }

    /**
     * A job script running a command: {@code sh} reads the line back as exactly these words.
     *
     * @param words the command and its arguments
     * @return the script, as {@code sbatch --wrap} would make it
     */
    static String script(List<String> words) {
        return "#!/bin/sh\n" + shellLine(words) + "\n";
    }

    /**
     * @return every job {@code squeue} still knows, finished ones included ({@code -t all}: Slurm keeps them for
     *     {@code MinJobAge}), by id
     */
    Map<Long, Queued> queue() {
        CommandRunner.Result r = commands.run(List.of("squeue", "-h", "-t", "all", "-o", "%i|%j|%T"));
        if (!r.ok()) {
            throw new SlurmException("squeue failed (exit " + r.exitCode() + "): " + oneLine(r.stderr())
                    + "; is slurmctld reachable from here?");
        }
        Map<Long, Queued> jobs = new HashMap<>();
        for (String line : r.stdout().split("\n")) {
            String[] f = line.trim().split("\\|", 3);
            if (f.length == 3 && f[0].matches("[0-9]{1,10}")) {
                long id = Long.parseLong(f[0]);
                jobs.put(id, new Queued(id, f[1], f[2]));
            }
        }
        return jobs;
    }

    /** Cancels a job; an error (it ended already) is not one for us. */
    void cancel(long id) {
        commands.run(List.of("scancel", String.valueOf(id)));
    }

    /** A command as one {@code sh} line: every word single-quoted. */
    static String shellLine(List<String> words) {
        StringBuilder b = new StringBuilder();
        for (String w : words) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append('\'').append(w.replace("'", "'\\''")).append('\'');
        }
        return b.toString();
    }

    private static String oneLine(String s) {
        String t = s.strip().replaceAll("\\s+", " ");
        return t.length() > 300 ? t.substring(0, 300) + "..." : t;
    }
}

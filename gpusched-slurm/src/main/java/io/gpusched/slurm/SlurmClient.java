package io.gpusched.slurm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Slurm's own commands, through an injected {@link CommandRunner}: submit, list, cancel. */
final class SlurmClient {
    /** One job as {@code squeue} lists it. */
    record Queued(long id, String name, String state) {
    }

    private final CommandRunner commands;

    SlurmClient(CommandRunner commands) {
        this.commands = commands;
    }

    /** @return the job id {@code sbatch --parsable} printed ({@code 123} or {@code 123;cluster}) */
    long submit(List<String> sbatchOptions, List<String> wrapped) {
        List<String> argv = new ArrayList<>();
        argv.add("sbatch");
        argv.add("--parsable");
        argv.addAll(sbatchOptions);
        argv.add("--wrap=" + shellLine(wrapped));
        CommandRunner.Result r = commands.run(argv);
        String out = r.stdout().trim();
        int semi = out.indexOf(';');
        String id = semi < 0 ? out : out.substring(0, semi);
        if (!r.ok() || !id.matches("[0-9]{1,10}")) {
            throw new SlurmException("sbatch failed (exit " + r.exitCode() + "): " + oneLine(r.stderr() + " " + out)
                    + "; check the partition, account and gres the line asks for");
        }
        return Long.parseLong(id);
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

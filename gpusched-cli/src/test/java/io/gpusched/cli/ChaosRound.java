package io.gpusched.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One seed of the chaos test: write the seeded workload, then start, kill and restart the scheduler
 * on the same jobs file and log directory until it has been killed {@code kills} times (or finished on
 * its own first), let a last scheduler finish, and check {@link ChaosInvariants}.
 */
final class ChaosRound {
    /** Start-up failures and unexpected exits of any scheduler in the round. */
    static final String RESTARTS_RUN = "0 every scheduler starts and either dies by SIGKILL or finishes its queue";

    /**
     * @param seed the round's seed
     * @param kills SIGKILLs carried out
     * @param story one line per scheduler: its kill plan and what happened
     * @param wallMillis the round's wall time
     * @param violations each invariant's violations
     */
    record Result(long seed, int jobs, int kills, List<String> story, long wallMillis, Map<String, List<String>> violations) {
        String describe() {
            StringBuilder sb = new StringBuilder("chaos seed " + seed + ": " + jobs + " jobs, " + kills + " kills, "
                    + story.size() + " schedulers, " + wallMillis + " ms\n");
            story.forEach(s -> sb.append("  ").append(s).append('\n'));
            violations.forEach((inv, vs) -> sb.append("  [").append(vs.isEmpty() ? "held" : vs.size() + " violation(s)")
                    .append("] ").append(inv).append('\n'));
            return sb.toString();
        }
    }

    private final Path dir;
    private final long seed;
    private final int jobCount;
    private final int kills;

    ChaosRound(Path dir, long seed, int jobCount, int kills) {
        this.dir = dir;
        this.seed = seed;
        this.jobCount = jobCount;
        this.kills = kills;
    }

    Result run() throws Exception {
        long t0 = System.nanoTime();
        if (Files.exists(dir.resolve("jobs.txt"))) {
            throw new IllegalStateException(dir + " holds an earlier round; give gpusched.chaos.dir an empty directory");
        }
        Path ledger = Files.createDirectories(dir.resolve("ledger"));
        Path markers = Files.createDirectories(dir.resolve("markers"));
        Path logs = dir.resolve("logs");
        Path jobsFile = dir.resolve("jobs.txt");
        Random rnd = new Random(seed);
        List<ChaosWorkload.Job> jobs = ChaosWorkload.generate(rnd, jobCount);
        Files.writeString(jobsFile, ChaosWorkload.jobsFile(jobs, ledger, markers));
        List<String> args = List.of(jobsFile.toString(), "--sim", "2", "--poll", "0.1", "--sample", "0.05",
                "--kill-grace", "0.5", "--log-dir", logs.toString());
        // one usage directory for every scheduler: orphans keep reporting their VRAM across restarts, as real GPUs would
        Map<String, String> env = Map.of("GPUSCHED_SIM_DIR", Files.createDirectories(dir.resolve("sim")).toString());

        List<List<String>> outputs = new ArrayList<>();
        List<String> story = new ArrayList<>();
        List<String> restartProblems = new ArrayList<>();
        int killed = 0;
        boolean finished = false;
        while (killed < kills && !finished) {
            KillPlan plan = KillPlan.random(rnd);
            try (SchedulerProcess s = SchedulerProcess.start(dir, args, env, plan.trigger())) {
                boolean died = plan.carryOut(s);
                keep(outputs, s, plan.toString());
                if (died) {
                    killed++;
                    story.add(plan + " -> SIGKILL" + s.killedAfter().map(l -> " right after '" + shorten(l) + "'").orElse("")
                            + " " + tally(s.lines()));
                } else {
                    finished = true;
                    story.add(plan + " -> finished its queue first");
                    checkFinished(s, restartProblems);
                }
            }
        }
        try (SchedulerProcess last = SchedulerProcess.start(dir, args, env)) {
            last.awaitExit();
            keep(outputs, last, "last scheduler");
            story.add("last scheduler -> " + last.lines().stream().filter(l -> l.startsWith("all ")).findFirst()
                    .orElse("no summary line"));
            checkFinished(last, restartProblems);
        }
        Map<String, List<String>> violations = new LinkedHashMap<>();
        violations.put(RESTARTS_RUN, restartProblems);
        violations.putAll(new ChaosInvariants(jobs, jobsFile, ledger, logs.resolve("journal.jsonl"), outputs, dir).check());
        return new Result(seed, jobCount, killed, story, (System.nanoTime() - t0) / 1_000_000, violations);
    }

    /** Adds a scheduler's lines to the round's outputs and writes them to {@code out-N.txt} for a post-mortem. */
    private void keep(List<List<String>> outputs, SchedulerProcess s, String plan) throws IOException {
        outputs.add(s.lines());
        Files.writeString(dir.resolve("out-" + outputs.size() + ".txt"), plan + "\n" + s.output() + "\n");
    }

    private static String shorten(String line) {
        return line.length() > 60 ? line.substring(0, 60) + "..." : line;
    }

    /** @return how many jobs the lines say started and finished */
    private static String tally(List<String> lines) {
        return "(" + lines.stream().filter(l -> l.contains(" started on gpu [")).count() + " started, "
                + lines.stream().filter(l -> l.contains(" finished [")).count() + " finished)";
    }

    /** A scheduler that was not killed must have drained its queue and said so, not failed to start. */
    private static void checkFinished(SchedulerProcess s, List<String> problems) {
        if (s.lines().stream().noneMatch(l -> l.startsWith("all ") && l.contains(" jobs done — "))) {
            problems.add("a scheduler ended without finishing its queue:\n" + s.output());
        }
    }
}

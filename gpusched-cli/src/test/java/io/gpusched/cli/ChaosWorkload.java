package io.gpusched.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Random;

/**
 * A seeded mix of short simulated GPU jobs for the chaos test: some declared (they pack several to a
 * GPU), some undeclared (they need an idle GPU alone), some that exit non-zero, some that hit CUDA OOM
 * once and succeed on their retry. Every job writes its {@link Ledger}.
 */
final class ChaosWorkload {
    /** What a job is meant to do. */
    enum Kind {
        /** exits 0: outcome {@code ok} */
        SUCCEEDS,
        /** exits with its code: outcome {@code failed} with that code */
        FAILS,
        /** CUDA OOM on its first run (a marker file), 0 after: outcome {@code ok} */
        OOM_ONCE
    }

    /**
     * One job.
     *
     * @param name ledger name, unique
     * @param kind what it is meant to do
     * @param declaredMib the {@code vram} declaration, if any
     * @param vramMib what the simulated job ramps to
     * @param ramp seconds of ramp
     * @param hold seconds of hold
     * @param exitCode its exit code when it fails
     */
    record Job(String name, Kind kind, OptionalInt declaredMib, int vramMib, double ramp, double hold, int exitCode) {
        String line(Path ledgerDir, Path markerDir) {
            List<String> block = new ArrayList<>();
            declaredMib.ifPresent(d -> block.add("vram=" + d));
            if (kind == Kind.OOM_ONCE) {
                block.add("retries=1");
            }
            String sim = "$GPUSCHED_SIMJOB --vram " + vramMib + " --ramp " + secs(ramp) + " --hold " + secs(hold)
                    + switch (kind) {
                        case SUCCEEDS -> "";
                        case FAILS -> " --exit-code " + exitCode;
                        case OOM_ONCE -> " --oom-once " + markerDir.resolve(name + ".oom");
                    };
            return (block.isEmpty() ? "" : "[" + String.join(" ", block) + "] ") + Ledger.wrap(ledgerDir, name, sim);
        }

        String expectedStatus() {
            return kind == Kind.FAILS ? "failed" : "ok";
        }

        int expectedCode() {
            return kind == Kind.FAILS ? exitCode : 0;
        }

        /**
         * Whether a run may start after {@code completedBefore} runs ran to completion, the last with
         * {@code rcOfEarlierRun}: only the retry after an OOM-once job's failed first run.
         */
        boolean mayRunAgainAfter(OptionalInt rcOfEarlierRun, long completedBefore) {
            return kind == Kind.OOM_ONCE && completedBefore == 1 && rcOfEarlierRun.orElse(0) != 0;
        }
    }

    private ChaosWorkload() {
    }

    static List<Job> generate(Random rnd, int count) {
        List<Job> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // a few of each kind whatever the seed, then a random mix
            Kind kind = i < 3 ? Kind.FAILS : i < 6 ? Kind.OOM_ONCE : pick(rnd);
            boolean declared = kind == Kind.OOM_ONCE || rnd.nextInt(10) < 7;
            int vram = 500 + rnd.nextInt(declared ? 7_000 : 5_000);
            // declarations at or a little above use, so jobs pack 2-5 to a 24000 MiB GPU
            OptionalInt decl = declared ? OptionalInt.of(vram + rnd.nextInt(1_000)) : OptionalInt.empty();
            double total = 0.05 + rnd.nextInt(76) / 100.0;
            double ramp = Math.round(total * rnd.nextInt(50)) / 100.0;
            jobs.add(new Job(String.format(Locale.ROOT, "j%03d", i), kind, decl, vram, ramp,
                    Math.round((total - ramp) * 100) / 100.0, 3 + rnd.nextInt(60)));
        }
        // file order is queue order: shuffle so the special kinds are not all at the head
        java.util.Collections.shuffle(jobs, rnd);
        return jobs;
    }

    private static Kind pick(Random rnd) {
        int r = rnd.nextInt(100);
        return r < 70 ? Kind.SUCCEEDS : r < 90 ? Kind.FAILS : Kind.OOM_ONCE;
    }

    static String jobsFile(List<Job> jobs, Path ledgerDir, Path markerDir) {
        StringBuilder sb = new StringBuilder("# chaos workload: one line per job, each writing its ledger\n");
        for (Job j : jobs) {
            sb.append(j.line(ledgerDir, markerDir)).append('\n');
        }
        return sb.toString();
    }

    private static String secs(double s) {
        return String.format(Locale.ROOT, "%.2f", s);
    }
}

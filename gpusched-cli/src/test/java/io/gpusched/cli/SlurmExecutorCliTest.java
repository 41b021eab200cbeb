package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.testkit.slurm.LocalSlurm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpusched JOBS --executor slurm}: its refusals, and its log lines against a local run's. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SlurmExecutorCliTest {
    @TempDir
    Path dir;

    @Test
    void aLineSlurmCannotExpressIsAOneLineErrorNamingFileLineAndFix_andNothingIsSubmitted() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=1G] echo fine\n[gpu-ids=1] echo pinned\n");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        // no Slurm is needed: the file is refused before any sbatch
        assertEquals(Cli.USAGE, new Cli(System.out, new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8), s -> { })
                .run(jobs.toString(), "--executor", "slurm", "--log-dir", dir.resolve("logs").toString()));
        String err = bytes.toString(StandardCharsets.UTF_8).strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("gpusched: jobs.txt:2: gpu-ids=1 cannot be honoured on Slurm"), err);
        assertTrue(err.contains("remove gpu-ids from the line"), err);
        assertTrue(Files.notExists(dir.resolve("logs/journal.jsonl")), "nothing journalled");
    }

    @Test
    void aLogDirectoryAnotherSchedulerUsesIsAOneLineError_andNothingIsSubmitted() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=1G] echo fine\n");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        io.gpusched.journal.LogDirLock held = io.gpusched.journal.LogDirLock.acquire(dir.resolve("logs"));
        try (held) {
            // no Slurm is needed: the lock is taken before any sbatch
            assertEquals(Cli.USAGE, new Cli(System.out, new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8), s -> { })
                    .run(jobs.toString(), "--executor", "slurm", "--log-dir", dir.resolve("logs").toString()));
        }
        String err = bytes.toString(StandardCharsets.UTF_8).strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("gpusched: ") && err.endsWith("nothing was submitted to Slurm"), err);
        assertTrue(Files.notExists(dir.resolve("logs/journal.jsonl")), "nothing journalled");
    }

    /**
     * Counts and numbers are range-checked as a local run's are (CliArgs.count, as --oom-retries): --gpu-shards
     * 4294967297 was cast to an int and silently became 1 shard per GPU, and 0 was refused only after the
     * whole command line, in words naming --shard-mib too. No Slurm is needed: nothing reaches sbatch.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "--gpu-shards 0|gpusched: --gpu-shards must be a whole number from 1 to 1000, got 0",
        "--gpu-shards 4294967297|gpusched: --gpu-shards must be a whole number from 1 to 1000, got 4294967297",
        "--gpu-shards 1001|gpusched: --gpu-shards must be a whole number from 1 to 1000, got 1001",
        "--gpu-shards -8|gpusched: --gpu-shards must be a whole number from 1 to 1000, got -8",
        "--gpu-shards many|gpusched: --gpu-shards needs a whole number, got 'many'",
        "--shard-mib 0|gpusched: --shard-mib must be a whole number from 1 to 2147483647, got 0",
        "--shard-mib 99999999999|gpusched: --shard-mib must be a whole number from 1 to 2147483647, got 99999999999",
        "--sim 0|gpusched: --sim must be a whole number from 1 to 64, got 0",
        "--poll -1|gpusched: --poll must be more than 0 and at most 86400 seconds, got -1",
        "--poll NaN|gpusched: --poll needs a number, got 'NaN'",
        "--tolerance 1.5|gpusched: --tolerance must be in [0, 1), got 1.5",
    })
    void aCountOrNumberOutOfRangeIsAOneLineUsageError_andNothingIsSubmitted(String option, String message)
            throws Exception {
        refusedBeforeAnythingIsSubmitted(option, message);
    }

    /**
     * The simulated GPUs are checked as a local run checks them, before anything is submitted: {@code --sim-mib}
     * without {@code --sim} was dropped unsaid (each job's wrapper detected a backend), {@code --sim 2 --backend
     * nvml} took whichever came last, and a {@code --sim-mib} or {@code --backend sim} the sim backend refuses
     * reached every Slurm job, whose wrapper then ran it unmeasured.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "--sim-mib 80G|gpusched: --sim-mib sizes simulated GPUs; give --sim N too",
        "--backend nvml --sim-mib 80G|gpusched: --sim-mib sizes simulated GPUs; give --sim N too",
        "--sim 2 --backend nvml|gpusched: --sim and --backend nvml contradict each other; give one",
        "--backend nvml --sim 2|gpusched: --sim and --backend nvml contradict each other; give one",
        "--sim 2 --sim-mib abc|gpusched: sim: mib=abc is not a memory size; use e.g. mib=24000, mib=80G or mib=24000,80G",
        "--sim 2 --sim-mib 1G,2G,3G|gpusched: sim: mib=1G,2G,3G gives 3 sizes for 2 GPUs; give one for all or one per"
                + " GPU, e.g. mib=24000,80G",
        "--backend sim|gpusched: sim: option gpus=N is required (N >= 1), e.g. --sim 2",
    })
    void simulatedGpusAreCheckedAsALocalRunChecksThem_andNothingIsSubmitted(String option, String message)
            throws Exception {
        refusedBeforeAnythingIsSubmitted(option, message);
    }

    /** {@code jobs.txt --executor slurm OPTION...} is a usage error saying {@code message}, and nothing is journalled. */
    private void refusedBeforeAnythingIsSubmitted(String option, String message) throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=1G] echo fine\n");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of(jobs.toString(), "--executor", "slurm", "--log-dir",
                dir.resolve("logs").toString()));
        args.addAll(List.of(option.split(" ")));
        assertEquals(Cli.USAGE, new Cli(System.out, new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8), s -> { })
                .run(args.toArray(String[]::new)), bytes.toString(StandardCharsets.UTF_8));
        assertEquals(message + "\n", bytes.toString(StandardCharsets.UTF_8));
        assertTrue(Files.notExists(dir.resolve("logs")), "nothing journalled");
    }

    @Test
    void anOptionOnlyALocalRunHasIsRefusedByName() throws Exception {
        CliRun run = new CliRun(dir, "echo hi\n");
        assertEquals(Cli.USAGE, new Cli(System.out, new java.io.PrintStream(new java.io.ByteArrayOutputStream()), s -> { })
                .run(run.jobs.toString(), "--executor", "slurm", "--exclusive"));
        assertEquals(Cli.USAGE, new Cli(System.out, System.err, s -> { }).run(run.jobs.toString(), "--executor", "pbs"));
    }

    @Test
    void aRequirementsFileThatCannotBeReadIsAOneLineUsageError() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "echo hi\n");
        Path rules = dir.resolve("rules.json");
        Files.writeString(rules, "{\"rules\": [{\"name\": \"x\"}]}");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        assertEquals(Cli.USAGE, new Cli(System.out, new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8), s -> { })
                .run(jobs.toString(), "--executor", "slurm", "--requirements", rules.toString()));
        String err = bytes.toString(StandardCharsets.UTF_8).strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.startsWith("gpusched: ") && err.contains("rules.json"), err);
    }

    @Test
    void onSlurmAJobFinishesWithTheSameVerdictLineAsTheSameJobRunLocally() throws Exception {
        Assumptions.assumeTrue(LocalSlurm.available(), LocalSlurm.SKIPPED);
        String job = CliRun.job("vram=1500", 1500, 0.2, 1.0);
        Files.createDirectories(dir.resolve("local"));
        CliRun local = new CliRun(dir.resolve("local"), job);
        assertEquals(0, local.runToEnd("--sim", "2"), local.errors());

        Path slurmDir = dir.resolve("slurm");
        Files.createDirectories(slurmDir);
        Path jobs = slurmDir.resolve("jobs.txt");
        Files.writeString(jobs, job);
        String out;
        try (LocalSlurm slurm = LocalSlurm.start(Files.createDirectories(dir.resolve("cluster")))) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            List<String> cmd = new ArrayList<>(List.of(java, "-cp", cp, Main.class.getName(), jobs.toString(),
                    "--executor", "slurm", "--sim", "2", "--shard-mib", "1000", "--gpu-shards", "8", "--poll", "0.2",
                    "--log-dir", slurmDir.resolve("logs").toString(), "--events", slurmDir.resolve("events.jsonl").toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().putAll(slurm.env());
            Process p = pb.start();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), out);
        }
        assertTrue(out.contains("job 1 submitted to Slurm as job "), out);
        assertTrue(out.contains("(--gres=shard:2)"), out);
        assertEquals(finishedLine(local.output()), finishedLine(out), "local:\n" + local.output() + "\nslurm:\n" + out);
        assertTrue(finishedLine(out).contains("peak vram gpu0:1500 MiB | declared 1500 MiB → within ±10%"), out);
        String events = Files.readString(slurmDir.resolve("events.jsonl"));
        assertTrue(events.contains("\"event\":\"job_finished\"") && events.contains("\"event\":\"run_finished\""), events);
    }

    @Test
    void aSlurmRunAnswersQueueAndCancelOnItsSocket_showingEachJobsSlurmJobAndState() throws Exception {
        Assumptions.assumeTrue(LocalSlurm.available(), LocalSlurm.SKIPPED);
        Path slurmDir = Files.createDirectories(dir.resolve("socket"));
        Path jobs = slurmDir.resolve("jobs.txt");
        Files.writeString(jobs, CliRun.job("vram=500", 500, 0.1, 60));
        Path logs = slurmDir.resolve("logs");
        try (LocalSlurm slurm = LocalSlurm.start(Files.createDirectories(dir.resolve("cluster")))) {
            String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            ProcessBuilder pb = new ProcessBuilder(javaBin, "-cp", cp, Main.class.getName(), jobs.toString(), "--executor",
                    "slurm", "--sim", "2", "--shard-mib", "1000", "--gpu-shards", "8", "--poll", "0.2", "--log-dir",
                    logs.toString()).redirectErrorStream(true).redirectOutput(slurmDir.resolve("run.out").toFile());
            pb.environment().putAll(slurm.env());
            Process run = pb.start();
            try {
                Path started = logs.resolve("slurm/job001-1/started.json");
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(40);
                String queue = "";
                // Until the row shows the GPU the wrapper reported (started.json), as the next board has it.
                while (System.nanoTime() < deadline && !queue.matches("(?s).*RUNNING\\) gpu\\[\\d.*")) {
                    Thread.sleep(200);
                    if (Files.exists(started)) {
                        queue = client("queue", "--log-dir", logs.toString());
                    }
                }
                String out = Files.readString(slurmDir.resolve("run.out"));
                assertTrue(queue.startsWith("1 running, 0 pending"), queue + "\nrun:\n" + out);
                java.util.regex.Matcher id = java.util.regex.Pattern.compile("job 1 submitted to Slurm as job (\\d+)")
                        .matcher(out);
                assertTrue(id.find(), out);
                assertTrue(queue.matches("(?s).*▶ job 1 \\(slurm job " + id.group(1) + " RUNNING\\) gpu\\[[01]\\] .*"), queue);
                assertTrue(Files.readString(logs.resolve("status.txt")).contains("--vram 500"), "the status board is written");

                String cancelled = client("cancel", "1", "--log-dir", logs.toString());
                assertTrue(run.waitFor(40, java.util.concurrent.TimeUnit.SECONDS), cancelled);
                out = Files.readString(slurmDir.resolve("run.out"));
                assertTrue(out.contains("job 1: scancel " + id.group(1)), out);
                assertTrue(out.contains("job 1 finished [CANCELLED]"), out);
                assertTrue(!Files.exists(logs.resolve(ClientCommand.RUN_SOCKET)), "the socket goes with the run");
            } finally {
                run.destroyForcibly().waitFor();
            }
        }
    }

    /** What the client verb prints, run in this JVM as the command line runs it. */
    private static String client(String... argv) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream out = new java.io.PrintStream(bytes, true, StandardCharsets.UTF_8);
        new Cli(out, out, s -> { }).run(argv);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /**
     * The job's finished line without its time stamp, duration and mean utilisation, which depend on when the
     * samples fell (a local run's first samples may precede the job's first report).
     */
    private static String finishedLine(String log) {
        return log.lines().filter(l -> l.contains("job 1 finished")).findFirst().orElse("(no finished line)")
                .replaceFirst("^\\[[0-9:]+\\] ", "").replaceFirst(" in [0-9.]+s", " in Xs")
                .replaceFirst(" \\| avg gpu util [0-9]+%$", " | avg gpu util N%");
    }
}

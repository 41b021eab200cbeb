package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.Verdict;
import io.gpusched.testkit.sim.SimJobs;
import io.gpusched.testkit.slurm.LocalSlurm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor against a real one-node Slurm (Debian's 22.05 daemons, two fake GPUs of 8 shards), each job
 * measured inside Slurm by the wrapper on simulated GPUs. Skips where Slurm is not installed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SlurmEndToEndTest {
    /** 1000 MiB shards, 8 per GPU, as the local cluster's gres.conf has them. */
    static final SlurmOptions OPTIONS = SlurmOptions.defaults().withShards(1000, LocalSlurm.SHARDS_PER_GPU)
            .withPoll(Duration.ofMillis(200)).withBackend("sim", Map.of("gpus", "2"));

    @TempDir
    static Path clusterDir;
    private static LocalSlurm slurm;

    @TempDir
    Path work;

    @BeforeAll
    static void startCluster() throws Exception {
        Assumptions.assumeTrue(LocalSlurm.available(), LocalSlurm.SKIPPED);
        slurm = LocalSlurm.start(clusterDir);
    }

    @AfterAll
    static void stopCluster() {
        if (slurm != null) {
            slurm.close();
        }
    }

    /** The wrapper as the compute node starts it: this test JVM's class path, which holds the sim backend. */
    static List<String> wrapper() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", cp, SlurmWrap.class.getName());
    }

    static CommandRunner commands(LocalSlurm cluster) {
        CommandRunner system = CommandRunner.system();
        return argv -> system.run(cluster.command(argv));
    }

    private Path jobs(String... lines) throws IOException {
        Path f = work.resolve("jobs.txt");
        Files.writeString(f, String.join("\n", lines) + "\n");
        return f;
    }

    private static String sim(String flags) {
        return SimJobs.shellCommand() + " " + flags;
    }

    /** Runs the file, collecting events and notes. */
    private record Ran(RunSummary summary, List<SchedulerEvent> events, List<String> notes) {
        <T extends SchedulerEvent> List<T> of(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }

        JobResult result(int no) {
            return summary.results().stream().filter(r -> r.no() == no).findFirst().orElseThrow();
        }
    }

    private Ran run(Path jobsFile, SlurmOptions options) {
        List<SchedulerEvent> events = Collections.synchronizedList(new ArrayList<>());
        List<String> notes = Collections.synchronizedList(new ArrayList<>());
        RunSummary s = new SlurmExecutor(jobsFile, work.resolve("logs"), options, commands(slurm), wrapper(), events::add,
                notes::add).run();
        return new Ran(s, events, notes);
    }

    @Test
    void shardJobsArePackedTwoToAGpu_andEachIsJudgedOnThePeakTheWrapperMeasured() throws Exception {
        // vram=4000 → shard:4; two fit on each 8-shard GPU, so all four run at once on the two GPUs
        String job = "[vram=4000] " + sim("--vram 3900 --ramp 0.2 --hold 2.5");
        Ran ran = run(jobs(job + " # a", job + " # b", job + " # c", job + " # d"), OPTIONS);
        assertEquals(0, ran.summary().exitCode(), ran.events().toString());
        Map<Integer, Long> perGpu = ran.of(SchedulerEvent.JobStarted.class).stream()
                .collect(Collectors.groupingBy(s -> s.gpus().get(0), Collectors.counting()));
        assertEquals(Map.of(0, 2L, 1, 2L), perGpu, "two shard jobs on each GPU");
        for (JobResult r : ran.summary().results()) {
            assertEquals(JobStatus.OK, r.status());
            assertEquals(3900L, r.overallPeakMib(), "the wrapper's peak, not Slurm's grant");
            assertEquals(Verdict.WITHIN, r.verdict());
        }
        // they overlapped: four 2.5 s jobs finished in well under four times that
        long maxStart = ran.summary().results().stream().mapToLong(r -> r.duration().toMillis()).max().orElseThrow();
        assertTrue(maxStart >= 2500, "each ran its 2.5 s");
        assertTrue(ran.notes().stream().anyMatch(n -> n.contains("--gres=shard:4")), ran.notes().toString());
    }

    @Test
    void aCudaOomIsRetriedAsANewSlurmJobWithMoreShards() throws Exception {
        Path marker = work.resolve("oom-once");
        Ran ran = run(jobs("[vram=2000 retries=1] " + sim("--vram 1900 --hold 0.3 --oom-once " + marker)), OPTIONS);
        List<SchedulerEvent.RequeuedAfterOom> ooms = ran.of(SchedulerEvent.RequeuedAfterOom.class);
        assertEquals(1, ooms.size(), ran.events().toString());
        assertEquals(2500L, ooms.get(0).nextMib().getAsLong(), "⌈1.25 × 2000⌉");
        assertEquals(JobStatus.OK, ran.result(1).status());
        assertTrue(ran.notes().stream().anyMatch(n -> n.contains("--gres=shard:2")), ran.notes().toString());
        assertTrue(ran.notes().stream().anyMatch(n -> n.contains("--gres=shard:3")), "resubmitted with 3 shards: "
                + ran.notes());
        String journal = Files.readString(work.resolve("logs/journal.jsonl"));
        assertEquals(2, journal.lines().filter(l -> l.contains("\"slurm_submitted\"")).count(), journal);
        assertTrue(journal.contains("\"event\":\"oom\""), journal);
    }

    @Test
    void aCancelWordAddedToTheLineScancelsTheRunningSlurmJob() throws Exception {
        String line = sim("--vram 500 --hold 60");
        Path f = jobs(line);
        CompletableFuture<Ran> running = CompletableFuture.supplyAsync(() -> run(f, OPTIONS));
        Path started = work.resolve("logs/slurm/job001-1/started.json");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(started) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(Files.exists(started), "the job started in Slurm");
        Files.writeString(f, "[cancel] " + line + "\n");
        Ran ran = running.get(40, TimeUnit.SECONDS);
        assertEquals(JobStatus.CANCELLED, ran.result(1).status(), ran.events().toString());
        assertTrue(ran.notes().stream().anyMatch(n -> n.startsWith("job 1: scancel ")), ran.notes().toString());
    }

    @Test
    void aRestartedSubmitterFollowsTheSlurmJobsItsKilledPredecessorSubmitted_andSubmitsNoneTwice() throws Exception {
        String job = sim("--vram 700 --hold 3");
        Path f = jobs(job + " # one", job + " # two");
        Path logs = work.resolve("logs");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process first = new ProcessBuilder(java, "-cp", cp, SubmitterMain.class.getName(), f.toString(), logs.toString(),
                slurm.env().get("SLURM_CONF")).redirectErrorStream(true)
                .redirectOutput(work.resolve("first.out").toFile()).start();
        Path journal = logs.resolve("journal.jsonl");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (submitted(journal) < 2 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        first.destroyForcibly().waitFor();
        assertEquals(2, submitted(journal), Files.readString(work.resolve("first.out")));

        Ran ran = run(f, OPTIONS);
        assertEquals(0, ran.summary().exitCode(), ran.events().toString());
        assertEquals(2, ran.notes().stream().filter(n -> n.contains("followed again, not submitted twice")).count(),
                ran.notes().toString());
        assertTrue(ran.notes().stream().noneMatch(n -> n.contains("submitted to Slurm")), ran.notes().toString());
        assertEquals(2, submitted(journal), "no attempt submitted twice");
        List<String> names = new ArrayList<>();
        for (String attempt : List.of("job001-1", "job002-1")) {
            names.add("gs-" + Files.readString(logs.resolve("slurm").resolve(attempt).resolve(SlurmExecutor.TOKEN)).strip());
        }
        CommandRunner.Result q = commands(slurm).run(List.of("squeue", "-h", "-t", "all", "-o", "%j"));
        assertEquals(2, q.stdout().lines().filter(names::contains).count(), "each submitted once: " + q.stdout());
        for (JobResult r : ran.summary().results()) {
            assertEquals(700L, r.overallPeakMib(), "measured inside the job while no submitter watched");
        }
    }

    @Test
    void oneLineSlurmRefusesFailsAlone_andTheRestRun() throws Exception {
        // three whole GPUs on a node of two: sbatch itself refuses the job (exit 1)
        Ran ran = run(jobs("[gpus=3] echo never", sim("--vram 500 --hold 0.3")), OPTIONS);
        assertEquals(JobStatus.INFEASIBLE, ran.result(1).status(), ran.events().toString());
        assertEquals(JobStatus.OK, ran.result(2).status(), ran.events().toString());
        String why = ran.of(SchedulerEvent.JobInfeasible.class).get(0).reason();
        assertTrue(why.startsWith("jobs.txt:1: job 1 (--gres=gpu:3): sbatch refused it (exit 1): sbatch: error:"), why);
        assertTrue(!why.contains("\n"), why);
    }

    @Test
    void aPartitionSlurmDoesNotHaveEndsTheRun_sinceNoJobCanBeSubmitted() throws Exception {
        Path f = jobs(sim("--vram 500 --hold 0.3"), "echo two");
        SlurmException e = org.junit.jupiter.api.Assertions.assertThrows(SlurmException.class,
                () -> run(f, OPTIONS.withPartition("nosuchpartition")));
        assertTrue(e.getMessage().startsWith("jobs.txt:1: job 1 (--gres=gpu:1): sbatch failed (exit 1):"), e.getMessage());
        assertTrue(e.getMessage().endsWith("(--account): check them"), e.getMessage());
    }

    @Test
    void theJobIsToldItsGpusNumberAndKey_asALocalJobIs() throws Exception {
        Path out = work.resolve("env.out");
        Ran ran = run(jobs("echo first", "[vram=2000] printf '%s|%s|%s\\n' \"$GPUSCHED_GPUS\" \"$GPUSCHED_JOB_NO\""
                + " \"$GPUSCHED_JOB_KEY\" > '" + out + "'"), OPTIONS);
        assertEquals(0, ran.summary().exitCode(), ran.events().toString());
        List<Integer> gpus = ran.of(SchedulerEvent.JobStarted.class).stream().filter(s -> s.no() == 2).findFirst()
                .orElseThrow().gpus();
        assertEquals(1, gpus.size(), "one GPU's shards: " + gpus);
        assertEquals(gpus.get(0) + "|2|" + ran.result(2).key() + "\n", Files.readString(out));
    }

    @Test
    void commandLongerThanAnArgumentStillSubmits() throws Exception {
        // 60000 single quotes: 240000 bytes once quoted for sh, over one argument's 128 KiB (MAX_ARG_STRLEN)
        String quotes = "'".repeat(60_000);
        Path out = work.resolve("quotes.out");
        Ran ran = run(jobs("printf %s \"" + quotes + "\" > '" + out + "'"), OPTIONS);
        assertEquals(JobStatus.OK, ran.result(1).status(), ran.notes().toString());
        assertEquals(quotes, Files.readString(out));
    }

    private static long submitted(Path journal) throws IOException {
        return Files.exists(journal) ? Files.readString(journal).lines().filter(l -> l.contains("\"slurm_submitted\""))
                .count() : 0;
    }
}

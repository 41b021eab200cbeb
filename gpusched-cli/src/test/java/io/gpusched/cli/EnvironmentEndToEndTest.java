package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpusched.JobHandle;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.model.SubmitContext;
import io.gpusched.jobs.JobSpec;
import io.gpusched.testkit.sim.SimulatedGpuBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code [setup=...]} and {@code [conda=...]} end to end: the real CLI (in this JVM, or in its own with
 * the PATH a test needs) on simulated GPUs, real job processes, a venv-like activate script, a real
 * {@code python3 -m venv} where there is one, and a fake {@code conda} ({@link FakeConda}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EnvironmentEndToEndTest {
    private static final List<String> FAST = List.of("--poll", "0.1", "--sample", "0.05", "--kill-grace", "0.5");

    @TempDir
    Path dir;

    @Test
    void setupSourcesAnActivateScriptInTheCommandsShell() throws Exception {
        Path venv = Files.createDirectories(dir.resolve("venv/bin"));
        Files.writeString(venv.resolve("activate"), "VIRTUAL_ENV='" + dir.resolve("venv") + "'\nexport VIRTUAL_ENV\n"
                + "PATH=\"$VIRTUAL_ENV/bin:$PATH\"\nexport PATH\nexport GREETING=hello\n");
        Path out = dir.resolve("out");
        CliRun run = new CliRun(dir, "[setup='source " + venv.resolve("activate") + "' vram=1G] echo \"$GREETING from $VIRTUAL_ENV\""
                + " > " + out + "\n");
        assertEquals(0, run.runToEnd("--sim", "1"), run.output());
        assertEquals("hello from " + dir.resolve("venv"), Files.readString(out).strip());
        assertTrue(run.output().contains("all 1 jobs done — 1 ok, 0 failed"), run.output());
    }

    @Test
    void setupActivatesARealPythonVenvForTheCommand() throws Exception {
        Process make = new ProcessBuilder("python3", "-m", "venv", "--without-pip", dir.resolve("venv").toString())
                .redirectErrorStream(true).start();
        make.getInputStream().readAllBytes();
        assumeTrue(make.waitFor() == 0, "needs python3 with its venv module");
        Path out = dir.resolve("prefix");
        CliRun run = new CliRun(dir, "[setup='cd " + dir + " && . venv/bin/activate'] python -c 'import sys; print(sys.prefix)' > "
                + out + "\n");
        assertEquals(0, run.runToEnd("--sim", "1"), run.output());
        assertEquals(dir.resolve("venv").toRealPath().toString(), Path.of(Files.readString(out).strip()).toRealPath().toString());
    }

    @Test
    void aFailingSetupFailsTheJobWithItsStatus_theCommandDoesNotRun_logBoardAndSummarySayWhy() throws Exception {
        Path ran = dir.resolve("ran");
        CliRun run = new CliRun(dir, "[setup='echo checking the venv; [ -d " + dir.resolve("no-venv") + " ]'] touch " + ran + "\n"
                + "[setup='exit_with() { return 3; }; exit_with'] touch " + ran + "\n");
        assertEquals(3, run.runToEnd("--sim", "1"), run.output());
        assertFalse(Files.exists(ran), "the command ran after a failed setup");
        assertEquals("checking the venv\ngpusched: setup exited 1; the command did not run\n",
                Files.readString(run.logs.resolve("job001_gpu0.log")));
        Path log1 = run.logs.resolve("job001_gpu0.log");
        run.await("WARN  job 1: setup exited 1; the command did not run — the setup's output is in " + log1);
        assertTrue(run.await("job 1 finished [EXIT 1]").contains(" — setup exited 1; the command did not run — peak vram"),
                run.output());
        assertTrue(run.output().contains("failed: job 1 (failed, exit 1, setup exited 1; the command did not run) — touch " + ran),
                run.output());
        assertTrue(run.output().contains("failed: job 2 (failed, exit 3, setup exited 3; the command did not run)"), run.output());
        String board = Files.readString(run.logs.resolve("status.txt"));
        assertTrue(board.contains("job 1   failed (exit 1, setup exited 1; the command did not run, peak none seen)"), board);
    }

    @Test
    void condaRunsTheCommandLineInItsEnvironment_quotesPipesAndAndsIntact_andATimeoutKillsWhatItStarted() throws Exception {
        Path argv = dir.resolve("conda-argv");
        Path bin = FakeConda.install(dir.resolve("condabin"), argv);
        String first = "echo \"env=$CONDA_DEFAULT_ENV\" > out && printf '%s|' 'a b' \"c'd\" | tr a-z A-Z >> out";
        String second = "sleep 30 & echo $! > sleeper; wait";
        Files.writeString(dir.resolve("jobs.txt"), "[conda=torch vram=1G] " + first + "\n"
                + "[conda='/opt/my envs/x' timeout=1 vram=1G] " + second + "\n");
        try (SchedulerProcess s = SchedulerProcess.start(dir, args(), Map.of("PATH", bin + ":" + System.getenv("PATH")))) {
            assertEquals(124, s.awaitExit(), s.output());
            assertTrue(s.output().contains("job 1 finished [OK]"), s.output());
            assertTrue(s.output().contains("job 2 finished [TIMEOUT]"), s.output());
        }
        assertEquals("env=torch\nA B|C'D|", Files.readString(dir.resolve("out")).strip());
        // Both start in the same round: their calls may be recorded in either order.
        assertEquals(java.util.Set.of(List.of("run", "-n", "torch", "--no-capture-output", "sh", "-c", first),
                List.of("run", "-p", "/opt/my envs/x", "--no-capture-output", "sh", "-c", second)),
                java.util.Set.copyOf(FakeConda.calls(argv)));
        // Signalled with its session; its exit (and the reaping of an orphan) may take a moment.
        Optional<ProcessHandle> sleeper = ProcessHandle.of(Long.parseLong(Files.readString(dir.resolve("sleeper")).strip()));
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); sleeper.map(ProcessHandle::isAlive).orElse(false)
                && System.nanoTime() < end; ) {
            Thread.sleep(20);
        }
        assertFalse(sleeper.map(ProcessHandle::isAlive).orElse(false), "the command conda started outlived its job's timeout");
    }

    @Test
    void withoutCondaOnThePathTheJobFailsAt127_itsLogTheSchedulersLogBoardAndSummarySayWhyAndWhatToDo() throws Exception {
        Files.writeString(dir.resolve("jobs.txt"), "[conda=torch vram=1G] touch ran\n");
        try (SchedulerProcess s = SchedulerProcess.start(dir, args(), Map.of("PATH", "/usr/bin:/bin"))) {
            assertEquals(127, s.awaitExit(), s.output());
            assertTrue(s.output().contains("WARN  job 1: conda=torch but no 'conda' on PATH — activate conda's base in the shell"
                    + " that starts gpusched (or submits the job), or add setup='. ~/miniconda3/etc/profile.d/conda.sh' (where"
                    + " conda is installed) to the job"), s.output());
            assertTrue(s.output().contains("job 1 finished [EXIT 127]"), s.output());
            assertTrue(s.output().contains("failed: job 1 (failed, exit 127, conda=torch but no 'conda' on PATH) — touch ran"),
                    s.output());
        }
        assertFalse(Files.exists(dir.resolve("ran")));
        assertEquals("gpusched: conda=torch but no 'conda' on PATH; activate conda's base in the shell that starts gpusched"
                + " (or submits the job), or add setup='. ~/miniconda3/etc/profile.d/conda.sh' (where conda is installed) to"
                + " the job\n", Files.readString(dir.resolve("logs/job001_gpu0.log")));
        assertTrue(Files.readString(dir.resolve("logs/status.txt"))
                .contains("job 1   failed (exit 127, conda=torch but no 'conda' on PATH, peak none seen) — touch ran"));
    }

    @Test
    void aSubmissionRunsInItsCondaEnvironmentWithItsSetup_andSoDoesItsRerunAfterARestart() throws Exception {
        Path argv = dir.resolve("conda-argv");
        Path bin = FakeConda.install(dir.resolve("condabin"), argv);
        Path out = dir.resolve("out");
        Path pid = dir.resolve("pid");
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("PATH", bin + ":/usr/bin:/bin");
        SubmitContext context = SubmitContext.current().withWorkDir(dir).withEnvironment(env);
        String line = "[conda=torch setup='export STAGE=\"two words\"' vram=1G] echo \"$STAGE in $CONDA_DEFAULT_ENV\" >> " + out
                + "; echo $$ > " + pid + "; [ -f stop ] || exec sleep 30";
        List<SchedulerEvent> events = new CopyOnWriteArrayList<>();
        try (SimulatedGpuBackend gpus = new SimulatedGpuBackend(1)) {
            Scheduler s = scheduler(gpus, events);
            s.submit(JobSpec.parse(line), context);
            CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
            while (!Files.exists(pid) || Files.readString(pid).isBlank()) {
                Thread.sleep(10);
            }
            s.close();
            assertTrue(run.get(30, TimeUnit.SECONDS).interrupted());
        }
        Files.writeString(dir.resolve("stop"), "");
        try (SimulatedGpuBackend gpus = new SimulatedGpuBackend(1)) {
            RunSummary again = scheduler(gpus, events).run();
            assertEquals(0, again.exitCode(), events.toString());
            assertEquals(JobStatus.OK, again.results().get(0).status());
        }
        assertEquals(List.of("two words in torch", "two words in torch"), Files.readAllLines(out));
        assertEquals(2, FakeConda.calls(argv).size(), "the rebuilt submission ran through conda too");
    }

    @Test
    void aCommandQuotedPastTheKernelsLimitForOneArgumentStillRuns() throws Exception {
        Path bin = FakeConda.install(dir.resolve("condabin"), dir.resolve("conda-argv"));
        Path out = dir.resolve("out");
        // 20,000 empty words: each of their 40,000 quotes becomes 4 characters when quoted for conda's sh -c,
        // past Linux's 128 KiB for one argument.
        String command = "echo" + " ''".repeat(20_000) + " > /dev/null && echo ran > " + out;
        CliRun run = new CliRun(dir, "[conda=torch setup='PATH=" + bin + ":$PATH'] " + command + "\n");
        assertEquals(0, run.runToEnd("--sim", "1"), run.output());
        assertEquals("ran", Files.readString(out).strip());
        assertTrue(command.equals(FakeConda.calls(dir.resolve("conda-argv")).get(0).get(6)), "conda got the command whole");
    }

    @Test
    void aSubmittedSetupThatFailsSaysSoInItsResult() throws Exception {
        try (SimulatedGpuBackend gpus = new SimulatedGpuBackend(1)) {
            List<SchedulerEvent> events = new CopyOnWriteArrayList<>();
            Scheduler s = scheduler(gpus, events);
            JobHandle h = s.submit(JobSpec.parse("[setup='false'] true"), SubmitContext.current().withWorkDir(dir));
            s.run();
            JobResult r = h.result().get(10, TimeUnit.SECONDS);
            assertEquals(JobStatus.FAILED, r.status());
            assertEquals(1, r.exitCode());
            assertEquals(Optional.of("setup exited 1; the command did not run"), r.cause());
        }
    }

    private Scheduler scheduler(SimulatedGpuBackend gpus, List<SchedulerEvent> events) {
        return Scheduler.builder().backend(gpus).logDir(dir.resolve("logs")).jobs(List.of()).listener(events::add)
                .options(SchedulerOptions.defaults().withPoll(Duration.ofMillis(100)).withSampleInterval(Duration.ofMillis(50))
                        .withKillGrace(Duration.ofMillis(500)))
                .build();
    }

    private List<String> args() {
        List<String> a = new java.util.ArrayList<>(List.of("jobs.txt", "--sim", "1", "--log-dir", "logs"));
        a.addAll(FAST);
        return a;
    }
}

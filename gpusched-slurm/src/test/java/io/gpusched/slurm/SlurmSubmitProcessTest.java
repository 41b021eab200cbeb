package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the submitter hands {@code sbatch}, carried out by real programs, without Slurm: a stand-in
 * {@code sbatch} that is a program of its own (so the kernel's limits on its arguments apply), which runs the
 * job script it is given with {@code sh} at once, as a node would, with the variables Slurm sets for a job
 * and one a submitter's environment could pass on; the script starts the real wrapper on simulated GPUs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlurmSubmitProcessTest {
    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = Collections.synchronizedList(new ArrayList<>());
    private final List<String> notes = Collections.synchronizedList(new ArrayList<>());

    /** The stand-in cluster: sbatch runs the script (its last argument) and prints its own pid as the job id. */
    private CommandRunner cluster() throws IOException {
        Path sbatch = dir.resolve("sbatch");
        Files.writeString(sbatch, """
                #!/bin/sh
                for script; do :; done
                CUDA_VISIBLE_DEVICES=1 GPUSCHED_JOB_NO=99 GPUSCHED_GPUS=7 sh "$script" > /dev/null 2>&1 || exit 1
                echo $$
                """);
        assertTrue(sbatch.toFile().setExecutable(true));
        Map<Long, String> ended = new ConcurrentHashMap<>();
        CommandRunner system = CommandRunner.system();
        return argv -> switch (argv.get(0)) {
            case "sbatch" -> {
                List<String> real = new ArrayList<>(argv);
                real.set(0, sbatch.toString());
                CommandRunner.Result r = system.run(real); // a real exec: E2BIG for an argument over 128 KiB
                if (r.ok()) {
                    ended.put(Long.parseLong(r.stdout().strip()), "COMPLETED");
                }
                yield r;
            }
            case "squeue" -> {
                StringBuilder b = new StringBuilder();
                ended.forEach((id, state) -> b.append(id).append("|gs-x|").append(state).append('\n'));
                yield new CommandRunner.Result(0, b.toString(), "");
            }
            case "scancel" -> new CommandRunner.Result(0, "", "");
            default -> throw new AssertionError("unexpected command " + argv);
        };
    }

    private RunSummary run(String... lines) throws IOException {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, String.join("\n", lines) + "\n");
        SlurmOptions o = SlurmOptions.defaults().withShards(1000, 8).withPoll(Duration.ofMillis(50))
                .withBackend("sim", Map.of("gpus", "2"));
        return new SlurmExecutor(jobs, dir.resolve("logs"), o, cluster(), SlurmEndToEndTest.wrapper(), events::add,
                notes::add).run();
    }

    private static JobResult result(RunSummary s, int no) {
        return s.results().stream().filter(r -> r.no() == no).findFirst().orElseThrow(() -> new AssertionError(
                "no job " + no + " in " + s.results()));
    }

    @Test
    void wrapperSetsGpuschedGpusAndJobNo() throws Exception {
        Path out = dir.resolve("env.out");
        RunSummary s = run("echo first", "[vram=900] printf '%s|%s|%s\\n' \"$GPUSCHED_GPUS\" \"$GPUSCHED_JOB_NO\""
                + " \"$GPUSCHED_JOB_KEY\" > '" + out + "'");
        assertEquals(0, s.exitCode(), s.results() + " " + notes);
        // the GPU Slurm gave it (CUDA_VISIBLE_DEVICES=1), its number and key: not what the submitter's environment said
        assertEquals("1|2|" + result(s, 2).key() + "\n", Files.readString(out));
        SchedulerEvent.JobStarted started = events.stream().filter(e -> e instanceof SchedulerEvent.JobStarted j
                && j.no() == 2).map(e -> (SchedulerEvent.JobStarted) e).findFirst().orElseThrow();
        assertEquals(List.of(1), started.gpus(), "the same GPUs the run reports");
    }

    @Test
    void commandLongerThanAnArgumentStillSubmits() throws Exception {
        // 60000 single quotes (a jobs file line is at most 64 KiB), each quoted as '\'' in the job's shell line:
        // 240000 bytes, over what one argument of a program may be (MAX_ARG_STRLEN, 128 KiB), so not passable
        // as sbatch --wrap=...
        String quotes = "'".repeat(60_000);
        Path out = dir.resolve("quotes.out");
        RunSummary s = run("printf %s \"" + quotes + "\" > '" + out + "'", "echo after");
        assertEquals(JobStatus.OK, result(s, 1).status(), s.results() + " " + notes);
        assertEquals(JobStatus.OK, result(s, 2).status());
        assertEquals(quotes, Files.readString(out), "the command ran as written");
        assertTrue(Files.size(dir.resolve("logs/slurm/job001-1").resolve(SlurmDriver.SCRIPT)) > 240_000,
                "the job script holds it");
    }
}

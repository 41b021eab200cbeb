package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the scheduler's log says happened is already in {@code journal.jsonl}: the real CLI is
 * SIGKILLed the instant a {@code started} or {@code finished} line is read from it, and the journal
 * must then hold the event that line reports.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AcknowledgedEventsEndToEndTest {
    @TempDir
    Path dir;

    /**
     * A failed assertion before the last scheduler leaves a killed one's jobs running, and their monitors,
     * which write each job's exit file under {@link #dir} as it ends: a fraction of a second later, as the
     * directory is removed.
     */
    @AfterEach
    void endWhatKilledSchedulersLeftRunning() throws InterruptedException {
        RunsLeftBehind.end(dir.resolve("logs"));
    }

    @Test
    void aLineInTheLogIsInTheJournalEvenWhenTheSchedulerIsKilledTheInstantItAppears() throws Exception {
        // one job at a time on one GPU, so every run starts and finishes jobs in turn
        StringBuilder jobs = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            jobs.append("[vram=20G] $GPUSCHED_SIMJOB --vram 19000 --ramp 0.05 --hold 0.2").append(i % 3 == 0 ? " --exit-code 4" : "")
                    .append(" # job ").append(i).append('\n');
        }
        Path jobsFile = Files.writeString(dir.resolve("jobs.txt"), jobs.toString());
        Path logs = dir.resolve("logs");
        List<String> args = List.of(jobsFile.toString(), "--sim", "1", "--poll", "0.1", "--log-dir", logs.toString());
        Map<String, String> env = Map.of("GPUSCHED_SIM_DIR", Files.createDirectories(dir.resolve("sim")).toString());
        List<List<String>> outputs = new ArrayList<>();
        List<KillPlan.AfterLine> plans = List.of(new KillPlan.AfterLine(" started on gpu [", 1, 0),
                new KillPlan.AfterLine(" finished [", 1, 0), new KillPlan.AfterLine(" started on gpu [", 2, 0),
                new KillPlan.AfterLine(" finished [", 2, 0), new KillPlan.AfterLine(" finished [", 1, 0));
        for (KillPlan.AfterLine plan : plans) {
            try (SchedulerProcess s = SchedulerProcess.start(dir, args, env, plan.trigger())) {
                int code = s.awaitExit();
                outputs.add(s.lines());
                String line = s.killedAfter().orElseThrow(() -> new AssertionError("no line " + plan + ":\n" + s.output()));
                assertEquals(137, code, "killed by SIGKILL");
                assertTrue(ChaosInvariants.ack(line).isPresent(), "an acknowledging line: " + line);
                JournalLines.Parsed journal = JournalLines.read(logs.resolve("journal.jsonl"));
                assertEquals(List.of(), ChaosInvariants.unjournaledAcks(outputs, journal),
                        "killed right after '" + line + "'; journal:\n" + Files.readString(logs.resolve("journal.jsonl")));
            }
        }
        // a last scheduler finishes the queue, waiting out the orphans, so no job outlives the test
        try (SchedulerProcess last = SchedulerProcess.start(dir, args, env)) {
            last.awaitExit();
            assertTrue(last.lines().stream().anyMatch(l -> l.startsWith("all ")), last.output());
        }
        JournalLines.Parsed journal = JournalLines.read(logs.resolve("journal.jsonl"));
        List<Long> sessions = journal.lines().stream().filter(l -> l.event().equals("started"))
                .map(l -> Long.parseLong(l.field("pgid").orElseThrow())).toList();
        assertEquals(List.of(), ProcSessions.liveMembers(sessions));
        Map<Integer, String> keys = journal.keysByNo();
        for (int no = 1; no <= 8; no++) {
            assertEquals(1, journal.of(keys.get(no), "done").size(), "job " + no + ": one outcome");
        }
    }
}

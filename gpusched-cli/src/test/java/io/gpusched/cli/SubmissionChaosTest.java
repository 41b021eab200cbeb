package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills while submissions arrive: an embedding JVM submits jobs through the API and is SIGKILLed at
 * seeded random moments, then restarted on the same log directory, until a last one finishes. Each
 * submission the journal holds runs exactly once (its ledger has one start and one end, and never two
 * runs at once), and every submission that was acknowledged ended ok.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SubmissionChaosTest {
    private static final int JOBS = 60;
    private static final int KILLS = 5;

    @TempDir
    Path dir;

    private Process driver(Path logs, Path ledger, Path acks, Path sim) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                SubmitDriver.class.getName(), logs.toString(), ledger.toString(), acks.toString(), String.valueOf(JOBS))
                .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("driver.out").toFile());
        pb.environment().put("GPUSCHED_SIM_DIR", sim.toString());
        return pb.start();
    }

    @Test
    void everySubmissionRunsExactlyOnceWhateverMomentItsSchedulerIsKilledAt() throws Exception {
        long seed = Long.getLong("gpusched.chaos.seed", 20261123L);
        Random rnd = new Random(seed);
        Path logs = dir.resolve("logs");
        Path ledger = Files.createDirectories(dir.resolve("ledger"));
        Path acks = dir.resolve("acks");
        Path sim = Files.createDirectories(dir.resolve("sim"));
        List<String> story = new ArrayList<>();
        for (int k = 0; k < KILLS; k++) {
            Process p = driver(logs, ledger, acks, sim);
            long delay = 400 + rnd.nextInt(1000);
            if (p.waitFor(delay, TimeUnit.MILLISECONDS)) {
                story.add("driver exited " + p.exitValue() + " before its kill at " + delay + " ms");
                break;
            }
            p.destroyForcibly().waitFor();
            story.add("SIGKILL after " + delay + " ms with " + acked(acks).size() + " acknowledged");
        }
        Process last = driver(logs, ledger, acks, sim);
        System.out.println("submission chaos seed " + seed + ": " + story);
        assertTrue(last.waitFor(180, TimeUnit.SECONDS), "the last driver hangs");
        String out = Files.readString(dir.resolve("driver.out"), StandardCharsets.UTF_8);
        assertTrue(out.contains("DRIVER DONE") && !out.contains("DRIVER FAILED"), story + "\n" + out);

        JournalState state;
        try (Journal j = Journal.open(logs.resolve("journal.jsonl"), false)) {
            state = j.state();
            assertEquals(List.of(), j.loadWarnings());
        }
        Set<Integer> submittedIndices = new HashSet<>();
        List<String> violations = new ArrayList<>();
        for (JournalEvent.Submitted s : state.submissions()) {
            String status = state.record(s.key()).status();
            if (!"ok".equals(status)) {
                violations.add(s.key() + " ended " + status);
            }
            submittedIndices.add(Integer.parseInt(s.command().substring(s.command().lastIndexOf("idx-") + 4)));
            List<String> lines = ledgerLines(ledger.resolve("job" + s.no()));
            long starts = lines.stream().filter(l -> l.startsWith("start ")).count();
            long ends = lines.stream().filter(l -> l.startsWith("end ")).count();
            if (starts != 1 || ends != 1 || lines.stream().anyMatch(l -> l.startsWith("overlap "))) {
                violations.add(s.key() + " ran " + starts + " times, ended " + ends + " times: " + lines);
            }
        }
        for (int i : acked(acks)) {
            if (!submittedIndices.contains(i)) {
                violations.add("acknowledged submission " + i + " is not in the journal");
            }
        }
        assertTrue(submittedIndices.size() == JOBS, "every index was submitted: " + submittedIndices);
        assertEquals(List.of(), violations, "seed " + seed + ": " + story);
    }

    private static List<String> ledgerLines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private static Set<Integer> acked(Path acks) throws IOException {
        Set<Integer> out = new HashSet<>();
        if (Files.exists(acks)) {
            Files.readAllLines(acks).stream().filter(l -> !l.isBlank()).map(Integer::parseInt).forEach(out::add);
        }
        return out;
    }
}

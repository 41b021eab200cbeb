package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.journal.JournalState;
import io.gpusched.service.GpuschedClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills on the socket path: a real {@code gpusched serve} on simulated GPUs, several client processes
 * submitting short jobs ({@link ServeChaosClient}), and the test SIGKILLs the daemon at seeded random
 * moments and starts it again on the same log directory, and SIGKILLs clients too: one in the middle
 * of a request, one at a random moment (then started again). The clients retry on {@code unreachable}
 * under their request ids. Every job writes its number and marker to a ledger. Then: every
 * acknowledged submission ran exactly once, under the number it was acknowledged with; no marker ran
 * twice and no number was given twice; the journal reads back without a torn line and holds only whole
 * submissions, each ended ok and run once; the half-sent request left nothing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeChaosTest {
    private static final int CLIENTS = 3;
    private static final int JOBS_EACH = 20;
    private static final int DAEMON_KILLS = 4;
    /** Between one client's submissions: they go on through every kill (a restart takes about a second). */
    private static final int PAUSE_MS = 150;

    @TempDir
    Path dir;

    private ServeDaemon daemon;
    private final List<Process> clients = new ArrayList<>();

    @AfterEach
    void killAll() {
        clients.forEach(Process::destroyForcibly);
        if (daemon != null) {
            daemon.close();
        }
    }

    private Process client(String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), ServeChaosClient.class.getName()));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        clients.add(p);
        return p;
    }

    private Process submitter(int id) throws IOException {
        return client(daemon.socket().toString(), ledger().toString(), dir.resolve("acks" + id).toString(), "c" + id,
                String.valueOf(JOBS_EACH), String.valueOf(PAUSE_MS));
    }

    private Path ledger() {
        return dir.resolve("ledger");
    }

    @Test
    void everyAcknowledgedSubmissionRunsExactlyOnce_whateverMomentTheDaemonOrAClientIsKilledAt() throws Exception {
        long seed = Long.getLong("gpusched.chaos.seed", 20261124L);
        Random rnd = new Random(seed);
        List<String> story = new ArrayList<>();
        daemon = new ServeDaemon(dir, "--sim", "2", "--poll", "0.1", "--kill-grace", "1").start();
        List<Process> submitters = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            submitters.add(submitter(i));
        }
        int victim = rnd.nextInt(CLIENTS);
        for (int k = 0; k < DAEMON_KILLS; k++) {
            long delay = 200 + rnd.nextInt(600);
            Thread.sleep(delay);
            if (k == 1) {
                // A client killed in the middle of a request: the whole request is there but not its end.
                Process half = client("half", daemon.socket().toString(), ledger().toString());
                assertEquals("SENT", half.inputReader(StandardCharsets.UTF_8).readLine());
                half.destroyForcibly().waitFor();
                // Time for the daemon to see that connection end before its own kill: were it to take the
                // unterminated request as one, the job would be journaled by then and run after the restart.
                Thread.sleep(500);
                // And one killed wherever it is, then started again: it sends what it has no answer for.
                submitters.get(victim).destroyForcibly().waitFor();
                submitters.set(victim, submitter(victim));
                story.add("killed the half request and client " + victim);
            }
            if (k == 2) {
                lostAnswer();
                story.add("a client lost its answer and sent the request again");
            }
            daemon.kill();
            story.add("daemon SIGKILLed after " + delay + " ms with " + acked().size() + " acknowledged");
            Thread.sleep(rnd.nextInt(200));
            daemon.start();
        }
        System.out.println("serve chaos seed " + seed + ": " + story);
        for (Process p : submitters) {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "a client hangs; " + story);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out + story);
            assertTrue(out.contains("CLIENT DONE"), out + story);
        }
        // Every acknowledged job has run (a restart finds what ran while no daemon watched), and nothing waits.
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             Files.readAllLines(ledger()).size() < acked().size(); Thread.sleep(50)) {
            assertTrue(System.nanoTime() < end, "not every acknowledged job ran; " + story);
        }
        daemon.awaitQueue("0 running, 0 pending");
        daemon.stop();

        Map<String, Integer> acked = acked();
        assertEquals(CLIENTS * JOBS_EACH + 1, acked.size(), "every submission was acknowledged in the end");
        List<String> violations = new ArrayList<>();
        Map<String, List<Integer>> ranByMarker = new TreeMap<>();
        Map<Integer, List<String>> ranByNo = new TreeMap<>();
        for (String line : Files.readAllLines(ledger())) {
            String[] f = line.split(" ");
            ranByMarker.computeIfAbsent(f[1], m -> new ArrayList<>()).add(Integer.parseInt(f[0]));
            ranByNo.computeIfAbsent(Integer.parseInt(f[0]), n -> new ArrayList<>()).add(f[1]);
        }
        ranByMarker.forEach((m, nos) -> {
            if (nos.size() != 1) {
                violations.add(m + " ran " + nos.size() + " times, as jobs " + nos);
            }
        });
        ranByNo.forEach((no, markers) -> {
            if (markers.size() != 1) {
                violations.add("job " + no + " ran " + markers);
            }
        });
        acked.forEach((m, no) -> {
            if (!List.of(no).equals(ranByMarker.get(m))) {
                violations.add(m + " was acknowledged as job " + no + " but ran as " + ranByMarker.get(m));
            }
        });
        if (ranByMarker.containsKey("half")) {
            violations.add("the half-sent request ran");
        }

        JournalState state;
        try (Journal j = Journal.open(daemon.logs().resolve("journal.jsonl"), false)) {
            state = j.state();
            assertEquals(List.of(), j.loadWarnings(), "no torn line");
        }
        for (JournalEvent.Submitted s : state.submissions()) {
            String marker = s.requestId().orElse("?");
            if (!"ok".equals(state.record(s.key()).status())) {
                violations.add("job " + s.no() + " (" + marker + ") ended " + state.record(s.key()).status());
            }
            if (!List.of(s.no()).equals(ranByMarker.get(marker))) {
                violations.add("job " + s.no() + " (" + marker + ") is in the journal but ran as " + ranByMarker.get(marker));
            }
        }
        if (ranByMarker.size() != state.submissions().size()) {
            violations.add(state.submissions().size() + " submissions in the journal, " + ranByMarker.size() + " markers ran");
        }
        assertEquals(List.of(), violations, "seed " + seed + ": " + story);
    }

    /**
     * A client that sent a whole request, killed before it read the answer, after its job ran: its user
     * sends it again under the same request id, as the clients do after {@code unreachable}. Without the
     * request id that would be a second job; with it, the answer is the first's number.
     */
    private void lostAnswer() throws Exception {
        Process lost = client("lost", daemon.socket().toString(), ledger().toString());
        assertEquals("SENT", lost.inputReader(StandardCharsets.UTF_8).readLine());
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             Files.readAllLines(ledger()).stream().noneMatch(l -> l.endsWith(" lost")); Thread.sleep(20)) {
            assertTrue(System.nanoTime() < end, "the lost request's job never ran");
        }
        lost.destroyForcibly().waitFor();
        try (GpuschedClient c = GpuschedClient.connect(daemon.socket())) {
            int no = c.submit(new GpuschedClient.Submission(ServeChaosClient.line(ledger(), "lost"), dir).withRequestId("lost"));
            Files.writeString(dir.resolve("acks" + CLIENTS), "lost " + no + "\n");
        }
    }

    /** Every client's acknowledged submissions: marker to job number. */
    private Map<String, Integer> acked() throws IOException {
        Map<String, Integer> out = new HashMap<>();
        for (int i = 0; i <= CLIENTS; i++) { // and the lost answer's
            Path f = dir.resolve("acks" + i);
            if (Files.exists(f)) {
                for (String l : Files.readAllLines(f)) {
                    String[] p = l.split(" ");
                    if (p.length == 2) {
                        Integer before = out.put(p[0], Integer.parseInt(p[1]));
                        assertTrue(before == null || before == Integer.parseInt(p[1]), p[0] + " acknowledged twice: " + before
                                + " and " + p[1]);
                    }
                }
            }
        }
        return out;
    }
}

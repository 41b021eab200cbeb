package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to the real CLI scheduler (its own JVM) while jobs run: each running job's whole session
 * gets SIGTERM, and SIGKILL once {@code --kill-grace} has passed if it is still there; nothing of any
 * job's session outlives the scheduler; the journal records them {@code interrupted}; and a restart
 * runs exactly those again and nothing that already finished.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GracefulStopEndToEndTest {
    private static final Duration GRACE = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    private final List<SchedulerProcess> schedulers = new ArrayList<>();

    /**
     * A failed assertion must not leave a scheduler or a 60 s job behind, nor the job's monitor, which outlives
     * a SIGKILLed scheduler and writes the job's exit file under {@link #dir} as the job ends.
     */
    @AfterEach
    void cleanUp() throws Exception {
        schedulers.forEach(SchedulerProcess::close);
        Path ledger = dir.resolve("ledger");
        List<Long> sessions = Stream.of("done", "exits", "trapped", "ignored")
                .flatMap(n -> Ledger.read(ledger, n).stream()).map(Ledger.Entry::pid).toList();
        ProcSessions.killAll(sessions);
        RunsLeftBehind.end(dir.resolve("logs"));
    }

    @Test
    void sigtermStopsEveryRunningJobTermThenKillAndARestartRunsExactlyThoseAgain() throws Exception {
        Path ledger = Files.createDirectories(dir.resolve("ledger"));
        Path sim = Files.createDirectories(dir.resolve("sim"));
        Path quick = dir.resolve("quick"); // present on the restart: every job then finishes at once
        String hold = "h=60; test -f " + quick + " && h=0.05; ";
        String sj = "$GPUSCHED_SIMJOB --vram 300 --ramp 0 --hold $h";
        String jobs = String.join("\n",
                // 1: done before the signal
                "[vram=1G] " + Ledger.wrap(ledger, "done", "$GPUSCHED_SIMJOB --vram 300 --ramp 0 --hold 0.05"),
                // 2: exits on SIGTERM (143); a child that ignores SIGTERM lingers in its session
                "[vram=1G] " + Ledger.wrap(ledger, "exits", Ledger.recordTerm("exits") + "; " + ready(ledger, "exits")
                        + "; test -f " + quick + " || (trap '' TERM; " + ready(ledger, "linger") + "; exec sleep 300) & " + hold + sj),
                // 3: its shell notes SIGTERM and carries on; only SIGKILL stops it
                "[vram=1G] " + Ledger.wrap(ledger, "trapped", Ledger.recordTerm("trapped") + "; " + ready(ledger, "trapped")
                        + "; while [ ! -f " + quick + " ]; do sleep 0.05; done"),
                // 4: a simulated job that ignores SIGTERM, under a shell that waits for it
                "[vram=1G] " + Ledger.wrap(ledger, "ignored", Ledger.recordTerm("ignored") + "; " + ready(ledger, "ignored")
                        + "; " + hold + sj + " --ignore-term"),
                "");
        Path jobsFile = Files.writeString(dir.resolve("jobs.txt"), jobs);
        Path logs = dir.resolve("logs");
        List<String> args = List.of(jobsFile.toString(), "--sim", "1", "--poll", "0.1", "--kill-grace",
                String.valueOf(GRACE.toSeconds()), "--log-dir", logs.toString());
        Map<String, String> env = Map.of("GPUSCHED_SIM_DIR", sim.toString());

        SchedulerProcess s = started(SchedulerProcess.start(dir, args, env));
        s.await(l -> l.startsWith("job 1 finished [OK]"), "job 1 finished [OK]");
        // Signal only once each job can take it as designed: traps set, and both simulated jobs reporting
        // usage (they install their signal handlers before the first report).
        awaitTrue(() -> Stream.of("exits", "trapped", "ignored", "linger").allMatch(n -> Files.exists(ledger.resolve(n + ".ready")))
                && usageFiles(sim) == 2, "traps set and 2 simulated jobs reporting");
        long trappedSid = startPid(ledger, "trapped");
        long ignoredSid = startPid(ledger, "ignored");
        long t0 = System.nanoTime();
        s.terminate();
        long trappedGone = awaitGone(trappedSid);
        long ignoredGone = awaitGone(ignoredSid);
        s.awaitExit();
        String out = s.output();

        assertTrue(out.contains("WARN  interrupted — terminating 3 running jobs"), out);
        // SIGKILL only after the grace: a lower bound, so no machine is too slow for it
        assertTrue(trappedGone - t0 >= GRACE.toNanos(), "the trapping job was killed before the grace: " + (trappedGone - t0));
        assertTrue(ignoredGone - t0 >= GRACE.toNanos(), "the ignoring job was killed before the grace: " + (ignoredGone - t0));
        assertTrue(out.contains("job 3 did not exit 2s after SIGTERM — SIGKILL"), out);
        assertTrue(out.contains("job 4 did not exit 2s after SIGTERM — SIGKILL"), out);
        List<Ledger.Entry> exits = Ledger.read(ledger, "exits");
        assertEquals(List.of("start", "term", "end"), kinds(exits), "job 2 got SIGTERM and exited on it: " + exits);
        assertEquals(143, exits.get(2).rc().getAsInt(), "the simulated job exits 128 + SIGTERM: " + exits);
        List<Ledger.Entry> trapped = Ledger.read(ledger, "trapped");
        assertTrue(kinds(trapped).contains("term") && !kinds(trapped).contains("end"), "job 3 got SIGTERM, then died: " + trapped);
        assertEquals(List.of("start"), kinds(Ledger.read(ledger, "ignored")), "job 4 never finished its run");
        List<Long> sessions = Stream.of("done", "exits", "trapped", "ignored").map(n -> startPid(ledger, n)).toList();
        assertEquals(List.of(), ProcSessions.liveMembers(sessions), "processes of the jobs' sessions outlived the scheduler");
        JournalLines.Parsed journal = JournalLines.read(logs.resolve("journal.jsonl"));
        Map<Integer, String> keys = journal.keysByNo();
        assertEquals("done", lastEvent(journal, keys.get(1)));
        for (int no = 2; no <= 4; no++) {
            assertEquals("interrupted", lastEvent(journal, keys.get(no)), "job " + no + ": " + journal.lines());
            assertEquals(1, journal.of(keys.get(no), "interrupted").size(), "job " + no + ": " + journal.lines());
        }

        Files.createFile(quick);
        SchedulerProcess again = started(SchedulerProcess.start(dir, args, env));
        assertEquals(0, again.awaitExit(), again.output());
        assertTrue(again.output().contains("job 1 already completed ok — skipping"), again.output());
        assertEquals(1, Ledger.count(Ledger.read(ledger, "done"), "start"), "a finished job ran again");
        for (String n : List.of("exits", "trapped", "ignored")) {
            List<Ledger.Entry> es = Ledger.read(ledger, n);
            assertEquals(2, Ledger.count(es, "start"), n + " runs once more: " + es);
            assertEquals(0, es.get(es.size() - 1).rc().orElse(-1), n + " finishes on the restart: " + es);
        }
        JournalLines.Parsed after = JournalLines.read(logs.resolve("journal.jsonl"));
        for (int no = 1; no <= 4; no++) {
            List<JournalLines.Line> done = after.of(keys.get(no), "done");
            assertEquals(1, done.size(), "job " + no + ": " + after.lines());
            assertEquals("ok", done.get(0).field("status").orElseThrow());
        }
        List<Long> all = Stream.of("done", "exits", "trapped", "ignored")
                .flatMap(n -> Ledger.read(ledger, n).stream()).filter(e -> e.kind().equals("start")).map(Ledger.Entry::pid).toList();
        assertEquals(List.of(), ProcSessions.liveMembers(all));
    }

    private SchedulerProcess started(SchedulerProcess s) {
        schedulers.add(s);
        return s;
    }

    /** A statement that leaves {@code <ledger>/<name>.ready} once the job's traps are set (no process forked). */
    private static String ready(Path ledger, String name) {
        return ": >" + ledger.resolve(name + ".ready");
    }

    private static long usageFiles(Path sim) {
        try (Stream<Path> files = Files.list(sim)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).count();
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    private static long startPid(Path ledger, String name) {
        return Ledger.read(ledger, name).stream().filter(e -> e.kind().equals("start")).findFirst()
                .orElseThrow(() -> new AssertionError(name + " never started")).pid();
    }

    private static List<String> kinds(List<Ledger.Entry> es) {
        List<String> out = new ArrayList<>();
        es.forEach(e -> out.add(e.kind()));
        return out;
    }

    private static String lastEvent(JournalLines.Parsed journal, String key) {
        List<JournalLines.Line> of = journal.lines().stream().filter(l -> l.key().equals(key)).toList();
        return of.get(of.size() - 1).event();
    }

    /** @return when (nanoTime) no live process was left in the session; polls, with the class timeout as the guard */
    private static long awaitGone(long sid) throws InterruptedException {
        while (ProcSessions.anyAlive(List.of(sid))) {
            Thread.sleep(5);
        }
        return System.nanoTime();
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + SchedulerProcess.HANG_GUARD.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("never: " + what);
            }
            Thread.sleep(10);
        }
    }
}

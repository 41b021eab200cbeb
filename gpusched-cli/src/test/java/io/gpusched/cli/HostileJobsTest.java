package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.jobs.JobKeys;
import io.gpusched.jobs.JobSpec;
import io.gpusched.testkit.sim.SimulatedGpuBackend;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs that misbehave, run end to end through the real CLI in its own JVM on simulated GPUs: each ends
 * with the right outcome, its command reaches the shell byte for byte, and nothing of the run outlives
 * it. An in-process scheduler running the same jobs gives back every file descriptor and thread.
 *
 * <p>The flooding job writes {@code -Dgpusched.test.floodBytes} bytes (default 200 MiB, about a second
 * here); {@code -Dgpusched.test.floodBytes=1073741824} runs the full gigabyte.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileJobsTest {
    private static final long FLOOD_BYTES = Long.getLong("gpusched.test.floodBytes", 200L << 20);
    private static final Duration SETTLE = Duration.ofSeconds(10);
    private static final Duration RUN_LIMIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    /** Makes every command, and so every job key, belong to this test run alone. */
    private final String token = "hostile-" + UUID.randomUUID().toString().substring(0, 8);

    /** A jobs-file line and what must come of it: its journal outcome and a check of its log. */
    private record Hostile(String name, String block, String command, String outcome, LogCheck log) {
        String line() {
            return "[" + block + "] " + command;
        }
    }

    @FunctionalInterface
    private interface LogCheck {
        void check(String key, String log);
    }

    private static LogCheck exactly(Function<String, String> expected) {
        return (key, log) -> assertEquals(expected.apply(key), log);
    }

    private List<Hostile> hostileJobs() {
        String t = ": " + token + "; ";
        // Just under the jobs file's 64 KiB line limit (longer lines are refused; see JobsFileLimitsTest).
        String longArg = "x".repeat(65_000);
        return List.of(
                new Hostile("ignores SIGTERM", "vram=100 timeout=1.5s", t + "trap '' TERM; sleep 300",
                        "timeout/137", exactly(k -> "")),
                new Hostile("children in their own process groups", "vram=100 timeout=1.5s",
                        t + "perl -e '$SIG{TERM}=\"IGNORE\"; setpgrp(0,0); sleep 300' & "
                                + "perl -e 'setpgrp(0,0); sleep 300' & echo kids-started; wait",
                        "timeout/143", exactly(k -> "kids-started\n")),
                new Hostile("closes stdout", "vram=100", t + "exec >&-; echo lost 2>/dev/null; echo still-here >&2",
                        "ok/0", exactly(k -> "still-here\n")),
                new Hostile("closes stdout and stderr", "vram=100", t + "exec >&- 2>&-; echo lost; ls /nonexistent-" + token + "; exit 0",
                        "ok/0", exactly(k -> "")),
                new Hostile("command not found", "vram=100", t + "no-such-command-" + token + " --flag",
                        "failed/127", (k, log) -> assertTrue(log.contains("no-such-command-" + token + ": not found"), log)),
                new Hostile("quotes, dollars, semicolons, backslashes", "vram=100",
                        t + "printf '%s|' 'it'\"'\"'s' \"say \\\"hi\\\"\" '$HOME' \"a;b\" 'back\\slash' \"dbl\\\\back\" "
                                + "\"$((6*7))\" \"$GPUSCHED_JOB_KEY\"; echo",
                        "ok/0", exactly(k -> "it's|say \"hi\"|$HOME|a;b|back\\slash|dbl\\back|42|" + k + "|\n")),
                new Hostile("UTF-8", "vram=100", t + "printf '%s\\n' 'héllo wörld ✓ 日本語 🚀' \"$GPUSCHED_JOB_KEY\"",
                        "ok/0", exactly(k -> "héllo wörld ✓ 日本語 🚀\n" + k + "\n")),
                new Hostile("a 65 KB command", "vram=100",
                        t + "printf '%s' '" + longArg + "' | wc -c; echo \"$GPUSCHED_JOB_KEY\"",
                        "ok/0", exactly(k -> "65000\n" + k + "\n")));
    }

    // ------------------------------------------------------------------ through the CLI

    @Test
    void hostileJobsEachEndWithTheirOutcomeAndLeaveNothingBehind() throws Exception {
        List<Hostile> jobs = hostileJobs();
        Path logs = dir.resolve("logs");
        CliProcess run = CliProcess.start(dir, jobsFile(jobs), logs, List.of(), Map.of());
        int exit = run.waitFor();
        JournalFile journal = JournalFile.read(logs.resolve("journal.jsonl"));
        try {
            List<Executable> checks = new ArrayList<>();
            for (Hostile h : jobs) {
                checks.add(() -> checkJob(h, journal, logs));
            }
            assertAll(checks);
            assertEquals(127, exit, "the largest failing exit code (the missing command's 127; the timed-out job"
                    + " counts as 124):\n" + run.output());
            assertTrue(run.output().contains("(failed, exit 127) — : " + token + "; no-such-command-"), run.output());
        } finally {
            assertEquals(List.of(), leftovers(journal), "processes of the run survived it");
        }
    }

    private void checkJob(Hostile h, JournalFile journal, Path logs) throws IOException {
        String command = JobSpec.parse(h.line()).command();
        String key = journal.keyOf(command);
        assertEquals(JobKeys.key(command, 0), key, h.name() + ": the journal holds the command as written");
        assertEquals(h.outcome(), journal.outcome(key), h.name());
        h.log().check(key, Files.readString(logOf(logs, journal, key), StandardCharsets.UTF_8));
    }

    @Test
    void aFloodOfOutputGoesToTheLogWhileTheSchedulersMemoryStaysFlat() throws Exception {
        Path go = dir.resolve("go");
        String command = ": " + token + "; while [ ! -f " + go + " ]; do sleep 0.02; done; head -c " + FLOOD_BYTES + " /dev/zero; exit 9";
        Path logs = dir.resolve("logs");
        // A fixed, pre-touched heap: the scheduler's resident memory then moves only if something outside
        // the heap grows, and the heap itself is too small to hold the output.
        CliProcess run = CliProcess.start(dir, "[vram=100] " + command + "\n", logs,
                List.of("-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC"), Map.of());
        run.await("job 1 started");
        long before = run.residentKib();
        Files.createFile(go);
        long peak = before;
        while (run.process.isAlive()) {
            peak = Math.max(peak, run.residentKib());
            Thread.sleep(20);
        }
        assertEquals(9, run.waitFor(), run.output());
        JournalFile journal = JournalFile.read(logs.resolve("journal.jsonl"));
        String key = journal.keyOf(command);
        assertEquals("failed/9", journal.outcome(key));
        assertEquals(FLOOD_BYTES, Files.size(logOf(logs, journal, key)), "every byte reached the log");
        assertTrue(peak - before < 48 * 1024, "the scheduler grew from " + before + " KiB to " + peak
                + " KiB while its job wrote " + FLOOD_BYTES + " bytes");
        assertEquals(List.of(), leftovers(journal));
    }

    @Test
    void aDaemonThatLeavesTheJobsSessionDoesNotOutliveTheRun() throws Exception {
        String command = ": " + token + "; setsid sleep 300 & echo daemon-started";
        assertNothingOutlives(command, "ok/0");
    }

    @Test
    void childrenLeftRunningByAJobThatExitsDoNotOutliveTheRun() throws Exception {
        String command = ": " + token + "; sleep 300 & perl -e 'setpgrp(0,0); sleep 300' & echo left-behind";
        assertNothingOutlives(command, "ok/0");
    }

    private void assertNothingOutlives(String command, String outcome) throws Exception {
        Path logs = dir.resolve("logs");
        CliProcess run = CliProcess.start(dir, "[vram=100] " + command + "\n", logs, List.of(), Map.of());
        assertEquals(0, run.waitFor(), run.output());
        JournalFile journal = JournalFile.read(logs.resolve("journal.jsonl"));
        assertEquals(outcome, journal.outcome(journal.keyOf(command)));
        List<String> survivors = leftovers(journal);
        assertEquals(List.of(), survivors, "processes of the run survived it");
    }

    @Test
    void nonAsciiCommandsRunAsWrittenUnderACLocale() throws Exception {
        Hostile utf8 = hostileJobs().stream().filter(h -> h.name().equals("UTF-8")).findFirst().orElseThrow();
        Path logs = dir.resolve("logs");
        CliProcess run = CliProcess.start(dir, utf8.line() + "\n", logs, List.of(), Map.of("LC_ALL", "C", "LANG", "C"));
        assertEquals(0, run.waitFor(), run.output());
        checkJob(utf8, JournalFile.read(logs.resolve("journal.jsonl")), logs);
    }

    // ------------------------------------------------------------------ in process

    @Test
    void anInProcessSchedulerGivesBackItsFileDescriptorsAndThreadsAfterHostileJobs() throws Exception {
        List<JobSpec> jobs = hostileJobs().stream().map(h -> JobSpec.parse(h.line())).toList();
        // The first run loads every class these paths need (jar files stay open once read from).
        runInProcess(jobs, dir.resolve("warm-up"));
        Map<Integer, String> fdsBefore = openFds();
        Map<String, Long> threadsBefore = ourThreads();

        RunSummary summary = runInProcess(jobs, dir.resolve("logs"));
        assertEquals(jobs.size(), summary.results().size());
        assertEquals(127, summary.exitCode());

        // Only growth counts: threads of earlier tests may still be winding down.
        Map<Integer, String> fdsExtra;
        Map<String, Long> threadsExtra;
        long deadline = System.nanoTime() + SETTLE.toNanos();
        do {
            Thread.sleep(50);
            fdsExtra = new TreeMap<>(openFds());
            fdsExtra.entrySet().removeIf(e -> e.getValue().equals(fdsBefore.get(e.getKey())) || e.getValue().endsWith(".jar"));
            threadsExtra = new TreeMap<>(ourThreads());
            threadsExtra.replaceAll((name, n) -> n - threadsBefore.getOrDefault(name, 0L));
            threadsExtra.values().removeIf(n -> n <= 0);
        } while ((!fdsExtra.isEmpty() || !threadsExtra.isEmpty()) && System.nanoTime() < deadline);
        assertEquals(Map.of(), fdsExtra, "file descriptors left open by the run");
        assertEquals(Map.of(), threadsExtra, "threads left running by the run, by name (baseline " + threadsBefore + ")");
        assertEquals(List.of(), leftovers(JournalFile.read(dir.resolve("logs/journal.jsonl"))));
    }

    private static RunSummary runInProcess(List<JobSpec> jobs, Path logs) {
        try (SimulatedGpuBackend gpus = new SimulatedGpuBackend(2)) {
            Scheduler s = Scheduler.builder().backend(gpus).jobs(jobs).logDir(logs)
                    .options(SchedulerOptions.defaults().withPoll(Duration.ofMillis(100))
                            .withSampleInterval(Duration.ofMillis(50)).withKillGrace(Duration.ofMillis(500)))
                    .build();
            return s.run();
        }
    }

    /** fd number to what it points at, without the descriptor of this listing itself. */
    private static Map<Integer, String> openFds() throws IOException {
        Map<Integer, String> out = new HashMap<>();
        // The listing's own descriptor points here; its number can differ between two listings (a descriptor
        // opened and closed meanwhile by another thread), which once read as one left open by the run.
        String listing = "/proc/" + ProcessHandle.current().pid() + "/fd";
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (!target.equals(listing)) {
                        out.put(Integer.parseInt(fd.getFileName().toString()), target);
                    }
                } catch (IOException closedMeanwhile) {
                    // a descriptor closed between the listing and its read
                }
            }
        }
        return out;
    }

    /**
     * Live threads by name and count, without the JDK's own pools that keep idle threads for a while
     * (the process reapers and the common fork-join pool) and come and go on their own.
     */
    private static Map<String, Long> ourThreads() {
        Set<String> jdkPools = Set.of("process reaper", "ForkJoinPool.commonPool-worker-");
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName)
                .filter(n -> jdkPools.stream().noneMatch(n::startsWith))
                .collect(Collectors.groupingBy(n -> n, TreeMap::new, Collectors.counting()));
    }

    // ------------------------------------------------------------------ helpers

    private static String jobsFile(List<Hostile> jobs) {
        return jobs.stream().map(h -> h.line() + "\n").collect(Collectors.joining());
    }

    private static Path logOf(Path logs, JournalFile journal, String key) throws IOException {
        String no = journal.last("seen", key).orElseThrow().get("no");
        String prefix = String.format("job%03d_gpu", Integer.parseInt(no));
        try (var files = Files.list(logs)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new AssertionError("no log " + prefix + "* in " + logs));
        }
    }

    /** Survivors of the run; any found are killed, so a failing test leaves nothing running either. */
    private static List<String> leftovers(JournalFile journal) throws InterruptedException {
        List<String> survivors = Leftovers.awaitNone(journal.keys(), journal.sessions(), SETTLE);
        for (String s : survivors) {
            long pid = Long.parseLong(s.substring(4, s.indexOf(' ', 4)));
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        return survivors;
    }

    /** The CLI in a JVM of its own, its output in a file. */
    private record CliProcess(Process process, Path out) {
        static CliProcess start(Path dir, String jobsText, Path logs, List<String> jvmOptions, Map<String, String> env)
                throws IOException {
            Path jobs = Files.writeString(dir.resolve("jobs.txt"), jobsText, StandardCharsets.UTF_8);
            Path out = dir.resolve("cli.out");
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(jvmOptions);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), jobs.toString(),
                    "--sim", "2", "--poll", "0.1", "--sample", "0.05", "--kill-grace", "0.5", "--log-dir", logs.toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().putAll(env);
            return new CliProcess(pb.start(), out);
        }

        int waitFor() throws Exception {
            if (!process.waitFor(RUN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the scheduler did not finish:\n" + output());
            }
            return process.exitValue();
        }

        String output() {
            try {
                return Files.readString(out, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(no output: " + e + ")";
            }
        }

        void await(String text) throws InterruptedException {
            long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
            while (!output().contains(text)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("no '" + text + "' in:\n" + output());
                }
                Thread.sleep(20);
            }
        }

        /** @return the scheduler's resident memory now, in KiB (0 once it has exited) */
        long residentKib() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                    if (line.startsWith("VmRSS:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", ""));
                    }
                }
            } catch (IOException gone) {
                // exited
            }
            return 0;
        }
    }
}

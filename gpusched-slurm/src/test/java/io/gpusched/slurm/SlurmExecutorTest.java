package io.gpusched.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.model.Verdict;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import io.gpusched.jobs.JobSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor's decisions against a fake cluster whose jobs end the moment they are submitted: what it
 * submits, what it follows instead, and how it reads a job's end. No Slurm, no processes.
 */
class SlurmExecutorTest {
    @TempDir
    Path dir;

    /** A cluster in which every job has already run when sbatch returns, as {@link #next} says. */
    private final class InstantSlurm implements CommandRunner {
        final List<List<String>> sbatch = new ArrayList<>();
        final Map<Long, String[]> jobs = new LinkedHashMap<>();
        /** How the next submitted job ends: its exit, peak MiB on gpu 0, log text and Slurm state. */
        final List<Object[]> next = new ArrayList<>();
        long nextId = 100;
        int sbatchExit = 0;
        /** What sbatch prints (on stderr) when it fails with {@link #sbatchExit}. */
        String sbatchError = "sbatch: error: Invalid generic resource (gres) specification\n";
        /** Jobs sbatch refuses (exit 1), by the gres they ask for: what it says of each. */
        final Map<String, String> refuses = new LinkedHashMap<>();
        /** How many squeue calls fail before they answer. */
        int squeueFailures = 0;
        /** The sbatch calls (counted from 0, refused ones included) refused with {@link #limitError}. */
        final java.util.Set<Integer> limitedCalls = new java.util.HashSet<>();
        /** What sbatch prints for a call in {@link #limitedCalls}: a user's submit-count limit reached. */
        String limitError = "sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch job submission failed:"
                + " Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)\n";
        /** Every sbatch call, refused or not. */
        int sbatchCalls = 0;
        /**
         * The jobs submitted before the first call in {@link #limitedCalls} show RUNNING until that call has been
         * answered: they are what holds the limit, and their ends come after the refusal, as on a cluster.
         * Without it they end at once, and the poller may see an end before the refused call is made, which a
         * real limit would then not refuse.
         */
        boolean runningUntilRefused;
        private final java.util.Set<Long> heldRunning = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private volatile boolean refusedOnce;

        @Override
        public Result run(List<String> argv) {
            switch (argv.get(0)) {
                case "sbatch" -> {
                    if (limitedCalls.contains(sbatchCalls++)) {
                        refusedOnce = true;
                        return new Result(1, "", limitError);
                    }
                    if (sbatchExit != 0) {
                        return new Result(sbatchExit, "", sbatchError);
                    }
                    String gres = option(argv, "--gres=");
                    if (refuses.containsKey(gres)) {
                        return new Result(1, "", refuses.get(gres) + "\n");
                    }
                    sbatch.add(argv);
                    long id = nextId++;
                    String name = option(argv, "--job-name=");
                    // Where Slurm writes slurm.out: the attempt's directory, when the pattern names it.
                    Path out = Path.of(expanded(option(argv, "--output="), id)).getParent();
                    Object[] end = next.isEmpty() ? new Object[] {0, 1000L, "", "COMPLETED"} : next.remove(0);
                    ran(out, (int) end[0], (long) end[1], (String) end[2]);
                    jobs.put(id, new String[] {name, (String) end[3]});
                    if (runningUntilRefused && !refusedOnce) {
                        heldRunning.add(id);
                    }
                    return new Result(0, id + "\n", "");
                }
                case "squeue" -> {
                    if (refusedOnce) {
                        heldRunning.clear();
                    }
                    if (squeueFailures-- > 0) {
                        return new Result(1, "", "squeue: error: Unable to contact slurm controller (connect failure)\n");
                    }
                    StringBuilder b = new StringBuilder();
                    jobs.forEach((id, j) -> b.append(id).append('|').append(j[0]).append('|')
                            .append(heldRunning.contains(id) ? "RUNNING" : j[1]).append('\n'));
                    return new Result(0, b.toString(), "");
                }
                case "scancel" -> {
                    jobs.get(Long.parseLong(argv.get(1)))[1] = "CANCELLED";
                    return new Result(0, "", "");
                }
                default -> throw new AssertionError("unexpected command " + argv);
            }
        }
    }

    /** An {@code --output} pattern as Slurm reads it ({@code %%} is a {@code %}, {@code %j} the job id; the tests need no more). */
    private static String expanded(String pattern, long id) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '%' && i + 1 < pattern.length() && (pattern.charAt(i + 1) == '%' || pattern.charAt(i + 1) == 'j')) {
                b.append(pattern.charAt(++i) == '%' ? "%" : String.valueOf(id));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String option(List<String> argv, String prefix) {
        return argv.stream().filter(a -> a.startsWith(prefix)).findFirst().orElseThrow().substring(prefix.length());
    }

    /** What the wrapper leaves behind in an attempt's directory after its command ran. */
    static void ran(Path attempt, int exit, long peakMib, String log) {
        try {
            Files.createDirectories(attempt);
            // appended, as the wrapper does
            Files.writeString(attempt.resolve(WrapReport.LOG), log, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        WrapReport started = new WrapReport(4242, List.of(0), "node1", 1_000, OptionalLong.empty(), OptionalInt.empty(),
                Map.of(), OptionalDouble.empty(), Optional.empty());
        WrapReport.writeAtomically(attempt, WrapReport.STARTED, started.encode());
        WrapReport done = new WrapReport(4242, List.of(0), "node1", 1_000, OptionalLong.of(3_500), OptionalInt.of(exit),
                peakMib > 0 ? Map.of(0, peakMib) : Map.of(), OptionalDouble.of(90), Optional.empty());
        WrapReport.writeAtomically(attempt, WrapReport.RESULT, done.encode());
    }

    private final List<SchedulerEvent> events = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    private RunSummary run(InstantSlurm slurm, String... lines) throws IOException {
        return runIn(dir.resolve("logs"), slurm, lines);
    }

    private RunSummary runIn(Path logs, InstantSlurm slurm, String... lines) throws IOException {
        return runIn(logs, SlurmOptions.defaults().withShards(1000, 8).withPoll(Duration.ofMillis(5)), slurm, lines);
    }

    private RunSummary runIn(Path logs, SlurmOptions o, InstantSlurm slurm, String... lines) throws IOException {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, String.join("\n", lines) + "\n");
        return new SlurmExecutor(jobs, logs, o, slurm, List.of("wrap"), events::add, notes::add).run();
    }

    /** A journal that has seen the line's job, as a run before this one left it. */
    private void seen(String line) throws IOException {
        Files.createDirectories(dir.resolve("logs"));
        try (Journal j = Journal.open(dir.resolve("logs/journal.jsonl"), false)) {
            j.append(new JournalEvent.Seen(JobSpec.parse(line).key(), 1, JobSpec.parse(line).command()));
        }
    }

    /** An attempt directory whose submission token names a Slurm job. */
    private void token(String attempt, String token) throws IOException {
        Files.createDirectories(dir.resolve("logs/slurm/" + attempt));
        Files.writeString(dir.resolve("logs/slurm/" + attempt + "/" + SlurmExecutor.TOKEN), token + "\n");
    }

    @Test
    void aJobIsSubmittedOnceWithItsShardsAndTimeUnderTheWrapper_andJudgedOnTheWrappersPeak() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        slurm.next.add(new Object[] {0, 1950L, "done\n", "COMPLETED"});
        RunSummary s = run(slurm, "[vram=2000 timeout=90s] python train.py");
        assertEquals(1, slurm.sbatch.size());
        List<String> argv = slurm.sbatch.get(0);
        assertTrue(argv.containsAll(List.of("sbatch", "--parsable", "--gres=shard:2", "--time=2")), argv.toString());
        // the job script, a file in the attempt's directory: the wrapper's command line, every word quoted
        Path script = Path.of(argv.get(argv.size() - 1));
        assertEquals(dir.resolve("logs/slurm/job001-1").resolve(SlurmDriver.SCRIPT), script);
        String key = JobSpec.parse("[vram=2000 timeout=90s] python train.py").key();
        assertEquals("#!/bin/sh\n'wrap' '--out' '" + script.getParent() + "' '--job-no' '1' '--job-key' '" + key
                + "' '--' '/bin/sh' '-c' 'python train.py'\n", Files.readString(script));
        JobResult r = s.results().get(0);
        assertEquals(JobStatus.OK, r.status());
        assertEquals(Map.of(0, 1950L), r.peakMib());
        assertEquals(Verdict.WITHIN, r.verdict());
        assertEquals(Duration.ofMillis(2_500), r.duration(), "the wrapper's start and end");
        assertEquals(0, s.exitCode());
    }

    @Test
    void aLogDirectoryAnotherSchedulerHoldsIsRefused_andNothingIsSubmitted() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        io.gpusched.journal.LogDirLock held = io.gpusched.journal.LogDirLock.acquire(dir.resolve("logs"));
        try (held) {
            io.gpusched.model.LogDirInUseException e = org.junit.jupiter.api.Assertions.assertThrows(
                    io.gpusched.model.LogDirInUseException.class, () -> run(slurm, "[vram=1000] echo hi"));
            assertTrue(e.getMessage().contains(dir.resolve("logs").toString()), e.getMessage());
        }
        assertEquals(0, slurm.sbatch.size(), "nothing submitted");
    }

    @Test
    void anAttemptSlurmAlreadyHoldsUnderItsNameIsFollowed_notSubmittedAgain() throws Exception {
        // a submitter died between sbatch's answer and its journal line
        InstantSlurm slurm = new InstantSlurm();
        slurm.jobs.put(7L, new String[] {"gs-abc123", "COMPLETED"});
        seen("[vram=1000] echo hi");
        token("job001-1", "abc123");
        ran(dir.resolve("logs/slurm/job001-1"), 0, 500, "");
        RunSummary s = run(slurm, "[vram=1000] echo hi");
        assertEquals(0, slurm.sbatch.size(), "nothing submitted");
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertTrue(notes.get(0).contains("is Slurm job 7 (found by name gs-abc123)"), notes.toString());
    }

    @Test
    void anOlderRunsSlurmJobIsNotAdoptedByAJournalThatNeverSawTheJob() throws Exception {
        // the log directory's journal was wiped (or --fresh) but its attempt directories and Slurm's record remain
        InstantSlurm slurm = new InstantSlurm();
        slurm.jobs.put(7L, new String[] {"gs-abc123", "COMPLETED"});
        token("job001-1", "abc123");
        ran(dir.resolve("logs/slurm/job001-1"), 1, 500, "CUDA out of memory\n");
        slurm.next.add(new Object[] {1, 600L, "KeyError\n", "FAILED"});
        RunSummary s = run(slurm, "[vram=1000 retries=2] echo hi");
        assertEquals(1, slurm.sbatch.size(), "submitted afresh, and the older run's OOM is not this one's");
        assertEquals(JobStatus.FAILED, s.results().get(0).status());
        assertEquals(600L, s.results().get(0).overallPeakMib(), "this attempt's result, not the older one's");
        assertTrue(!option(slurm.sbatch.get(0), "--job-name=").equals("gs-abc123"), "under a new name");
    }

    @Test
    void aJobTheJournalSaysWasSubmittedIsFollowedByItsSlurmId() throws Exception {
        String line = "[vram=1000] echo hi";
        String key = JobSpec.parse(line).key();
        Files.createDirectories(dir.resolve("logs"));
        try (Journal j = Journal.open(dir.resolve("logs/journal.jsonl"), false)) {
            j.append(List.of(new JournalEvent.Seen(key, 1, "echo hi"), new JournalEvent.SlurmSubmitted(key, 55, "shard:1")));
        }
        InstantSlurm slurm = new InstantSlurm();
        slurm.jobs.put(55L, new String[] {"anything", "COMPLETED"});
        ran(dir.resolve("logs/slurm/job001-1"), 0, 900, "");
        RunSummary s = run(slurm, line);
        assertEquals(0, slurm.sbatch.size(), "never submitted twice");
        assertEquals(900L, s.results().get(0).overallPeakMib());
        assertTrue(notes.get(0).startsWith("job 1 is Slurm job 55 (journal) — followed again, not submitted twice"),
                notes.toString());
    }

    @Test
    void aCudaOomInTheLogTailIsResubmittedWithTheBumpedDeclaration_untilTheRetriesRunOut() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        String oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
        slurm.next.add(new Object[] {1, 1900L, oom, "FAILED"});
        slurm.next.add(new Object[] {1, 2400L, oom, "FAILED"});
        RunSummary s = run(slurm, "[vram=2000 retries=1] python train.py");
        assertEquals(List.of("--gres=shard:2", "--gres=shard:3"), slurm.sbatch.stream()
                .map(a -> a.stream().filter(o -> o.startsWith("--gres=")).findFirst().orElseThrow()).toList());
        assertEquals(JobStatus.FAILED_OOM, s.results().get(0).status());
        SchedulerEvent.RequeuedAfterOom o = events.stream().filter(e -> e instanceof SchedulerEvent.RequeuedAfterOom)
                .map(e -> (SchedulerEvent.RequeuedAfterOom) e).findFirst().orElseThrow();
        assertEquals(OptionalLong.of(2500), o.nextMib());
        assertTrue(Files.exists(dir.resolve("logs/slurm/job001-2/result.json")), "the retry has a directory of its own");
    }

    @Test
    void aFailureWithoutAnOomSignatureIsNotRetried() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        slurm.next.add(new Object[] {3, 100L, "Traceback: KeyError\n", "FAILED"});
        RunSummary s = run(slurm, "[vram=2000 retries=3] python train.py");
        assertEquals(1, slurm.sbatch.size());
        assertEquals(JobStatus.FAILED, s.results().get(0).status());
        assertEquals(3, s.results().get(0).exitCode());
    }

    @Test
    void aJobSlurmEndedForItsTimeLimitIsATimeout() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        slurm.next.add(new Object[] {143, 100L, "", "TIMEOUT"});
        RunSummary s = run(slurm, "[timeout=1m] sleep 100");
        assertEquals(JobStatus.TIMEOUT, s.results().get(0).status());
        assertEquals(RunSummary.TIMEOUT_EXIT, s.exitCode());
    }

    @Test
    void aCancelledLineIsNeverSubmitted() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        RunSummary s = run(slurm, "[cancel] echo no");
        assertEquals(0, slurm.sbatch.size());
        assertEquals(JobStatus.CANCELLED, s.results().get(0).status());
        assertTrue(s.results().get(0).gpus().isEmpty(), "cancelled before start");
    }

    @Test
    void aJobThatLeftNoWrapperResultFailsAfterAFewPolls_sayingWhereToLook() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        slurm.jobs.put(9L, new String[] {"gs-feed", "FAILED"});
        seen("echo hi");
        token("job001-1", "feed");
        RunSummary s = run(slurm, "echo hi");
        assertEquals(JobStatus.FAILED, s.results().get(0).status());
        assertTrue(notes.stream().anyMatch(n -> n.contains("ended FAILED without a wrapper result — see ")
                && n.endsWith("job001-1/slurm.out")), notes.toString());
    }

    @Test
    void oneRefusedLineFailsAloneAndTheRestRun() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        slurm.refuses.put("gpu:3", "sbatch: error: Batch job submission failed: Requested node configuration is not"
                + " available");
        RunSummary s = run(slurm, "echo one", "# a comment", "[gpus=3] echo three", "echo four");
        assertEquals(2, slurm.sbatch.size(), "the jobs before and after the refused one were submitted");
        assertEquals(JobStatus.OK, result(s, 1).status());
        assertEquals(JobStatus.OK, result(s, 3).status());
        JobResult refused = result(s, 2);
        assertEquals(JobStatus.INFEASIBLE, refused.status(), "failed as a local job that can never fit");
        assertTrue(s.exitCode() != 0, "a failed job fails the run");
        // Which line Slurm refused, what it asked for and why, in one line: a file of hundreds of lines says which to fix.
        String why = events.stream().filter(e -> e instanceof SchedulerEvent.JobInfeasible i && i.no() == 2)
                .map(e -> ((SchedulerEvent.JobInfeasible) e).reason()).findFirst().orElse("no infeasible event: " + events);
        assertTrue(why.startsWith("jobs.txt:3: job 2 (--gres=gpu:3): sbatch refused it (exit 1): sbatch: error: Batch job"
                + " submission failed: Requested node configuration is not available"), why);
        assertTrue(!why.contains("\n"), why);
        // journaled as a local failure is: ended, so a rerun of the file does not submit it again
        try (Journal j = Journal.open(dir.resolve("logs/journal.jsonl"), false)) {
            assertEquals("infeasible", j.state().records().get(refused.key()).status(), j.state().records().toString());
            assertTrue(j.state().slurmJob(refused.key()).isEmpty(), "never in Slurm");
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aSubmitLimitRefusalWaits_andTheJobIsSubmittedAgainAfterTheBackOff_neverFailed() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        slurm.limitedCalls.addAll(List.of(0, 1, 2));
        Duration backOff = Duration.ofMillis(200);
        long t0 = System.nanoTime();
        RunSummary s = runIn(dir.resolve("logs"), SlurmOptions.defaults().withShards(1000, 8)
                .withPoll(Duration.ofMillis(5)).withSubmitLimitRetry(backOff), slurm, "echo hi");
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        assertEquals(JobStatus.OK, result(s, 1).status(), s.results().toString());
        assertEquals(0, s.exitCode());
        assertEquals(1, slurm.sbatch.size(), "submitted once");
        // Three refusals, then the one that took it: sbatch asked once per back-off, not at every 5 ms round.
        assertEquals(4, slurm.sbatchCalls, "one sbatch per back-off");
        assertTrue(took.compareTo(backOff.multipliedBy(3)) >= 0, "waited the back-off each time: " + took);
        assertTrue(events.stream().noneMatch(e -> e instanceof SchedulerEvent.JobInfeasible), events.toString());
        assertEquals(1, notes.stream().filter(n -> n.startsWith("job 1: sbatch refused it for now (exit 1): sbatch: error:"
                + " QOSMaxSubmitJobPerUserLimit") && n.contains("the cluster's submit limit is reached")).count(),
                "said once for the whole wait: " + notes);
        try (Journal j = Journal.open(dir.resolve("logs/journal.jsonl"), false)) {
            String key = JobSpec.parse("echo hi").key();
            assertEquals("ok", j.state().records().get(key).status(), j.state().records().toString());
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aSubmitLimitRefusalWaitsForOneOfTheRunsSlurmJobsToEnd_andTheRestOfTheRoundWaitsWithIt() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        // job 1 taken, job 2 refused at the limit; job 1's end, after that, frees a place
        slurm.limitedCalls.add(1);
        slurm.runningUntilRefused = true;
        slurm.limitError = "sbatch: error: AssocMaxSubmitJobLimit\nsbatch: error: Batch job submission failed: Job"
                + " violates accounting/QOS policy (job submit limit, user's size and/or time limits)\n";
        // A back-off the test would time out on: only job 1's end can have sent the others.
        RunSummary s = runIn(dir.resolve("logs"), SlurmOptions.defaults().withShards(1000, 8)
                .withPoll(Duration.ofMillis(5)).withSubmitLimitRetry(Duration.ofHours(1)), slurm,
                "echo one", "echo two", "echo three");
        for (int no = 1; no <= 3; no++) {
            assertEquals(JobStatus.OK, result(s, no).status(), s.results().toString());
        }
        assertEquals(0, s.exitCode());
        // job 3 was not asked in the round job 2 was refused in: the same limit would have refused it
        assertEquals(4, slurm.sbatchCalls, "job 1, job 2 refused, then jobs 2 and 3");
        assertEquals(List.of("job001-1", "job002-1", "job003-1"), slurm.sbatch.stream().map(a -> Path.of(option(a,
                "--output=")).getParent().getFileName().toString()).toList(), "in queue order: job 3 not before job 2");
        assertTrue(events.stream().noneMatch(e -> e instanceof SchedulerEvent.JobInfeasible), events.toString());
    }

    /**
     * The race the gate must not lose: one of the run's Slurm jobs is seen ending while the sbatch that is then
     * refused for the submit limit still runs, before its refusal is recorded. The poller's look is made here
     * from inside that sbatch, on the same thread (the driver's one-command-at-a-time lock is reentrant), which
     * is the order the two threads can take. A gate the end cleared and the refusal then set again held the
     * jobs for the whole back-off (an hour here) with a place free.
     */
    @Test
    void anEndSeenWhileTheRefusedSbatchStillRunsOpensTheSubmitLimitsGate() throws Exception {
        java.util.concurrent.atomic.AtomicReference<SlurmDriver> driver = new java.util.concurrent.atomic.AtomicReference<>();
        Map<Long, String> states = new LinkedHashMap<>();
        List<String> said = new ArrayList<>();
        CommandRunner slurm = argv -> switch (argv.get(0)) {
            case "sbatch" -> {
                if (states.isEmpty()) {
                    // job 1, taken: its wrapper's result is there, Slurm still lists it running
                    ran(Path.of(expanded(option(argv, "--output="), 100)).getParent(), 0, 1000, "");
                    states.put(100L, "RUNNING");
                    yield new CommandRunner.Result(0, "100\n", "");
                }
                // job 2: job 1 ends now, and the poller looks before this sbatch answers
                states.put(100L, "COMPLETED");
                driver.get().poll();
                yield new CommandRunner.Result(1, "", "sbatch: error: QOSMaxSubmitJobPerUserLimit\nsbatch: error: Batch"
                        + " job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or"
                        + " time limits)\n");
            }
            case "squeue" -> {
                StringBuilder b = new StringBuilder();
                states.forEach((id, state) -> b.append(id).append("|gpusched-1|").append(state).append('\n'));
                yield new CommandRunner.Result(0, b.toString(), "");
            }
            default -> throw new AssertionError("unexpected command " + argv);
        };
        Path logs = Files.createDirectories(dir.resolve("logs"));
        driver.set(new SlurmDriver(logs, SlurmOptions.defaults().withShards(1000, 8).withSubmitLimitRetry(Duration.ofHours(1)),
                slurm, List.of("gpusched-slurm-wrap"), "jobs.txt", said::add, events::add, e -> {
                    throw new AssertionError(e);
                }, SlurmDriver.Before.NOTHING));
        driver.get().submit(new io.gpusched.cluster.ClusterAttempt(1, 1, JobSpec.parse("echo one"), OptionalLong.empty()));
        assertThrows(io.gpusched.cluster.AttemptDeferredException.class, () -> driver.get().submit(
                new io.gpusched.cluster.ClusterAttempt(2, 1, JobSpec.parse("echo two"), OptionalLong.empty())));
        assertTrue(said.stream().anyMatch(n -> n.contains("QOSMaxSubmitJobPerUserLimit")), said.toString());
        assertEquals(Optional.empty(), driver.get().busy(), "job 1 ended while job 2's sbatch ran: a place is free now,"
                + " not in an hour");
    }

    @Test
    void aSizeOrTimeLimitRefusal_theSharedPolicyLineWithoutASubmitLimitCode_stillFailsTheJobInfeasible() throws Exception {
        for (String size : List.of("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job"
                + " submit limit, user's size and/or time limits)", "sbatch: error: QOSMaxGRESPerJob\nsbatch: error: Batch"
                + " job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time"
                + " limits)")) {
            InstantSlurm slurm = new InstantSlurm();
            slurm.refuses.put("gpu:3", size);
            events.clear();
            RunSummary s = runIn(dir.resolve("logs-" + slurm.hashCode()), slurm, "echo one", "[gpus=3] echo three");
            assertEquals(JobStatus.OK, result(s, 1).status());
            assertEquals(JobStatus.INFEASIBLE, result(s, 2).status(), size);
            assertEquals(2, slurm.sbatchCalls, "asked once, not again: " + size);
            String why = events.stream().filter(e -> e instanceof SchedulerEvent.JobInfeasible i && i.no() == 2)
                    .map(e -> ((SchedulerEvent.JobInfeasible) e).reason()).findFirst().orElse("no infeasible event: " + events);
            assertTrue(why.startsWith("jobs.txt:2: job 2 (--gres=gpu:3): sbatch refused it (exit 1): sbatch: error:"), why);
        }
    }

    @Test
    void onlySlurmsSubmitCountReasonCodesMakeARefusalWait() {
        String policy = " sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit"
                + " limit, user's size and/or time limits)";
        for (String code : List.of("QOSMaxSubmitJobPerUserLimit", "QOSMaxSubmitJobPerAccountLimit", "QOSGrpSubmitJobsLimit",
                "AssocMaxSubmitJobLimit", "AssocGrpSubmitJobsLimit")) {
            assertEquals(Optional.of(code), SlurmClient.submitLimit("sbatch: error: " + code + policy), code);
        }
        for (String other : List.of("sbatch: error:" + policy, "sbatch: error: QOSMaxGRESPerJob" + policy,
                "sbatch: error: QOSMaxWallDurationPerJobLimit" + policy, "sbatch: error: AssocMaxJobsLimit" + policy,
                "sbatch: error: XQOSMaxSubmitJobPerUserLimitX" + policy)) {
            assertEquals(Optional.empty(), SlurmClient.submitLimit(other), other);
        }
    }

    private static JobResult result(RunSummary s, int no) {
        return s.results().stream().filter(r -> r.no() == no).findFirst().orElseThrow(() -> new AssertionError(
                "no job " + no + " in " + s.results()));
    }

    @Test
    void aRefusalThatNoJobCanGetPastStillEndsTheRun_inOneLineNamingTheLine() throws Exception {
        for (String down : List.of("sbatch: error: Batch job submission failed: Unable to contact slurm controller"
                + " (connect failure)", "sbatch: error: invalid partition specified: nope",
                "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified")) {
            InstantSlurm slurm = new InstantSlurm();
            slurm.sbatchExit = 1;
            slurm.sbatchError = down + "\n";
            SlurmException e = assertThrows(SlurmException.class, () -> run(slurm, "# a comment", "[gpus=3] echo hi",
                    "echo two"), down);
            assertTrue(e.getMessage().startsWith("jobs.txt:2: job 1 (--gres=gpu:3): sbatch failed (exit 1): " + down + "; "),
                    e.getMessage());
            assertTrue(!e.getMessage().contains("\n"), e.getMessage());
            assertEquals(0, slurm.sbatch.size());
            // not recorded as ended: fixed, the rerun submits it
            try (Journal j = Journal.open(dir.resolve("logs/journal.jsonl"), false)) {
                j.state().records().values().forEach(r -> assertTrue(!r.terminal(), r.toString()));
            }
        }
    }

    @Test
    void sbatchThatCannotBeRunEndsTheRunSayingSo() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        CommandRunner missing = argv -> {
            if (argv.get(0).equals("sbatch")) {
                throw new java.io.UncheckedIOException("cannot run sbatch: Cannot run program \"sbatch\": error=2, No such file or"
                        + " directory",
                        new IOException("error=2"));
            }
            return slurm.run(argv);
        };
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "echo hi\n");
        SlurmOptions o = SlurmOptions.defaults().withShards(1000, 8).withPoll(Duration.ofMillis(5));
        SlurmException e = assertThrows(SlurmException.class, () -> new SlurmExecutor(jobs, dir.resolve("logs"), o, missing,
                List.of("wrap"), events::add, notes::add).run());
        assertTrue(e.getMessage().startsWith("jobs.txt:1: job 1 (--gres=gpu:1): sbatch cannot be run: cannot run sbatch:")
                && e.getMessage().endsWith("is Slurm's client (slurm-client) installed and on the PATH?"), e.getMessage());
    }

    @Test
    void whichSbatchFailuresAreTheClustersAndWhichOneJobs() {
        for (String wide : List.of("sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect"
                + " failure)", "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation",
                "sbatch: error: Batch job submission failed: Zero Bytes were transmitted or received",
                "sbatch: error: Batch job submission failed: Invalid partition name specified",
                "sbatch: error: invalid partition specified: gpu2",
                "sbatch: error: Batch job submission failed: No partition specified or system default partition",
                "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified",
                "sbatch: error: Batch job submission failed: Invalid qos specification",
                "sbatch: error: Batch job submission failed: Access/permission denied",
                "sbatch: error: Could not establish a configuration source",
                "sbatch: error: Munge encode failed: Failed to access \"/run/munge/munge.socket.2\"")) {
            assertTrue(SlurmClient.clusterWide(1, wide).isPresent(), wide);
        }
        assertTrue(SlurmClient.clusterWide(137, "").isPresent(), "killed");
        for (String one : List.of("sbatch: error: Batch job submission failed: Requested node configuration is not"
                + " available", "sbatch: error: Invalid generic resource (gres) specification",
                "sbatch: error: Batch job submission failed: Requested time limit is invalid (missing or exceeds some"
                + " limit)", "sbatch: error: Batch job submission failed: Requested partition configuration not"
                + " available now", "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job"
                + " submit limit, user's size and/or time limits)", "sbatch: error: Batch script is empty!")) {
            assertEquals(Optional.empty(), SlurmClient.clusterWide(1, one), one);
        }
    }

    @Test
    void aLineSlurmCannotRunStopsTheRunBeforeAnythingIsSubmitted() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        SlurmException e = assertThrows(SlurmException.class, () -> run(slurm, "echo ok", "[priority=5] echo a",
                "[tty] echo b"));
        assertEquals(0, slurm.sbatch.size());
        assertTrue(e.getMessage().startsWith("jobs.txt:2: priority=5 cannot be honoured on Slurm"), e.getMessage());
        assertTrue(e.getMessage().endsWith("(and 1 more line Slurm cannot run)"), e.getMessage());
    }

    @Test
    void aFewFailedSqueuesOnlySkipPolls_butTenInARowEndTheRunWithSlurmsReason() throws Exception {
        InstantSlurm flaky = new InstantSlurm();
        flaky.squeueFailures = 3;
        RunSummary s = run(flaky, "echo hi");
        assertEquals(JobStatus.OK, s.results().get(0).status());
        assertEquals(3, events.stream().filter(e -> e instanceof SchedulerEvent.Warning).count(), events.toString());

        InstantSlurm down = new InstantSlurm();
        down.squeueFailures = SlurmExecutor.MAX_QUEUE_FAILURES;
        SlurmException e = assertThrows(SlurmException.class, () -> run(down, "echo again"));
        assertTrue(e.getMessage().contains("Unable to contact slurm controller"), e.getMessage());
    }

    @Test
    void vramAutoAsksForTheJournalsLatestPeakOfTheSameCommandPlusTheSpikeBuffer() throws Exception {
        String line = "[vram=auto] python eval.py";
        String first = JobSpec.parse(line).key();
        Files.createDirectories(dir.resolve("logs"));
        try (Journal j = Journal.open(dir.resolve("logs/journal.jsonl"), false)) {
            j.append(List.of(new JournalEvent.Seen(first, 1, "python eval.py"),
                    new JournalEvent.Done(first, "ok", 0, Map.of(0, 1500L), OptionalDouble.empty())));
        }
        InstantSlurm slurm = new InstantSlurm();
        slurm.next.add(new Object[] {0, 1600L, "", "COMPLETED"});
        // the same command again (its second occurrence): it learns from the first's 1500 MiB
        RunSummary s = run(slurm, line, line);
        assertEquals(1, slurm.sbatch.size(), "the first already ended ok");
        assertTrue(slurm.sbatch.get(0).contains("--gres=shard:2"), "⌈(1500 + 10%) ÷ 1000⌉: " + slurm.sbatch.get(0));
        JobResult r = s.results().get(0);
        assertEquals(OptionalLong.of(1650), r.declaredMib());
        assertEquals(Optional.of("learned: job 1 peaked at 1500 MiB, +10%"), r.learned());
        assertEquals(Verdict.WITHIN, r.verdict());
    }

    @Test
    void vramAutoWithNothingLearnedRunsOnAWholeGpu_andTeachesTheNextRun() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        RunSummary s = run(slurm, "[vram=auto] python eval.py");
        assertTrue(slurm.sbatch.get(0).contains("--gres=gpu:1"), slurm.sbatch.get(0).toString());
        assertTrue(s.results().get(0).learned().orElseThrow().startsWith("vram=auto: nothing learned yet"));
        try (Journal j = Journal.open(dir.resolve("logs/journal.jsonl"), false)) {
            assertTrue(j.state().peaks().ofCommand("python eval.py").isPresent(), "its peak is there to learn from");
        }
    }

    @Test
    void requirementRulesFillInWhatALineDidNotDeclare_andTheStartedLineNamesTheRule() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "python train.py --llm big\n");
        io.gpusched.jobs.Requirements rules = io.gpusched.jobs.RequirementsParser.parse(
                "{\"rules\": [{\"name\": \"big\", \"match\": \"--llm big\", \"vram\": \"3000\", \"timeout\": \"2m\"}]}"
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8), "rules.json");
        InstantSlurm slurm = new InstantSlurm();
        slurm.next.add(new Object[] {0, 2900L, "", "COMPLETED"});
        RunSummary s = new SlurmExecutor(jobs, dir.resolve("logs"), SlurmOptions.defaults().withShards(1000, 8)
                .withPoll(Duration.ofMillis(5)), slurm, List.of("wrap"), events::add, notes::add, rules).run();
        assertTrue(slurm.sbatch.get(0).containsAll(List.of("--gres=shard:3", "--time=2")), slurm.sbatch.get(0).toString());
        assertEquals(Verdict.WITHIN, s.results().get(0).verdict());
        assertTrue(Files.readString(dir.resolve("logs/journal.jsonl")).contains("\"rule\":\"big\""));
        SchedulerEvent.JobStarted started = events.stream().filter(e -> e instanceof SchedulerEvent.JobStarted)
                .map(e -> (SchedulerEvent.JobStarted) e).findFirst().orElseThrow();
        assertEquals(Optional.of("big"), started.rule());
    }

    @Test
    void theWrappersReportReadsBackAsWritten() {
        WrapReport r = new WrapReport(12, List.of(0, 1), "n", 5, OptionalLong.of(9), OptionalInt.of(-1),
                Map.of(1, 30L, 0, 20L), OptionalDouble.of(42.5), Optional.of("no backend"));
        assertEquals(r, WrapReport.decode(r.encode()));
        assertThrows(IllegalArgumentException.class, () -> WrapReport.decode("{\"session\": 1"));
    }

    @Test
    void aLineSlurmCannotRunAddedWhileTheRunGoesOnFailsNamingFileLineAndFix_andTheRunEnds() throws Exception {
        InstantSlurm slurm = new InstantSlurm();
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "echo ok\n");
        // The line is added once the first job is in Slurm: only the live re-read sees it, not the check before.
        CommandRunner adding = argv -> {
            if (argv.get(0).equals("sbatch") && slurm.sbatch.isEmpty()) {
                try {
                    Files.writeString(jobs, "[tty] echo b\n", java.nio.file.StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            return slurm.run(argv);
        };
        SlurmOptions o = SlurmOptions.defaults().withShards(1000, 8).withPoll(Duration.ofMillis(5));
        RunSummary s = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
                new SlurmExecutor(jobs, dir.resolve("logs"), o, adding, List.of("wrap"), events::add, notes::add).run(),
                "a line Slurm cannot run is never run, so it must end, not stay pending for ever");
        assertEquals(1, slurm.sbatch.size(), "the tty line is never submitted");
        assertEquals(JobStatus.OK, s.results().stream().filter(r -> r.no() == 1).findFirst().orElseThrow().status());
        JobResult refused = s.results().stream().filter(r -> r.no() == 2).findFirst().orElseThrow();
        assertEquals(JobStatus.INFEASIBLE, refused.status(), s.results().toString());
        String why = events.stream().filter(e -> e instanceof SchedulerEvent.JobInfeasible).map(e ->
                ((SchedulerEvent.JobInfeasible) e).reason()).findFirst().orElse("no infeasible event: " + events);
        assertTrue(why.startsWith("jobs.txt:2: tty cannot be honoured on Slurm") && why.contains("; remove tty"), why);
    }

    @Test
    void aPercentInTheLogDirectoryIsWrittenDoubled_soSlurmsOutputIsTheAttemptsOwnFile() throws Exception {
        // sbatch replaces %j in --output with the job id (checked on Slurm 22.05: the job failed to launch,
        // its slurm.out in a directory that did not exist); %% is a %.
        InstantSlurm slurm = new InstantSlurm();
        Path logs = dir.resolve("100%j logs");
        RunSummary s = runIn(logs, slurm, "echo hi");
        assertEquals(logs.resolve("slurm/job001-1/slurm.out").toString().replace("%", "%%"),
                option(slurm.sbatch.get(0), "--output="));
        assertEquals(JobStatus.OK, s.results().get(0).status(), s.results().toString());
    }

    @Test
    void aLogDirectoryWithABackslashIsRefusedInOneLine_beforeAnythingIsSubmitted() throws Exception {
        // sbatch drops a backslash from --output (and stops replacing %j): Slurm's output would go elsewhere.
        InstantSlurm slurm = new InstantSlurm();
        SlurmException e = assertThrows(SlurmException.class, () -> runIn(dir.resolve("a\\b"), slurm, "echo hi"));
        assertEquals(0, slurm.sbatch.size());
        assertTrue(e.getMessage().contains("a\\b has a backslash") && e.getMessage().endsWith("give --log-dir a"
                + " directory without one") && !e.getMessage().contains("\n"), e.getMessage());
    }
}

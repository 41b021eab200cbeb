package io.gpusched.engine.queue;

import io.gpusched.engine.StubBackend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.JobHandle;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.options.SchedulerOptions;
import io.gpusched.model.SubmitContext;
import io.gpusched.jobs.JobSpec;
import io.gpusched.journal.Journal;
import io.gpusched.journal.JournalEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** API submissions as a source of the queue: own keys, journaled before acknowledged, rebuilt on restart. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubmissionsTest {
    /** The owner of these submissions: this process's user (a root scheduler runs others' jobs as them). */
    private static final String ME = System.getProperty("user.name");
    private static final SchedulerOptions FAST = SchedulerOptions.defaults()
            .withPoll(Duration.ofMillis(50)).withSampleInterval(Duration.ofMillis(20)).withKillGrace(Duration.ofMillis(500));

    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private Path logs() {
        return dir.resolve("logs");
    }

    private Scheduler.Builder builder() {
        return Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(logs()).listener(events::add);
    }

    private int lines(Path file) throws Exception {
        return Files.exists(file) ? Files.readAllLines(file).size() : 0;
    }

    private static void await(java.util.function.BooleanSupplier done) throws InterruptedException {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20); !done.getAsBoolean(); Thread.sleep(10)) {
            assertTrue(System.nanoTime() < end, "timed out");
        }
    }

    @Test
    void aSubmissionAndAFileLineWithTheSameCommandAreTwoJobs() throws Exception {
        Path marker = dir.resolve("ran");
        String line = "[vram=1G] echo x >> " + marker;
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), line + "\n");
        Scheduler s = builder().jobsFile(jobs).options(FAST.withWatch(true)).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            await(() -> events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobFinished));
            JobHandle submitted = s.submit(JobSpec.parse(line));
            JobResult r = submitted.result().get(20, TimeUnit.SECONDS);
            assertEquals("s2", r.key(), "a key no file line can have");
            assertEquals(2, submitted.number().getNow(-1));
            Files.writeString(jobs, line + "\n", java.nio.file.StandardOpenOption.APPEND); // the file's second line
            await(() -> events.stream().filter(e -> e instanceof SchedulerEvent.JobFinished).count() == 3);
            assertEquals(3, lines(marker), "three jobs, three runs");
        } finally {
            s.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void submitReturnsOnlyOnceTheSubmissionIsInTheJournalFile() throws Exception {
        Scheduler s = builder().options(FAST.withWatch(true)).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            await(() -> events.stream().anyMatch(e -> e instanceof SchedulerEvent.RunStarted));
            for (int i = 0; i < 5; i++) {
                JobHandle h = s.submit(JobSpec.parse("[vram=1G timeout=1h retries=2] sleep 0." + i));
                assertTrue(h.number().isDone(), "submit returned before the loop took it");
                String journal = Files.readString(logs().resolve("journal.jsonl"));
                assertTrue(journal.contains("{\"key\":\"s" + h.number().get() + "\",\"event\":\"submitted\",\"no\":"
                        + h.number().get() + ",\"command\":\"sleep 0." + i + "\",\"vram\":1024,\"gpus\":1,"
                        + "\"timeout_ns\":3600000000000,\"retries\":2,\"source\":\"api\""), journal);
            }
        } finally {
            s.close();
            run.get(20, TimeUnit.SECONDS);
        }
        ExecutionException late = assertThrows(ExecutionException.class,
                () -> s.submit(JobSpec.parse("true")).result().get(5, TimeUnit.SECONDS));
        assertTrue(late.getCause().getMessage().contains("the scheduler has stopped"), late.getCause().getMessage());
    }

    @Test
    void aSubmissionRunsInItsOwnWorkDirWithTheEnvironmentItCaptured() throws Exception {
        Path work = Files.createDirectories(dir.resolve("client work"));
        Path out = dir.resolve("seen");
        SubmitContext client = new SubmitContext(ME, work, Optional.of(Map.of("FOO", "from the client",
                "PATH", "/usr/bin:/bin")));
        Scheduler s = builder().options(FAST.withWatch(true)).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            await(() -> events.stream().anyMatch(e -> e instanceof SchedulerEvent.RunStarted));
            JobHandle h = s.submit(JobSpec.parse("[vram=1G] echo \"$(pwd)|$FOO|${HOME-unset}|$CUDA_VISIBLE_DEVICES\" > '"
                    + out + "'"), client);
            assertEquals(JobStatus.OK, h.result().get(20, TimeUnit.SECONDS).status());
            assertEquals(work + "|from the client|unset|0", Files.readString(out).strip(),
                    "its directory, its variables and none of the scheduler's, the GPU still set");
            String journal = Files.readString(logs().resolve("journal.jsonl"));
            assertTrue(journal.contains("\"owner\":\"" + ME + "\",\"cwd\":\"" + work + "\""), journal);
            assertTrue(journal.contains("\"env\":{\"FOO\":\"from the client\",\"PATH\":\"/usr/bin:/bin\"}"), journal);
        } finally {
            s.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRepeatedRequestIdQueuesNothing_andGetsTheFirstsNumberAndResult_evenAfterARestart() throws Exception {
        Path ledger = dir.resolve("ran");
        JobSpec job = JobSpec.parse("[vram=1G] sleep 0.3; echo once >> " + ledger);
        SubmitContext first = SubmitContext.current().withRequestId("client-7");
        Scheduler s = builder().options(FAST.withWatch(true)).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            await(() -> events.stream().anyMatch(e -> e instanceof SchedulerEvent.RunStarted));
            JobHandle a = s.submit(job, first);
            JobHandle again = s.submit(job, first);
            assertEquals(1, again.number().get(), "the same job");
            assertEquals(JobStatus.OK, again.result().get(20, TimeUnit.SECONDS).status(), "its result is the first's");
            assertEquals(a.result().get(), again.result().get());
            // (Run as root, the scheduler would run it as that user, who does not exist: it only has to be queued.)
            JobHandle otherOwner = s.submit(JobSpec.parse("[vram=1G] true"), new SubmitContext("someone-else",
                    first.workDir(), Optional.empty()).withRequestId("client-7"));
            assertEquals(2, otherOwner.number().get(), "request ids are per user");
            otherOwner.result().get(20, TimeUnit.SECONDS);
        } finally {
            s.close();
            run.get(20, TimeUnit.SECONDS);
        }
        Scheduler restarted = builder().options(FAST.withWatch(true)).build();
        CompletableFuture<RunSummary> run2 = CompletableFuture.supplyAsync(restarted::run);
        try {
            await(() -> events.stream().filter(e -> e instanceof SchedulerEvent.RunStarted).count() == 2);
            JobHandle late = restarted.submit(job, first);
            assertEquals(1, late.number().get(), "the journal remembers the request id");
            ExecutionException ended = assertThrows(ExecutionException.class, () -> late.result().get(5, TimeUnit.SECONDS));
            assertTrue(ended.getCause().getMessage().contains("job 1 ended before this run started"), ended.getMessage());
        } finally {
            restarted.close();
            run2.get(20, TimeUnit.SECONDS);
        }
        assertEquals(List.of("once"), Files.readAllLines(ledger), "job 1 ran once");
        assertTrue(Files.readString(logs().resolve("journal.jsonl")).contains("\"request_id\":\"client-7\""));
    }

    @Test
    void aSubmissionRebuiltAfterACrashRunsWhereAndAsItWasSubmitted() throws Exception {
        Path work = Files.createDirectories(dir.resolve("w"));
        Path out = dir.resolve("seen");
        JournalEvent.Submitted pending = new JournalEvent.Submitted("s1", 1, "echo \"$(pwd)|$FOO\" > '" + out + "'",
                OptionalLong.of(1024), 1, OptionalLong.empty(), 0, "api", ME, work.toString(), 1L,
                Optional.of(Map.of("FOO", "kept", "PATH", "/usr/bin:/bin")), Optional.empty());
        try (Journal j = Journal.open(logs().resolve("journal.jsonl"), false)) {
            j.append(List.of(pending));
        }

        RunSummary summary = builder().build().run();

        assertEquals(JobStatus.OK, summary.results().get(0).status(), summary.toString());
        assertEquals(work + "|kept", Files.readString(out).strip());
    }

    @Test
    void aRestartTakesUpSubmissionsAnOlderVersionJournaled_asRecorded_evenWhereTheRulesForNewInputNowRefuseThem()
            throws Exception {
        // What an older version accepted and journaled: a command holding a CR, one ending in '\', one that is
        // only a comment. Typed now, each is refused; read back, each is the job it was, attributes and all.
        String cr = "printf 'a\rb' > cr.out";
        String backslash = "printf '%s' kept > bs.out; : \\";
        String comment = "# an old no-op";
        List<String> commands = List.of(cr, backslash, comment);
        List<JournalEvent.Submitted> old = new java.util.ArrayList<>();
        for (int i = 0; i < commands.size(); i++) {
            String line = "[vram=1024 priority=" + (i + 1) + " name=old" + i + "] " + commands.get(i);
            assertThrows(io.gpusched.jobs.JobSpecException.class, () -> JobSpec.parse(line), line);
            old.add(new JournalEvent.Submitted("s" + (i + 1), i + 1, commands.get(i), OptionalLong.of(1024), 1,
                    OptionalLong.empty(), 0, "api", ME, dir.toString(), 1L, Optional.empty(), Optional.of(line)));
        }
        for (int i = 0; i < commands.size(); i++) {
            JobSpec rebuilt = Submissions.spec(old.get(i));
            assertEquals(commands.get(i), rebuilt.command());
            assertEquals(Optional.of("old" + i), rebuilt.scheduling().name(), "read from its line, not from the fields alone");
            assertEquals(i + 1, rebuilt.scheduling().priority());
        }
        try (Journal j = Journal.open(logs().resolve("journal.jsonl"), false)) {
            j.append(List.copyOf(old));
        }

        RunSummary summary = builder().build().run();

        assertEquals(3, summary.results().size(), summary.toString());
        assertTrue(summary.results().stream().allMatch(r -> r.status() == JobStatus.OK), summary.toString());
        assertEquals("a\rb", Files.readString(dir.resolve("cr.out")), "run as recorded, CR and all");
        assertEquals("kept", Files.readString(dir.resolve("bs.out")));
    }

    @Test
    void aSubmittedShareOfOneGpuIsJournaledWholeAndReservesItsShareOfTheGpuItGets() throws Exception {
        Scheduler s = builder().build();
        JobHandle h = s.submit(JobSpec.parse("[gpus=0.5 priority=1] true"));
        s.run();
        io.gpusched.model.JobResult r = h.result().get(20, TimeUnit.SECONDS);
        assertEquals(JobStatus.OK, r.status());
        // Half of the stub's 24000 MiB card is the job's declaration.
        assertEquals(OptionalLong.of(12000), r.declaredMib());
        assertTrue(events.stream().anyMatch(e -> e instanceof SchedulerEvent.JobStarted st
                && st.share().equals(Optional.of("0.5")) && st.declaredMib().equals(OptionalLong.of(12000))), events.toString());
        // The journal's line carries the share, so a restart rebuilds the same job (its gpus field is 1).
        io.gpusched.journal.JournalCodec codec = new io.gpusched.journal.JournalCodec();
        JournalEvent.Submitted sub = Files.readAllLines(logs().resolve("journal.jsonl")).stream()
                .map(l -> codec.decode(l)).flatMap(Optional::stream)
                .filter(e -> e instanceof JournalEvent.Submitted).map(e -> (JournalEvent.Submitted) e).findFirst().orElseThrow();
        assertEquals(Optional.of("[gpus=0.5 priority=1] true"), sub.line());
        assertEquals(1, sub.gpus());
        JobSpec rebuilt = Submissions.spec(codec.decode(codec.encode(sub)).map(e -> (JournalEvent.Submitted) e).orElseThrow());
        assertEquals(io.gpusched.alloc.GpuShare.parse("0.5"), rebuilt.share());
        assertEquals("[gpus=0.5 priority=1] true", rebuilt.toLine());
    }

    @Test
    void aSubmissionWithoutACapturedEnvironmentGetsTheSchedulers() throws Exception {
        Path out = dir.resolve("seen");
        Scheduler s = builder().build();
        JobHandle h = s.submit(JobSpec.parse("echo \"$(pwd)|${PATH:+has a PATH}\" > '" + out + "'"));
        s.run();
        assertEquals(JobStatus.OK, h.result().get(20, TimeUnit.SECONDS).status());
        assertEquals(Path.of("").toAbsolutePath() + "|has a PATH", Files.readString(out).strip());
    }

    @Test
    void aSubmissionMayWaitForAnEarlierOneByName_butNotForANameNoJobHas() throws Exception {
        Path ledger = dir.resolve("ledger");
        Scheduler s = builder().options(FAST.withWatch(true)).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            await(() -> events.stream().anyMatch(e -> e instanceof SchedulerEvent.RunStarted));
            JobHandle prep = s.submit(JobSpec.parse("[name=prep] sleep 0.3; echo prep >> " + ledger));
            JobHandle train = s.submit(JobSpec.parse("[after=prep] echo train >> " + ledger));
            assertEquals(JobStatus.OK, train.result().get(20, TimeUnit.SECONDS).status());
            assertEquals(JobStatus.OK, prep.result().get(20, TimeUnit.SECONDS).status());
            assertEquals(List.of("prep", "train"), Files.readAllLines(ledger));
            // prep has ended and left the queue: its name still resolves.
            assertEquals(JobStatus.OK, s.submit(JobSpec.parse("[after=prep] true")).result().get(20, TimeUnit.SECONDS)
                    .status());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> s.submit(JobSpec.parse("[after=perp] true")));
            assertEquals("cannot submit 'true': after=perp names no job of the queue; give the job it means [name=...] first",
                    e.getMessage());
        } finally {
            s.close();
            run.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void submittingWithAWorkDirThatIsNotADirectoryIsRefused() {
        Scheduler s = builder().build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> s.submit(JobSpec.parse("true"), SubmitContext.current().withWorkDir(dir.resolve("gone"))));
        assertTrue(e.getMessage().contains("gone is not a directory"), e.getMessage());
    }

    @Test
    void aRestartRunsTheSubmissionsThatWerePendingAndRecordsTheOneThatEndedUnwatched() throws Exception {
        Path marker = dir.resolve("ran");
        JournalEvent.Submitted pending = new JournalEvent.Submitted("s1", 1, "echo pending >> " + marker,
                OptionalLong.of(1024), 1, OptionalLong.empty(), 0, "api", ME, dir.toString(), 1L, Optional.empty(), Optional.empty());
        JournalEvent.Submitted ranUnwatched = new JournalEvent.Submitted("s2", 2, "echo unwatched >> " + marker,
                OptionalLong.of(1024), 1, OptionalLong.empty(), 0, "api", ME, dir.toString(), 2L, Optional.empty(), Optional.empty());
        JournalEvent.Submitted done = new JournalEvent.Submitted("s3", 3, "echo done >> " + marker,
                OptionalLong.empty(), 1, OptionalLong.empty(), 0, "api", ME, dir.toString(), 3L, Optional.empty(), Optional.empty());
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor();
        try (Journal j = Journal.open(logs().resolve("journal.jsonl"), false)) {
            j.append(List.of(pending, ranUnwatched, done,
                    new JournalEvent.Launching("s2", 1, List.of(0)), new JournalEvent.Started("s2", dead.pid(), List.of(0)),
                    new JournalEvent.Done("s3", "ok", 0, java.util.Map.of(), java.util.OptionalDouble.empty())));
        }
        Files.createDirectories(logs().resolve("runs"));
        Files.writeString(logs().resolve("runs/job002.run1.exit"), "0\n");

        RunSummary summary = builder().build().run();

        assertEquals(List.of("pending"), Files.readAllLines(marker), "only the pending submission ran; none twice");
        assertEquals(2, summary.results().size(), summary.toString());
        assertTrue(summary.results().stream().allMatch(r -> r.status() == JobStatus.OK));
        assertTrue(summary.results().stream().anyMatch(r -> r.key().equals("s2") && r.no() == 2));
        try (Journal j = Journal.open(logs().resolve("journal.jsonl"), false)) {
            assertEquals(4, j.state().nextNo(), "numbers go on after the submissions'");
        }
    }

    @Test
    void aLongWatchRunCompactsItsJournalForgetsEndedSubmissionsAndARestartGoesOnFromIt() throws Exception {
        Path marker = dir.resolve("ran");
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[vram=1G] echo file >> " + marker + "\n");
        SchedulerOptions small = FAST.withWatch(true).withCompactAfterBytes(4096);
        Scheduler s = builder().jobsFile(jobs).options(small).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            for (int i = 0; i < 60; i++) {
                assertEquals(JobStatus.OK, s.submit(JobSpec.parse("[vram=1G] echo " + i + " >> " + marker))
                        .result().get(20, TimeUnit.SECONDS).status());
            }
            await(() -> events.stream().anyMatch(e -> e instanceof SchedulerEvent.JournalCompacted));
            // Uncompacted, each job is four lines at least (submitted or seen, launching, started, done).
            long lines = Files.readAllLines(logs().resolve("journal.jsonl")).size();
            assertTrue(lines < 4 * 61, lines + " lines");
        } finally {
            s.close();
            run.get(20, TimeUnit.SECONDS);
        }
        assertEquals(61, lines(marker));
        long compactions = events.stream().filter(e -> e instanceof SchedulerEvent.JournalCompacted).count();
        assertTrue(compactions >= 2, compactions + " compactions");
        events.clear();

        // The restart: the file's job stays done, no submission runs again, numbers go on.
        Scheduler again = builder().jobsFile(jobs).build();
        JobHandle next = again.submit(JobSpec.parse("[vram=1G] echo next >> " + marker));
        RunSummary summary = again.run();
        assertEquals(62, lines(marker), "only the new submission ran");
        assertEquals(62, next.number().get(), "numbers go on after every job ever taken");
        assertEquals(1, summary.earlier().size(), "the file's job ended in an earlier run");
    }
}

package io.gpusched.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.Scheduler;
import io.gpusched.event.SchedulerEvent;
import io.gpusched.event.StatusBoard;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.options.SchedulerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A jobs file rewritten shorter while the run goes on (with {@code >} where {@code >>} was meant) drops the
 * waiting jobs it no longer lists, as docs/jobs-file.md's rule for deleted lines says; the scheduler now says
 * so in one warning: how many, which, and what becomes of them. Before, they left the queue unsaid. A real
 * file, truncated and rewritten in place, under a real scheduler on a stub GPU.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JobsFileShrinkTest {
    @TempDir
    Path dir;

    private final List<SchedulerEvent> events = new CopyOnWriteArrayList<>();

    private static final SchedulerOptions FAST = SchedulerOptions.defaults().withWatch(true)
            .withPoll(Duration.ofMillis(20)).withSampleInterval(Duration.ofMillis(10)).withKillGrace(Duration.ofMillis(500));

    @Test
    void aFileRewrittenShorter_saysHowManyWaitingJobsItNoLongerLists_andWhatBecomesOfThem() throws Exception {
        Path go = dir.resolve("go");
        Path f = dir.resolve("jobs.txt");
        String running = "[vram=20G] while [ ! -e " + go + " ]; do sleep 0.02; done\n";
        StringBuilder all = new StringBuilder(running);
        for (int i = 0; i < 7; i++) {
            all.append("[vram=20G] true waiting-").append(i).append('\n');
        }
        Files.writeString(f, all);
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .jobsFile(f).listener(events::add).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            awaitBoard(b -> b.running().size() == 1 && b.pending().size() == 7);
            // echo ... > jobs.txt: truncated and rewritten in place, one new line after the running one
            Files.writeString(f, running + "[vram=20G] true new\n");
            String warning = awaitWarning();
            assertEquals("jobs.txt shrank from 8 to 2 job lines (rewritten with > where >> appends?): it no longer"
                    + " lists 7 waiting jobs (jobs 2, 3, 4, 5, 6 and 2 more), which leave the queue without running;"
                    + " running jobs go on; put the lines back to queue them again", warning);
            StatusBoard after = awaitBoard(b -> b.pending().size() == 1);
            assertEquals(1, after.running().size(), "the running job goes on");

            // As the warning says: a line put back is queued again, under its old number.
            Files.writeString(f, "[vram=20G] true waiting-0\n", StandardOpenOption.APPEND);
            StatusBoard back = awaitBoard(b -> b.pending().size() == 2);
            assertTrue(back.pending().stream().anyMatch(p -> p.no() == 2), back.pending().toString());

            // A line deleted whose job runs, or one edit that drops no waiting job, says nothing.
            Files.writeString(f, "[vram=20G] true new\n[vram=20G] true waiting-0\n");
            awaitBoard(b -> b.running().size() == 1 && b.pending().size() == 2 && events.stream()
                    .filter(e -> e instanceof SchedulerEvent.StatusUpdated).count() > 0);
            Thread.sleep(400); // a quiet period and some rounds: time for a wrong warning to show
            assertEquals(1, events.stream().filter(e -> e instanceof SchedulerEvent.Warning).count(),
                    events.stream().filter(e -> e instanceof SchedulerEvent.Warning).toList().toString());
        } finally {
            Files.createFile(go);
            s.close();
        }
        RunSummary summary = run.get(30, TimeUnit.SECONDS);
        assertEquals(0, summary.count(JobStatus.FAILED));
    }

    @Test
    void oneWaitingJobDeleted_isSaidInTheSingular_andAsAnEditWhenTheFileDidNotShrink() throws Exception {
        Path go = dir.resolve("go");
        Path f = dir.resolve("jobs.txt");
        String running = "[vram=20G] while [ ! -e " + go + " ]; do sleep 0.02; done\n";
        Files.writeString(f, running + "[vram=20G] true a\n");
        Scheduler s = Scheduler.builder().backend(new StubBackend(1, 24000)).options(FAST).logDir(dir.resolve("logs"))
                .jobsFile(f).listener(events::add).build();
        CompletableFuture<RunSummary> run = CompletableFuture.supplyAsync(s::run);
        try {
            awaitBoard(b -> b.running().size() == 1 && b.pending().size() == 1);
            Files.writeString(f, running + "[vram=20G] true b\n");
            assertEquals("jobs.txt was edited: it no longer lists 1 waiting job (job 2), which leaves the queue without"
                    + " running; running jobs go on; put the lines back to queue them again", awaitWarning());
        } finally {
            Files.createFile(go);
            s.close();
        }
        run.get(30, TimeUnit.SECONDS);
    }

    private String awaitWarning() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            for (SchedulerEvent e : events) {
                if (e instanceof SchedulerEvent.Warning w) {
                    return w.message();
                }
            }
            assertTrue(System.nanoTime() < deadline, "no warning within 10 s: " + events.stream()
                    .filter(e -> !(e instanceof SchedulerEvent.StatusUpdated)).toList());
            Thread.sleep(10);
        }
    }

    private StatusBoard awaitBoard(Predicate<StatusBoard> p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            for (int i = events.size() - 1; i >= 0; i--) {
                if (events.get(i) instanceof SchedulerEvent.StatusUpdated u) {
                    if (p.test(u.board())) {
                        return u.board();
                    }
                    break;
                }
            }
            assertTrue(System.nanoTime() < deadline, "timed out waiting for a board");
            Thread.sleep(10);
        }
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import io.gpusched.service.GpuschedClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client verbs' options against a real {@code gpusched serve} process: {@code submit --output},
 * {@code submit --follow}, {@code queue --user/--all}, {@code cancel --user}.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeClientVerbsTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;

    private ServeDaemon serve() throws Exception {
        daemon = new ServeDaemon(dir, "--sim", "1", "--poll", "0.1", "--kill-grace", "1").start();
        return daemon;
    }

    @Test
    void outputGoesWhereSubmitSaid_relativeToItsDirectory_evenAfterTheDaemonRestarts() throws Exception {
        serve();
        Path work = Files.createDirectories(dir.resolve("work/sub"));
        assertEquals(0, daemon.verb("pause", "0").code());
        Result submitted = ServeDaemon.result(daemon.client(work.getParent(), "submit", "--output", "sub/out.log", "--vram",
                "1G", "--", "echo to-the-output; echo and-stderr >&2"));
        assertEquals(new Result(0, "submitted job 1\n", ""), submitted);
        Result noDir = ServeDaemon.result(daemon.client(work, "submit", "--output", "missing/out.log", "--", "true"));
        assertEquals(1, noDir.code());
        assertEquals("gpusched: cannot submit 'true': output " + work.resolve("missing/out.log") + " is in "
                + work.resolve("missing") + ", which is not a directory\n", noDir.err());
        assertTrue(Files.readString(daemon.logs().resolve("journal.jsonl"))
                .contains("\"output\":\"" + work.resolve("out.log") + "\""), "journaled with the submission");

        assertEquals(130, daemon.stop());
        daemon.start(); // the pause and job 1, with its output file, come back from the journal
        assertEquals(0, daemon.verb("resume", "0").code());
        daemon.awaitQueue("✓ job 1 ok");
        assertEquals("to-the-output\nand-stderr\n", Files.readString(work.resolve("out.log")));
        try (var logs = Files.list(daemon.logs())) {
            assertFalse(logs.anyMatch(f -> f.getFileName().toString().startsWith("job001")), "no log in the log directory");
        }
        assertEquals(new Result(0, "to-the-output\nand-stderr\n", ""), daemon.verb("logs", "1"));
        assertEquals(new Result(0, "to-the-output\nand-stderr\n", ""), daemon.verb("logs", "-f", "1"));
        assertEquals(130, daemon.stop());
    }

    @Test
    void queueShowsTheLastTenFinishedOrAll_oneUsersOrEveryones_andJsonTheSameRows() throws Exception {
        serve();
        for (int i = 1; i <= 12; i++) {
            assertEquals(0, daemon.verb("submit", "--vram", "1G", "--", "true").code());
        }
        String me = System.getProperty("user.name");
        String q = daemon.awaitQueue("0 running, 0 pending, 12 done");
        assertTrue(q.contains("(2 earlier finished jobs not shown: gpusched queue --all)\n✓ job 3 ok — true   [" + me + "]\n"), q);
        assertTrue(q.endsWith("✓ job 12 ok — true   [" + me + "]\n") && !q.contains("job 2 ok") && !q.contains("job 1 ok"), q);
        String all = daemon.verb("queue", "--all").out();
        assertTrue(all.contains("✓ job 1 ok — true") && all.contains("✓ job 12 ok") && !all.contains("not shown"), all);
        assertEquals(q, daemon.verb("queue", "--user", "me").out(), "all of them are mine");
        assertEquals(q, daemon.verb("queue", "--user", me).out());
        assertEquals("0 running, 0 pending, 0 done\n", daemon.verb("queue", "--user", "nobody-here").out());

        assertEquals(10L, doneRows(daemon.verb("queue", "--json").out()));
        assertEquals(12L, doneRows(daemon.verb("queue", "--json", "--all").out()));
        assertEquals(12L, doneRows(daemon.verb("queue", "--json", "--all", "--user", "me").out()));
        assertEquals(0L, doneRows(daemon.verb("queue", "--json", "--user", "nobody-here").out()));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: --all is an option of gpusched queue\n"),
                daemon.verb("cancel", "--all"));
        daemon.stop();
    }

    @Test
    void submitGpusHalfPacksTwoHalvesOnOneCard_andTheQueueSaysWhyTheThirdWaits() throws Exception {
        serve();
        for (int i = 1; i <= 3; i++) {
            assertEquals(0, daemon.verb("submit", "--gpus", "0.5", "--", "sleep 60").code());
        }
        // Half of the 24000 MiB sim card each: two at once, the third waits for a half to free.
        String q = daemon.awaitQueue("2 running, 1 pending");
        assertTrue(q.contains("needs 0.5 of one GPU's memory"), q);
        assertEquals(new ServeDaemon.Result(1, "", "gpusched: bad --gpus '1.5' (a fraction is a share of one GPU:"
                + " above 0, below 1, at most 9 decimals); give a whole number of GPUs from 1 to 1024, or a share of one GPU"
                + " between 0 and 1 such as 0.5\n"), daemon.verb("submit", "--gpus", "1.5", "--", "true"));
        daemon.verb("cancel", "--user", "me");
        daemon.stop();
    }

    @Test
    void cancelUserCancelsEveryJobOfTheirsThatHasNotEnded_runningOrPending() throws Exception {
        serve();
        for (int i = 1; i <= 3; i++) {
            assertEquals(0, daemon.verb("submit", "--vram", "10G", "--", "sleep 60").code()); // two fit at once
        }
        daemon.awaitQueue("2 running, 1 pending");
        assertEquals(new ServeDaemon.Result(0, "job 1: stopping (SIGTERM to its session)\n"
                + "job 2: stopping (SIGTERM to its session)\njob 3: cancelled before it started\n", ""),
                daemon.verb("cancel", "--user", "me"));
        String q = daemon.awaitQueue("0 running, 0 pending, 3 done");
        assertTrue(q.contains("✗ job 1 cancelled") && q.contains("✗ job 2 cancelled") && q.contains("✗ job 3 cancelled"), q);
        assertEquals(new ServeDaemon.Result(0, "no pending or running job of nobody-here to cancel\n", ""),
                daemon.verb("cancel", "--user", "nobody-here"));
        assertEquals(new ServeDaemon.Result(2, "", "gpusched: cancel takes job numbers or --user, not both\n"),
                daemon.verb("cancel", "--user", "me", "3"));
        daemon.stop();
    }

    @Test
    void submitFollowStreamsTheJobsOutput_andCtrlCDetachesWhileTheJobGoesOn() throws Exception {
        serve();
        ServeDaemon.Result followed = daemon.verb("submit", "--follow", "--vram", "1G", "--", "echo hello");
        assertEquals(0, followed.code(), "follows until the job ends, and exits as it did");
        assertEquals("submitted job 1\nhello\n", followed.out());
        assertTrue(followed.err().matches("job 1 ok in \\d+s, no GPU memory seen\n"), followed.err());

        Path go = dir.resolve("go");
        Process client = daemon.client(dir, "submit", "--follow", "--vram", "1G", "--",
                "echo first; while [ ! -e " + go + " ]; do sleep 0.05; done; echo last");
        var lines = client.inputReader(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals("submitted job 2", lines.readLine());
        assertEquals("first", lines.readLine(), "the output streams while the job runs");
        assertTrue(client.isAlive(), "still following");
        assertEquals(0, new ProcessBuilder("kill", "-INT", String.valueOf(client.pid())).start().waitFor());
        assertTrue(client.waitFor(30, TimeUnit.SECONDS), "Ctrl-C ends the client");
        assertEquals(0, client.exitValue(), "detaching is not a failure");
        assertEquals("detached: job 2 keeps running (gpusched logs 2 -f follows it again)\n",
                new String(client.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(daemon.verb("queue").out().contains("▶ job 2 "), "the job goes on");
        Files.createFile(go);
        daemon.awaitQueue("✓ job 2 ok");
        assertEquals("first\nlast\n", daemon.verb("logs", "2").out());
        daemon.stop();
    }

    @Test
    void aHundredClientsSubmittingAtOnceAllGetAnAnswer_eachADistinctJobNumber() throws Exception {
        serve();
        assertEquals(0, daemon.verb("pause", "0").code()); // they only have to be queued
        int clients = 100;
        java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(clients);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
        List<java.util.concurrent.Future<Integer>> answers = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                String line = "[vram=1G] echo client " + i;
                answers.add(pool.submit(() -> {
                    together.await(30, TimeUnit.SECONDS);
                    try (GpuschedClient c = GpuschedClient.connect(daemon.socket())) {
                        return c.submit(new GpuschedClient.Submission(line, dir));
                    }
                }));
            }
            java.util.Set<Integer> numbers = new java.util.TreeSet<>();
            for (var a : answers) {
                numbers.add(a.get(60, TimeUnit.SECONDS));
            }
            assertEquals(java.util.stream.IntStream.rangeClosed(1, clients).boxed().toList(), List.copyOf(numbers),
                    "every client got its own number");
        } finally {
            pool.shutdownNow();
        }
        daemon.awaitQueue("0 running, 100 pending");
        daemon.stop();
    }

    /** How many finished rows a {@code queue --json} answer has: each is a job result, with a verdict. */
    private static long doneRows(String json) {
        assertTrue(json.startsWith("{\"snapshot\":{\"at\":") && json.endsWith("}\n"), json);
        return java.util.regex.Pattern.compile("\"verdict\":").matcher(json).results().count();
    }
}

package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ServeDaemon.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25's items 4 to 6 through the real CLI against a real {@code gpusched serve --sim 2} (two
 * simulated 24000 MiB GPUs): what could never run is refused at submit with the scheduler's own reason
 * and nothing is journaled; {@code submit --dry-run}; the exit codes of {@code cancel}, {@code srun},
 * {@code submit --follow} and {@code logs -f} on a pending job; {@code queue} as a table, its
 * {@code --format}, plain ASCII in a non-UTF-8 locale, and finished jobs of an earlier daemon under
 * {@code --all}.
 */
@ExtendWith(ServeDaemon.ClosedAfterEach.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CommandLineAsTypedEndToEndTest {
    @TempDir
    Path dir;

    private ServeDaemon daemon;

    private ServeDaemon serve(String... more) throws Exception {
        List<String> options = new ArrayList<>(List.of("--sim", "2", "--poll", "0.1", "--kill-grace", "1"));
        options.addAll(List.of(more));
        daemon = new ServeDaemon(dir, options.toArray(String[]::new)).start();
        return daemon;
    }

    private String journal() throws Exception {
        return Files.readString(daemon.logs().resolve("journal.jsonl"));
    }

    /** A client in a process of its own, with {@code env} added to its environment. */
    private Result client(Map<String, String> env, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(ServeDaemon.java(), "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), args[0], "--socket", daemon.socket().toString()));
        argv.addAll(List.of(args).subList(1, args.length));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        pb.environment().putAll(env);
        return ServeDaemon.result(pb.start());
    }

    @Test
    void submitRefusesWhatCouldNeverRun_withTheSchedulersReason_exit1_andNothingIsQueuedOrJournaled() throws Exception {
        Path rules = dir.resolve("requirements.json");
        Files.writeString(rules, "{\"rules\": [{\"name\": \"huge\", \"match\": \"train-huge\", \"vram\": \"100G\"}]}");
        serve("--requirements", rules.toString());
        String before = journal();

        Result tooBig = daemon.verb("submit", "--vram", "80G", "--", "python train.py");
        assertEquals(1, tooBig.code(), tooBig.toString());
        assertEquals("gpusched: cannot submit 'python train.py': it could never run here: needs 1 GPU with ≥ 82432 MiB"
                + " (vram 81920 + margin 512); the largest allowed GPU has 24000 MiB\n", tooBig.err());
        assertEquals("", tooBig.out());
        assertEquals("gpusched: cannot submit 'true': it could never run here: needs 3 GPUs but only 2 are present\n",
                daemon.verb("submit", "--gpus", "3", "--", "true").err());
        assertEquals("gpusched: cannot submit 'true': it could never run here: needs 1 GPU but only 0 of its gpu-ids are"
                + " present (no GPU 5 here; this machine has GPUs 0,1)\n", daemon.verb("submit", "--gpu-ids", "5", "--", "true").err());
        assertEquals("gpusched: cannot submit 'true': it could never run here: gpu-ids names GPU-0000dead, which is not"
                + " a GPU of this machine\n", daemon.verb("submit", "--gpu-ids", "GPU-0000dead", "--", "true").err());
        Result rule = daemon.verb("submit", "--", "train-huge --epochs 3");
        assertEquals(1, rule.code());
        assertTrue(rule.err().contains("it could never run here: needs 1 GPU with ≥ 102912 MiB (vram 102400 + margin 512)"),
                "the requirement rule's declaration is judged, as the queue would: " + rule.err());
        Result after = daemon.verb("submit", "--after", "nosuch", "--", "true");
        assertEquals(new Result(1, "", "gpusched: cannot submit 'true': after=nosuch names no job of the queue; give the"
                + " job it means [name=...] first\n"), after);
        Result srun = daemon.verb("srun", "--vram", "30G", "--", "true");
        assertEquals(1, srun.code(), "srun is refused the same way");
        assertTrue(srun.err().contains("it could never run here: needs 1 GPU with ≥ 31232 MiB"), srun.err());

        for (Result r : List.of(tooBig, rule, after, srun)) {
            assertEquals(1, r.err().split("\n").length, "one line: " + r.err());
        }
        assertEquals(before, journal(), "nothing was journaled");
        assertTrue(daemon.verb("queue", "--all").out().startsWith("0 running, 0 pending, 0 done"));
        assertEquals(new Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--vram", "20G", "--", "true"),
                "a job that fits is still taken, and gets the first number");
    }

    @Test
    void dryRunSaysWhereTheJobWouldStartOrWhyItWouldWait_andQueuesNothing() throws Exception {
        serve();
        String before = journal();
        assertEquals(new Result(0, "would start now on gpu [0] (dry run: nothing was queued)\n", ""),
                daemon.verb("submit", "--dry-run", "--vram", "1G", "--", "python eval.py"));
        assertEquals(new Result(0, "would start now on gpu [0, 1] (dry run: nothing was queued)\n", ""),
                daemon.verb("submit", "--dry-run", "--gpus", "2", "--", "python train.py"));
        assertEquals(new Result(0, "{\"start\":[0]}\n", ""),
                daemon.verb("submit", "--dry-run", "--json", "--vram", "1G", "--", "true"));
        assertEquals(0, daemon.verb("pause", "0").code());
        assertEquals(new Result(0, "would start now on gpu [1] (dry run: nothing was queued)\n", ""),
                daemon.verb("submit", "--dry-run", "--vram", "1G", "--", "true"), "not on the paused GPU");
        Result waits = daemon.verb("submit", "--dry-run", "--gpus", "2", "--", "true");
        assertEquals(0, waits.code());
        assertTrue(waits.out().startsWith("would wait: ") && waits.out().contains("gpu0 is paused"), waits.out());
        Result never = daemon.verb("submit", "--dry-run", "--vram", "30G", "--", "true");
        assertEquals(1, never.code());
        assertTrue(never.err().contains("it could never run here: needs 1 GPU with ≥ 31232 MiB"), never.err());
        assertEquals(before.lines().filter(l -> !l.contains("\"paused\"")).toList(),
                journal().lines().filter(l -> !l.contains("\"paused\"")).toList(), "only the pause was journaled");
        assertTrue(daemon.verb("queue").out().startsWith("0 running, 0 pending, 0 done"));
        assertEquals(2, daemon.verb("queue", "--dry-run").code(), "--dry-run is submit's");
    }

    @Test
    void exitCodes_unknownJobIs1_followAndSrunExitAsTheJob_withTheOutcomeLine() throws Exception {
        serve();
        assertEquals(new Result(1, "job 9999: no such job\n", ""), daemon.verb("cancel", "9999"));
        assertEquals(1, daemon.verb("show", "9999").code());
        assertEquals(1, daemon.verb("logs", "9999").code());
        // A negative number is a bad command line, said in the CLI's words, not the protocol's field names.
        for (String verb : List.of("show", "cancel", "logs")) {
            Result negative = daemon.verb(verb, "-1");
            assertEquals(2, negative.code(), negative.toString());
            assertTrue(negative.err().contains("'-1' is not a job number"), negative.err());
        }
        Result gpu = daemon.verb("pause", "-1");
        assertEquals(2, gpu.code(), gpu.toString());
        assertTrue(gpu.err().contains("'-1' is not a GPU index"), gpu.err());

        Result four = daemon.verb("submit", "--follow", "--", "echo out; exit 4");
        assertEquals(4, four.code(), four.toString());
        assertEquals("submitted job 1\nout\n", four.out());
        assertTrue(four.err().matches("job 1 failed, exit 4 in \\d+s, no GPU memory seen\n"), four.err());
        Result killed = daemon.verb("submit", "-f", "--", "kill -KILL $$");
        assertEquals(137, killed.code(), "128 + SIGKILL: " + killed);
        assertTrue(killed.err().startsWith("job 2 failed, exit 137 in "), killed.err());

        Result srun = client(Map.of(), "srun", "--", "exit 3");
        assertEquals(3, srun.code(), srun.toString());
        assertTrue(srun.err().contains("job 3 failed, exit 3 in "), "srun's outcome line: " + srun.err());
        Result srunKilled = client(Map.of(), "srun", "--", "kill -TERM $$");
        assertEquals(143, srunKilled.code(), "128 + SIGTERM: " + srunKilled);
        assertTrue(srunKilled.err().contains("job 4 failed, exit 143 in "), srunKilled.err());

        String docs = Files.readString(Path.of("..", "docs", "scripts.md"));
        for (String row : ExitCodes.TABLE) {
            assertTrue(docs.contains(row), "docs/scripts.md keeps the table word for word: " + row);
        }
        String help = daemon.verb("queue", "--help").out();
        assertTrue(help.contains("Exit codes:\n  " + ExitCodes.TABLE.get(0)), help);
    }

    @Test
    void logsFollowOnAPendingJobSaysItWaits_thenFollowsOnceItStarts() throws Exception {
        serve();
        assertEquals(0, daemon.verb("pause", "0").code());
        assertEquals(0, daemon.verb("pause", "1").code());
        assertEquals(new Result(0, "submitted job 1\n", ""), daemon.verb("submit", "--vram", "1G", "--", "echo started"));
        daemon.awaitQueue("… job 1 ");
        Process follower = daemon.client(dir, "logs", "-f", "1");
        var err = follower.errorReader(StandardCharsets.UTF_8);
        String said = err.readLine();
        assertTrue(said.startsWith("job 1 is pending (waits: ") && said.endsWith("); its output follows once it starts"
                + " (Ctrl-C detaches)"), said);
        assertTrue(said.contains("gpu0, gpu1 are paused"), said);
        assertTrue(follower.isAlive(), "it waits for the job");
        assertEquals(0, daemon.verb("resume", "0").code());
        assertTrue(follower.waitFor(60, TimeUnit.SECONDS), "it ends with the job");
        assertEquals(0, follower.exitValue());
        assertEquals("started\n", new String(follower.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void queueIsATable_inTheFormatAsked_cutToTheTerminal_andAsciiOutsideUtf8() throws Exception {
        serve();
        assertEquals(0, daemon.verb("submit", "--vram", "2G", "--priority", "3", "--", "sleep 60").code());
        assertEquals(0, daemon.verb("submit", "--", "echo done; exit 3").code());
        assertEquals(0, daemon.verb("pause", "1").code());
        assertEquals(0, daemon.verb("submit", "--gpus", "2", "--vram", "1G", "--comment", "needs both", "--",
                "python train.py --a-rather-long-argument-list-that-goes-on").code());
        daemon.awaitQueue("1 running, 1 pending, 1 done");
        String me = System.getProperty("user.name");

        Result table = client(Map.of("COLUMNS", "200", "LANG", "C.UTF-8"), "queue", "--format",
                "%i %u %t %b %m %.M %.p %x %r");
        assertEquals(0, table.code(), table.toString());
        List<String> lines = table.out().lines().toList();
        assertEquals(4, lines.size(), table.out());
        assertTrue(lines.get(0).matches("JOB +USER +STATE +GPUS +MEMORY +TIME +PRIO +EXIT +REASON"), lines.get(0));
        assertTrue(lines.get(1).matches("1 +" + me + " +running +0 +\\d+M/2G +\\d+s +3 +-"), lines.get(1));
        // a pending job: the GPUs it asks for, and how long it has waited so far
        assertTrue(lines.get(2).matches("3 +" + me + " +pending +2 +-/1G +\\d+s +0 +- +needs 2 GPUs with ≥ 1536 MiB headroom.*gpu1 is paused.*"), lines.get(2));
        assertTrue(lines.get(3).matches("2 +" + me + " +failed +\\d +-/- +(\\d+s|-) +- +3 +exit 3"), lines.get(3));

        Result names = client(Map.of("COLUMNS", "40", "LANG", "C.UTF-8"), "queue", "--format", "job,state,command");
        for (String l : names.out().lines().toList()) {
            assertTrue(DisplayWidth.of(l) <= 40, "fits 40 columns: '" + l + "'");
        }
        assertTrue(names.out().contains("\n3    pending  python train.py --a-rathe…\n"), "the last column is cut: " + names.out());

        Result ascii = client(Map.of("COLUMNS", "60", "LANG", "C"), "queue", "--format", "%i %t %r");
        assertTrue(ascii.out().contains("...") && ascii.out().contains(">="), "plain words for the symbols: " + ascii.out());
        Result list = client(Map.of("LANG", "en_US.ISO-8859-1"), "queue");
        for (Result r : List.of(ascii, list)) {
            assertEquals(0, r.code());
            assertTrue(r.out().chars().allMatch(c -> c < 0x80), "ASCII only: " + r.out());
        }
        assertTrue(list.out().contains("+ job 2") || list.out().contains("x job 2"), "the list, in ASCII: " + list.out());

        assertEquals(new Result(2, "", "gpusched: --format: unknown field %z; " + QueueFormat.known() + "\n"),
                daemon.verb("queue", "--format", "%i %z"));
        assertEquals(2, daemon.verb("queue", "--format", "job,colour").code());
        daemon.verb("cancel", "--user", "me");
    }

    @Test
    void queueAllListsJobsThatFinishedUnderAnEarlierDaemon_withTheirExitCodes_fromItsJournal() throws Exception {
        serve();
        assertEquals(0, daemon.verb("submit", "--", "true").code());
        assertEquals(0, daemon.verb("submit", "--", "exit 5").code());
        daemon.awaitQueue("0 running, 0 pending, 2 done");
        assertEquals(130, daemon.stop());
        daemon.start();
        assertEquals(0, daemon.verb("submit", "--", "exit 6").code());
        daemon.awaitQueue("0 running, 0 pending, 3 done");

        Result all = client(Map.of("LANG", "C.UTF-8"), "queue", "--all", "--format", "job,state,exit");
        assertEquals(List.of("JOB  STATE   EXIT", "1    ok      0", "2    failed  5", "3    failed  6"),
                all.out().lines().toList());
        String json = daemon.verb("queue", "--json", "--all").out();
        assertTrue(json.contains("\"earlier\":[{") && json.contains("\"exit_code\":5"), json);
        assertTrue(daemon.verb("show", "2").out().startsWith("job 2 ended failed, exit 5"), "show answers it too");
        String plain = daemon.verb("queue", "--all").out();
        assertTrue(plain.contains("✓ job 1 ok — true") && plain.contains("✗ job 2 failed, exit 5 — exit 5"), plain);
        assertFalse(plain.contains("not shown"), plain);
    }

    @Test
    void aSubmissionAShellWouldReadAsOtherThanOneWholeJob_isRefusedNamingWhatToFix_andNothingIsJournaled() throws Exception {
        serve();
        String before = journal();
        assertEquals(new Result(1, "", "gpusched: <job>:1: line ends with '\\' (a shell line continuation), but a job is one"
                + " line: 'python train.py \\'; join the next line onto this one, or put the command in a script\n"),
                daemon.verb("submit", "--vram", "1G", "--", "python train.py \\"));
        Result escaped = daemon.verb("submit", "--", "printf '[%s]' a\\ ");
        assertEquals(1, escaped.code(), escaped.toString());
        assertTrue(escaped.err().startsWith("gpusched: <job>:1: line ends with '\\' and a blank"), escaped.err());
        Result comment = daemon.verb("submit", "--vram", "8G", "--", "# python train.py");
        assertEquals(1, comment.code(), comment.toString());
        assertTrue(comment.err().startsWith("gpusched: <job>:1: the command is only a shell comment"), comment.err());
        // What the user typed is flags and words, not a line: the error names them, before anything is sent.
        Result cr = daemon.verb("submit", "--", "echo a\recho b");
        assertTrue(cr.code() == 2 && cr.err().startsWith("gpusched: the command holds a line break"), cr.toString());
        assertEquals(new Result(2, "", "gpusched: --setup holds a line break, but a job is one line: join its lines with ';'"
                + " (--setup 'a; b'), or put them in a script\n"), daemon.verb("submit", "--setup", "a\nb", "--", "x"));
        assertEquals(new Result(2, "", "gpusched: word 3 of the command holds a line break, but a job is one line: join its"
                + " lines with ';' (python3 -c 'import a; print(1)'), or put them in a script and submit that\n"),
                daemon.verb("submit", "--", "python3", "-c", "import a\nprint(1)"));
        assertEquals(before, journal(), "nothing refused is journaled");

        Result quoted = daemon.verb("submit", "--", "printf '[%s]' 'a '");
        assertEquals(0, quoted.code(), quoted.toString());
        assertTrue(journal().contains("\"command\":\"printf '[%s]' 'a '\""), journal());
    }
}

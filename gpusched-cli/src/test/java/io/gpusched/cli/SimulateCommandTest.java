package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... argv) {
        return new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                s -> { }).run(argv);
    }

    @Test
    void simulate_printsMakespanAndTimeline() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=40G] train a # duration=2m\n[vram=40G] train b # duration=1m\n"
                + "[vram=60G] train c # duration=30s\n");
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x96G", "--jobs"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("makespan 150.00s"), text);
        assertTrue(text.contains("gpu0"), text);
    }

    @Test
    void simulate_sharesOfOneGpuPackTwoHalvesOnEachCard_whateverItsSize() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[gpus=0.5] a # duration=1m\n[gpus=0.5] b # duration=1m\n[gpus=0.5] c # duration=1m\n"
                + "[gpus=0.5] d # duration=1m\n[gpus=0.5] e # duration=1m\n");
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x24000,1x80000", "--jobs"));
        String text = out.toString(StandardCharsets.UTF_8);
        // Two halves on each card at once (12000 MiB each on gpu0, 40000 on gpu1); the fifth waits.
        assertTrue(text.contains("makespan 120.00s"), text);
        assertTrue(text.contains("job 1 on gpu [0]  0.00s -> 60.00s") && text.contains("job 2 on gpu [0]  0.00s -> 60.00s")
                && text.contains("job 3 on gpu [1]  0.00s -> 60.00s") && text.contains("job 4 on gpu [1]  0.00s -> 60.00s"), text);
    }

    /** A rule's vram packs undeclared lines that would otherwise each hold a GPU alone. */
    @Test
    void simulate_appliesRequirementRules() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "python eval.py --llm qwen2.5-7b --task a # duration=1m\n"
                + "python eval.py --llm qwen2.5-7b --task b # duration=1m\n"
                + "[vram=70G] python eval.py --llm qwen2.5-7b --task c # duration=1m\n");
        Path rules = dir.resolve("requirements.json");
        Files.writeString(rules, "{\"rules\": [{\"match\": \"--llm qwen2.5-7b\", \"vram\": \"16G\"}]}");
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x80G"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("makespan 180.00s"), out.toString(StandardCharsets.UTF_8));
        out.reset();
        // a and b pack (16G each); c keeps its own 70G and waits for them.
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x80G", "--requirements", rules.toString()));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("makespan 120.00s"), out.toString(StandardCharsets.UTF_8));
        Files.writeString(rules, "{\"rules\": [{\"match\": \"x\"}]}");
        assertEquals(2, run("simulate", jobs.toString(), "--requirements", rules.toString()));
        assertEquals("gpusched: requirements.json:1: rule 1: \"x\" sets nothing; give it vram, gpus, timeout or retries",
                err.toString(StandardCharsets.UTF_8).strip());
    }

    /** A sweep replayed twice: the first runs its undeclared lines alone and saves a journal; the second learns from it. */
    @Test
    void simulate_aSecondReplayPacksByWhatTheFirstSaved() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "eval a # duration=1m peak=20G\neval b # duration=1m peak=20G\n[vram=auto] eval c # duration=1m peak=30G\n");
        Path journal = dir.resolve("replay.jsonl");
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x80G", "--auto-vram", "--save-journal",
                journal.toString()));
        String first = out.toString(StandardCharsets.UTF_8);
        assertTrue(first.contains("makespan 180.00s") && first.contains("vram=auto: 0 of 3 learning jobs"), first);
        out.reset();
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x80G", "--auto-vram", "--learn-from",
                journal.toString()));
        String second = out.toString(StandardCharsets.UTF_8);
        // 22528 + 22528 + 33792 MiB, each with the 512 MiB margin, fit one 80 GiB card together.
        assertTrue(second.contains("makespan 60.00s") && second.contains("vram=auto: 3 of 3 learning jobs declared"), second);
        out.reset();
        // Without --auto-vram only the [vram=auto] line learns; the other two still run alone.
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x80G", "--learn-from", journal.toString()));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("vram=auto: 1 of 1 learning jobs"),
                out.toString(StandardCharsets.UTF_8));
        assertEquals(2, run("simulate", jobs.toString(), "--save-journal", journal.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--save-journal " + journal + " exists; give a new path"),
                err.toString(StandardCharsets.UTF_8));
    }

    /**
     * {@code --learn-from} names a journal: lines of it that are not (another file named by mistake, a damaged
     * line) were skipped unsaid, and the replay ran as if it had nothing to learn. Now each kind is one warning
     * on stderr, as {@code gpusched stats} says them, and the replay still runs.
     */
    @Test
    void simulate_learnFromSaysWhatLinesOfTheJournalItSkipped() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=auto] eval a # duration=1m peak=20G\n");
        assertEquals(0, run("simulate", jobs.toString(), "--learn-from", jobs.toString()));
        assertEquals("gpusched simulate: warning: --learn-from: journal " + jobs + ": skipped 1 unreadable line (first at"
                + " line 1), kept every other event", err.toString(StandardCharsets.UTF_8).strip());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("vram=auto: 0 of 1 learning jobs"),
                out.toString(StandardCharsets.UTF_8));
    }

    /** Issue 11: a job with timeout=3 ran its whole 30.5 s in the replay. */
    @Test
    void simulate_stopsAJobAtItsTimeoutAndSaysSo() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=20G timeout=3] $GPUSCHED_SIMJOB --vram 20000 --ramp 0.5 --hold 30\n"
                + "[vram=20G] $GPUSCHED_SIMJOB --vram 20000 --ramp 0.5 --hold 1.5\n");
        assertEquals(0, run("simulate", jobs.toString(), "--gpus-spec", "1x24000", "--jobs"));
        String text = out.toString(StandardCharsets.UTF_8);
        // job 2 gets the GPU when job 1 is stopped at 3 s, and ends 2 s later
        assertTrue(text.contains("makespan 5.00s (2 ran, 0 infeasible, 1 timed out;"), text);
        assertTrue(text.contains(" 1[0.00-3.00 timeout] 2[3.00-5.00]"), text);
        assertTrue(text.contains("job 1 timed out after 3.00s (it would have run 30.50s), stopped at 3.00s — "), text);
        assertTrue(text.contains("job 1 on gpu [0]  0.00s -> 3.00s (timeout)  "), text);
    }

    @Test
    void simulate_missingDurationIsUsageError() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=4G] python x.py\n");
        assertEquals(Cli.USAGE, run("simulate", jobs.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("no duration"));
        assertEquals(0, run("simulate", jobs.toString(), "--default-duration=5s"));
    }

    @Test
    void simulate_directoryGivenAsTheJobsFileIsSaidToBeADirectory() {
        assertEquals(Cli.USAGE, run("simulate", dir.toString()));
        assertEquals("gpusched: jobs file " + dir + " is a directory; give the jobs file inside it\n",
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void simulate_everyBadLineIsItsOwnErrorLine() throws Exception {
        Path jobs = Files.writeString(dir.resolve("jobs.txt"), "[gpus=0] a # duration=1\nok # duration=1\n[gpus=0] b\n");
        assertEquals(Cli.USAGE, run("simulate", jobs.toString()));
        assertEquals("gpusched: jobs.txt:1: bad gpus 'gpus=0'; give a whole number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 such as 0.5\n"
                + "gpusched: jobs.txt:3: bad gpus 'gpus=0'; give a whole number of GPUs from 1 to 1024, or a share of one GPU between 0 and 1 such as 0.5\n", err.toString(StandardCharsets.UTF_8));
    }

    /** simulate's placement options are refused in the words a run uses for them, the option named. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "--margin|-5|--margin must be >= 0 MiB, got -5",
        "--margin|9223372036854775807|--margin must be at most 2147483647 MiB, got 9223372036854775807",
        "--idle-threshold|0|--idle-threshold must be >= 1 MiB, got 0",
        "--idle-threshold|2147483648|--idle-threshold must be at most 2147483647 MiB, got 2147483648",
        "--spike-buffer|11|--spike-buffer must be in [0, 10], got 11",
        "--spike-buffer|NaN|--spike-buffer needs a number, got 'NaN'",
        "--margin|x|--margin needs a whole number, got 'x'",
        "--idle-threshold|1.5|--idle-threshold needs a whole number, got '1.5'"})
    void simulate_placementOptionsOutOfRangeAreRefusedNamingTheOption(String option, String value, String message)
            throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=1G] a # duration=1m\n");
        assertEquals(2, run("simulate", jobs.toString(), option, value));
        assertEquals("gpusched: " + message + "\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void simulate_badSpecIsUsageError() throws Exception {
        Path jobs = dir.resolve("jobs.txt");
        Files.writeString(jobs, "[vram=4G] python x.py # duration=1\n");
        assertEquals(Cli.USAGE, run("simulate", jobs.toString(), "--gpus-spec", "4xZ"));
        assertEquals(Cli.USAGE, run("simulate"));
    }
}

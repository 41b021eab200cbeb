package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpusched stats} checked against a journal written by hand, every figure computed by hand below.
 *
 * <p>The journal, times in minutes after 09:00:00 UTC on 2026-03-02 (t0), two GPUs, the period ending at
 * 13:00 (t240, "now"); jobs-file lines belong to ada (the journal file's owner, given to the command):
 * <pre>
 *   job 1  ada (file line)  seen (a line without at_ms, as an older gpusched wrote it); started t0 gpu0
 *                           declared 8000; done ok t60, peak 7600
 *   job 2  alice            submitted t0, declared 10000; started t10 gpu1; oom t20 (next 12500);
 *                           started t20 gpu1 declared 12500; done ok t80, peak 11000     (retry after OOM)
 *   job 3  bob              submitted t5, 2 GPUs, 4000; started t60 gpus 0,1; done failed t90
 *   job 4  bob              submitted t30; done cancelled t40 (never started)
 *   job 5  alice            submitted t50, 200000 MiB; done infeasible t50 (never started)
 *   job 6  bob              submitted t170, 8000; started t180 gpu1; done ok t200, peak 9500
 *   job 7  alice            submitted t200, 4000; started t210 gpu0; still running (its done line is torn)
 * </pre>
 */
class StatsHandComputedTest {
    /** 2026-03-02T09:00:00Z. */
    static final long T0 = 1_772_442_000_000L;

    private static final String JOURNAL = """
            {"key":"aaaaaaaaaaaa#0","event":"seen","no":1,"command":"python prep.py"}
            {"key":"s2","event":"submitted","no":2,"command":"python train.py","vram":10000,"gpus":1,"timeout_ns":null,"retries":1,"source":"api","owner":"alice","cwd":"/home/alice","submitted_at_ms":@0,"at_ms":@0}
            {"key":"aaaaaaaaaaaa#0","event":"started","pgid":101,"gpus":[0],"vram":8000,"at_ms":@0}
            {"key":"s3","event":"submitted","no":3,"command":"torchrun eval.py","vram":4000,"gpus":2,"timeout_ns":null,"retries":0,"source":"api","owner":"bob","cwd":"/home/bob","submitted_at_ms":@5,"at_ms":@5}
            {"key":"s2","event":"started","pgid":102,"gpus":[1],"vram":10000,"at_ms":@10}
            {"key":"s2","event":"oom","attempts":1,"next_vram":12500,"at_ms":@20}
            {"key":"s2","event":"started","pgid":103,"gpus":[1],"vram":12500,"at_ms":@20}
            {"key":"s4","event":"submitted","no":4,"command":"python sweep.py","vram":6000,"gpus":1,"timeout_ns":null,"retries":0,"source":"api","owner":"bob","cwd":"/home/bob","submitted_at_ms":@30,"at_ms":@30}
            {"key":"s4","event":"done","status":"cancelled","returncode":0,"peak_mib":{},"avg_util":null,"at_ms":@40}
            {"key":"s5","event":"submitted","no":5,"command":"python huge.py","vram":200000,"gpus":1,"timeout_ns":null,"retries":0,"source":"api","owner":"alice","cwd":"/home/alice","submitted_at_ms":@50,"at_ms":@50}
            {"key":"s5","event":"done","status":"infeasible","returncode":1,"peak_mib":{},"avg_util":null,"at_ms":@50}
            {"key":"aaaaaaaaaaaa#0","event":"done","status":"ok","returncode":0,"peak_mib":{"0":7600},"avg_util":80.0,"at_ms":@60}
            {"key":"s3","event":"started","pgid":104,"gpus":[0,1],"vram":4000,"at_ms":@60}
            {"key":"s2","event":"done","status":"ok","returncode":0,"peak_mib":{"1":11000},"avg_util":90.0,"at_ms":@80}
            {"key":"s3","event":"done","status":"failed","returncode":1,"peak_mib":{"0":3000,"1":3000},"avg_util":null,"at_ms":@90}
            {"key":"s6","event":"submitted","no":6,"command":"python finetune.py","vram":8000,"gpus":1,"timeout_ns":null,"retries":0,"source":"api","owner":"bob","cwd":"/home/bob","submitted_at_ms":@170,"at_ms":@170}
            {"key":"s6","event":"started","pgid":105,"gpus":[1],"vram":8000,"at_ms":@180}
            {"key":"s6","event":"done","status":"ok","returncode":0,"peak_mib":{"1":9500},"avg_util":null,"at_ms":@200}
            {"key":"s7","event":"submitted","no":7,"command":"python serve.py","vram":4000,"gpus":1,"timeout_ns":null,"retries":0,"source":"api","owner":"alice","cwd":"/home/alice","submitted_at_ms":@200,"at_ms":@200}
            {"key":"s7","event":"started","pgid":106,"gpus":[0],"vram":4000,"at_ms":@210}
            {"key":"s7","event":"done","sta""";

    @TempDir
    Path dir;
    private Path logs;

    @BeforeEach
    void writeJournal() throws Exception {
        logs = Files.createDirectory(dir.resolve("logs"));
        Files.writeString(logs.resolve("journal.jsonl"), journal());
    }

    /** @return the journal's text, each {@code @M} the time M minutes after t0 */
    static String journal() {
        Matcher m = Pattern.compile("@([0-9]+)").matcher(JOURNAL);
        StringBuilder text = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(text, String.valueOf(T0 + Long.parseLong(m.group(1)) * 60_000));
        }
        m.appendTail(text);
        return text.toString();
    }

    // Whole journal: the period runs from its first time, t0 (job 2's submission), to now, t240: 4h00m.
    //
    // jobs: 1 ok, 2 ok, 3 failed, 4 cancelled, 5 infeasible, 6 ok, 7 running = 7: 3 ok, 1 failed, 1 cancelled,
    //   1 infeasible, 1 running. ada 1 (1 ok); alice 3 (2 ok, 5 infeasible = a failure, 7 running = active);
    //   bob 3 (6 ok, 3 failed, 4 cancelled).
    // GPU-time, GPU-minutes: job 1 60x1 = 60; job 2 (t10-t20) 10 + (t20-t80) 60 = 70; job 3 (t60-t90) 30x2 = 60;
    //   job 6 (t180-t200) 20; job 7 t210 to now 30 = 240 in all: 4.00 GPU-hours. ada 60 = 1.00; alice 70 + 30 =
    //   100 = 1.67 (1.6666666666666667); bob 60 + 20 = 80 = 1.33 (1.3333333333333333).
    // Waits: job 1's start is timed but its seen line is not: left out (1 wait lacks times). job 2 t0->t10 = 10m,
    //   job 3 t5->t60 = 55m, job 6 t170->t180 = 10m, job 7 t200->t210 = 10m. Sorted 10, 10, 10, 55 (n=4): p50 is
    //   the ceil(0.5x4) = 2nd = 10m, p95 the ceil(0.95x4) = 4th = 55m, max 55m. alice 10, 10: 10m, 10m, 10m.
    //   bob 10, 55: p50 the 1st = 10m, p95 the 2nd = 55m, max 55m. ada: none.
    // Utilisation over 240 min: gpu0 held t0-t60 (1), t60-t90 (3), t210-t240 (7) = 120 = 50.0%; gpu1 held
    //   t10-t80 (2), t60-t90 (3) overlapping: t10-t90 = 80, and t180-t200 (6) 20 = 100 = 41.7% (0.4166666666666667);
    //   all 220 / 480 = 45.8% (0.4583333333333333). ada: gpu0 60 (0.25), all 60/480 = 12.5%. alice: gpu0 30
    //   (0.125), gpu1 70 (0.2916666666666667), all 100/480 = 20.8% (0.20833333333333334). bob: gpu0 30 (0.125),
    //   gpu1 30 + 20 = 50 (0.20833333333333334), all 80/480 = 16.7% (0.16666666666666666).
    // Declarations, tolerance 0.10, over the ok jobs: job 1 peak 7600 of 8000, in [7200, 8800]: within, 0.95;
    //   job 2 peak 11000 of its last run's 12500, below 11250: over-declared, 0.88; job 6 peak 9500 of 8000, above
    //   8800: under-declared, 1.1875. 3 judged, one of each (33.3%); median of 0.88, 0.95, 1.1875 = 0.95. ada
    //   within 0.95; alice over-declared 0.88; bob under-declared 1.1875 (1.19).
    // Notes: 1 jobs-file line (job 1, ada's); 1 run without an end (job 7); 1 wait without times (job 1). Job
    //   7's torn done line is not read, and not warned about.
    private static final String WHOLE = """
            period        2026-03-02 09:00:00 to 2026-03-02 13:00:00 UTC (4h00m)
            users         everyone
            jobs          7: 3 ok, 1 failed, 1 cancelled, 1 infeasible, 1 running
            gpu-hours     4.00
            wait          p50 10m00s, p95 55m00s, max 55m00s (4 jobs started)
            utilisation   gpu0 50.0%, gpu1 41.7%, all 45.8%
            declarations  3 judged at ±10%: 1 within (33.3%), 1 under-declared (33.3%), 1 over-declared (33.3%); median peak/declared 0.95

            user   jobs  ok  failed  cancelled  active  gpu-hours  wait p50  wait p95  wait max   util  within  under  over  peak/decl
            ada       1   1       0          0       0       1.00         -         -         -  12.5%       1      0     0       0.95
            alice     3   1       1          0       1       1.67    10m00s    10m00s    10m00s  20.8%       0      0     1       0.88
            bob       3   1       1          1       0       1.33    10m00s    55m00s    55m00s  16.7%       0      1     0       1.19

            jobs-file lines (1) are counted as ada, the journal file's owner: the user the scheduler ran as
            1 run has no end in the journal (still running, or its scheduler stopped without a word): counted until now
            1 wait lacks times (journal lines written before gpusched recorded them, by the original tool, or compacted): left out of gpu-hours, waits, utilisation and the plot
            """;

    @Test
    void theWholeJournal_asText() {
        Run r = stats("--log-dir", logs.toString());
        assertEquals(0, r.code, r.err);
        assertEquals(WHOLE, r.out);
        assertEquals("", r.err, "a torn last line is a write in progress, not damage: no warning");
    }

    @Test
    void theWholeJournal_asJson() {
        Run r = stats("--log-dir", logs.toString(), "--json");
        assertEquals(0, r.code, r.err);
        String zeros = "\"failed_oom\":0,\"timeout\":0,";
        assertEquals("{\"journal\":\"" + logs.resolve("journal.jsonl") + "\",\"from\":\"2026-03-02T09:00:00Z\","
                + "\"to\":\"2026-03-02T13:00:00Z\",\"from_ms\":1772442000000,\"to_ms\":1772456400000,\"period_s\":14400.0,"
                + "\"user\":null,\"tolerance\":0.1,\"file_jobs_owner\":\"ada\",\"gpus\":[0,1],"
                + "\"total\":{\"jobs\":7,\"by_status\":{\"ok\":3,\"failed\":1," + zeros + "\"cancelled\":1,\"infeasible\":1,"
                + "\"dependency_failed\":0,\"running\":1,\"pending\":0},\"gpu_hours\":4.0,"
                + "\"wait_s\":{\"count\":4,\"p50\":600.0,\"p95\":3300.0,\"max\":3300.0},"
                + "\"utilisation\":{\"all\":0.4583333333333333,\"gpus\":{\"0\":0.5,\"1\":0.4166666666666667}},"
                + "\"declarations\":{\"judged\":3,\"within\":1,\"under_declared\":1,\"over_declared\":1,"
                + "\"median_peak_over_declared\":0.95}},"
                + "\"users\":["
                + "{\"user\":\"ada\",\"jobs\":1,\"by_status\":{\"ok\":1,\"failed\":0," + zeros + "\"cancelled\":0,"
                + "\"infeasible\":0,\"dependency_failed\":0,\"running\":0,\"pending\":0},\"gpu_hours\":1.0,"
                + "\"wait_s\":{\"count\":0,\"p50\":null,\"p95\":null,\"max\":null},"
                + "\"utilisation\":{\"all\":0.125,\"gpus\":{\"0\":0.25,\"1\":0.0}},"
                + "\"declarations\":{\"judged\":1,\"within\":1,\"under_declared\":0,\"over_declared\":0,"
                + "\"median_peak_over_declared\":0.95}},"
                + "{\"user\":\"alice\",\"jobs\":3,\"by_status\":{\"ok\":1,\"failed\":0," + zeros + "\"cancelled\":0,"
                + "\"infeasible\":1,\"dependency_failed\":0,\"running\":1,\"pending\":0},\"gpu_hours\":1.6666666666666667,"
                + "\"wait_s\":{\"count\":2,\"p50\":600.0,\"p95\":600.0,\"max\":600.0},"
                + "\"utilisation\":{\"all\":0.20833333333333334,\"gpus\":{\"0\":0.125,\"1\":0.2916666666666667}},"
                + "\"declarations\":{\"judged\":1,\"within\":0,\"under_declared\":0,\"over_declared\":1,"
                + "\"median_peak_over_declared\":0.88}},"
                + "{\"user\":\"bob\",\"jobs\":3,\"by_status\":{\"ok\":1,\"failed\":1," + zeros + "\"cancelled\":1,"
                + "\"infeasible\":0,\"dependency_failed\":0,\"running\":0,\"pending\":0},\"gpu_hours\":1.3333333333333333,"
                + "\"wait_s\":{\"count\":2,\"p50\":600.0,\"p95\":3300.0,\"max\":3300.0},"
                + "\"utilisation\":{\"all\":0.16666666666666666,\"gpus\":{\"0\":0.125,\"1\":0.20833333333333334}},"
                + "\"declarations\":{\"judged\":1,\"within\":0,\"under_declared\":1,\"over_declared\":0,"
                + "\"median_peak_over_declared\":1.1875}}],"
                + "\"notes\":{\"file_jobs\":1,\"open_runs\":1,\"untimed_runs\":0,\"untimed_waits\":1,\"untimed_ends\":0},"
                + "\"plot\":null,\"warnings\":[]}\n", r.out);
    }

    // --since 1h: the period is t180 to t240. Counted: job 6 (ended t200) and job 7 (running); the rest ended
    //   before t180. GPU-time: job 6 t180-t200 = 20, job 7 t210-t240 = 30: 50 min = 0.83 GPU-hours (bob 0.33,
    //   alice 0.50). Waits of jobs first started in the period: job 6 10m, job 7 10m. gpu0 held t210-t240 = 30 of
    //   60 = 50.0%, gpu1 t180-t200 = 20 of 60 = 33.3%, all 50/120 = 41.7%; alice gpu0 30 = 25.0% of both, bob gpu1
    //   20 = 16.7%. Job 6 is the one judged: under-declared, 1.19. Job 1's untimed seen line is before the period:
    //   no note.
    private static final String LAST_HOUR = """
            period        2026-03-02 12:00:00 to 2026-03-02 13:00:00 UTC (1h00m)
            users         everyone
            jobs          2: 1 ok, 1 running
            gpu-hours     0.83
            wait          p50 10m00s, p95 10m00s, max 10m00s (2 jobs started)
            utilisation   gpu0 50.0%, gpu1 33.3%, all 41.7%
            declarations  1 judged at ±10%: 0 within (0.0%), 1 under-declared (100.0%), 0 over-declared (0.0%); median peak/declared 1.19

            user   jobs  ok  failed  cancelled  active  gpu-hours  wait p50  wait p95  wait max   util  within  under  over  peak/decl
            alice     1   0       0          0       1       0.50    10m00s    10m00s    10m00s  25.0%       0      0     0          -
            bob       1   1       0          0       0       0.33    10m00s    10m00s    10m00s  16.7%       0      1     0       1.19

            1 run has no end in the journal (still running, or its scheduler stopped without a word): counted until now
            """;

    @Test
    void theLastHour_withSince() {
        Run r = stats("--log-dir", logs.toString(), "--since", "1h");
        assertEquals(0, r.code, r.err);
        assertEquals(LAST_HOUR, r.out);
    }

    // --user bob over the whole journal: bob's row above, as the summary: 3 jobs (1 ok, 1 failed, 1 cancelled),
    //   1.33 GPU-hours, waits 10m/55m/55m (2 started), gpu0 12.5% (30/240), gpu1 20.8% (50/240), all 16.7%, one
    //   judged: under-declared, 1.19. No note: bob has no file line, no open run, no untimed wait.
    private static final String BOB = """
            period        2026-03-02 09:00:00 to 2026-03-02 13:00:00 UTC (4h00m)
            users         only bob
            jobs          3: 1 ok, 1 failed, 1 cancelled
            gpu-hours     1.33
            wait          p50 10m00s, p95 55m00s, max 55m00s (2 jobs started)
            utilisation   gpu0 12.5%, gpu1 20.8%, all 16.7%
            declarations  1 judged at ±10%: 0 within (0.0%), 1 under-declared (100.0%), 0 over-declared (0.0%); median peak/declared 1.19

            user  jobs  ok  failed  cancelled  active  gpu-hours  wait p50  wait p95  wait max   util  within  under  over  peak/decl
            bob      3   1       1          1       0       1.33    10m00s    55m00s    55m00s  16.7%       0      1     0       1.19
            """;

    @Test
    void oneUser() {
        Run r = stats("--log-dir", logs.toString(), "--user", "bob");
        assertEquals(0, r.code, r.err);
        assertEquals(BOB, r.out);
    }

    record Run(int code, String out, String err) {
    }

    private static Run stats(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new StatsCommand(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
                StandardCharsets.UTF_8), InstantSource.fixed(Instant.ofEpochMilli(T0 + 240 * 60_000)), ZoneId.of("UTC"),
                journal -> "ada").run(args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}

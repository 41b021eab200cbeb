package io.gpusched.cli;

import static io.gpusched.cli.CliRun.job;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * {@code gpusched stats} on the journal of real jobs run by the real CLI on two simulated GPUs: its figures
 * agree with the journal's own lines, its chart has a lane per GPU and a bar per run; and it reads the
 * journal of a scheduler that is running, beside it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StatsEndToEndTest {
    @TempDir
    Path dir;

    @Test
    void statsOfARealRunAgreeWithItsJournal_andItsChartHasALanePerGpuAndABarPerRun() throws Exception {
        Path marker = dir.resolve("oom.marker");
        // Two 15G jobs cannot share a 24000 MiB GPU: both GPUs are used. The third hits an OOM once and is
        // retried (two runs); the fourth fails.
        CliRun run = new CliRun(dir, job("vram=15G", 14000, 0.2, 0.8) + job("vram=15G", 12000, 0.2, 0.8)
                + job("vram=10G retries=1", 9000, 0.1, 0.4, "--oom-once", marker.toString())
                + job("vram=4G", 1000, 0.1, 0.3, "--exit-code", "3"));
        assertEquals(3, run.runToEnd("--sim", "2"));
        Path svg = dir.resolve("stats.svg");
        Result json = stats("--log-dir", run.logs.toString(), "--json", "--plot", svg.toString());
        assertEquals(0, json.code, json.err);
        assertEquals("", json.err);
        Map<String, String> f = flatten(json.out);
        String owner = Files.getOwner(run.logs.resolve("journal.jsonl")).getName();
        assertEquals("4", f.get("total.jobs"));
        assertEquals("3", f.get("total.by_status.ok"));
        assertEquals("1", f.get("total.by_status.failed"));
        assertEquals("4", f.get("total.wait_s.count"));
        assertEquals(owner, f.get("file_jobs_owner"));
        assertEquals(owner, f.get("users.0.user"));
        assertEquals("4", f.get("notes.file_jobs"));
        assertEquals("0", f.get("notes.untimed_runs"));
        assertEquals("0", f.get("notes.open_runs"));
        assertEquals("3", f.get("total.declarations.judged"), json.out);
        // GPU-hours as the journal's own lines say: each started line to the line that ended its run.
        JournalLines.Parsed journal = JournalLines.read(run.logs.resolve("journal.jsonl"));
        assertEquals(List.of(), journal.errors());
        double gpuMillis = 0;
        Map<String, Long> startedAt = new HashMap<>();
        List<String> runs = new ArrayList<>();
        for (JournalLines.Line l : journal.lines()) {
            long at = Long.parseLong(l.field("at_ms").orElseThrow(() -> new AssertionError("no at_ms: " + l)));
            if (l.event().equals("started")) {
                startedAt.put(l.key(), at);
                runs.add(l.key());
            } else if (startedAt.containsKey(l.key()) && List.of("oom", "done", "interrupted", "requeued").contains(l.event())) {
                gpuMillis += at - startedAt.remove(l.key());
            }
        }
        assertEquals(5, runs.size(), "four jobs, one run again after its OOM");
        assertEquals(gpuMillis / 3_600_000, Double.parseDouble(f.get("total.gpu_hours")), 1e-12);
        assertTrue(gpuMillis > 0);

        Document chart = StatsCommandTest.parse(Files.readAllBytes(svg));
        List<Element> lanes = StatsCommandTest.elements(chart.getElementsByTagName("g")).stream()
                .filter(g -> g.getAttribute("class").equals("lane")).toList();
        assertEquals(List.of("0", "1"), lanes.stream().map(g -> g.getAttribute("data-gpu")).toList());
        List<String> barJobs = lanes.stream().flatMap(l -> StatsCommandTest.bars(l).stream())
                .map(b -> journal.keysByNo().get(Integer.parseInt(b.getAttribute("data-job")))).sorted().toList();
        assertEquals(runs.stream().sorted().toList(), barJobs, "one bar per run, each on its job's GPU");
        assertTrue(lanes.stream().allMatch(l -> !StatsCommandTest.bars(l).isEmpty()), "both GPUs ran jobs");

        Result text = stats("--log-dir", run.logs.toString());
        assertEquals(0, text.code, text.err);
        assertTrue(text.out.contains("\njobs          4: 3 ok, 1 failed\n"), text.out);
        assertTrue(text.out.contains("\nutilisation   gpu0 "), text.out);
        assertTrue(text.out.contains("jobs-file lines (4) are counted as " + owner), text.out);
    }

    @Test
    void statsReadTheJournalOfARunningScheduler_beside_itsLock() throws Exception {
        try (CliRun run = new CliRun(dir, job("vram=2G", 1000, 0.1, 30))) {
            run.start("--sim", "1", "--watch");
            run.await("job 1 started");
            Result r = stats("--log-dir", run.logs.toString(), "--json");
            assertEquals(0, r.code, r.err);
            Map<String, String> f = flatten(r.out);
            assertEquals("1", f.get("total.by_status.running"));
            assertEquals("1", f.get("notes.open_runs"));
            assertEquals("1", f.get("total.wait_s.count"));
        }
    }

    record Result(int code, String out, String err) {
    }

    private static Result stats(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> argv = new ArrayList<>(List.of("stats"));
        argv.addAll(List.of(args));
        int code = new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                s -> { }).run(argv.toArray(String[]::new));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Every scalar of a JSON document by its dotted path ({@code total.by_status.ok}, {@code users.0.user}). */
    static Map<String, String> flatten(String json) throws Exception {
        Map<String, String> out = new HashMap<>();
        try (JsonParser p = new JsonFactory().createParser(json)) {
            p.nextToken();
            flatten(p, "", out);
        }
        return out;
    }

    private static void flatten(JsonParser p, String path, Map<String, String> out) throws Exception {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                flatten(p, path.isEmpty() ? name : path + "." + name, out);
            }
        } else if (t == JsonToken.START_ARRAY) {
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                flatten(p, path + "." + i++, out);
            }
        } else {
            out.put(path, t == JsonToken.VALUE_NULL ? null : p.getText());
        }
    }
}

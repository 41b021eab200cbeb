package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI for scripts: {@code --events} over a whole demo run, {@code gpusched status}, colour rules, help. */
class ScriptsTest {
    private static final JsonFactory JSON = new JsonFactory();

    @TempDir
    static Path tmp;
    static Path logDir;
    static Path events;
    static int demoExit;
    static String demoLog;

    @BeforeAll
    static void runDemo() {
        logDir = tmp.resolve("logs");
        events = tmp.resolve("out/events.jsonl");
        Run r = cli("../examples/demo.txt", "--sim", "2", "--fresh", "--log-dir", logDir.toString(),
                "--events", events.toString());
        demoExit = r.code;
        demoLog = r.out;
    }

    @Test
    void eventsStreamParsesLineByLineOverTheWholeDemo() throws IOException {
        assertEquals(0, demoExit, demoLog);
        List<String> lines = Files.readAllLines(events, StandardCharsets.UTF_8);
        List<Map<String, Object>> parsed = new ArrayList<>();
        for (String line : lines) {
            parsed.add(flat(line));
        }
        assertEquals("run_started", parsed.get(0).get("event"));
        assertEquals("run_finished", parsed.get(parsed.size() - 1).get("event"));
        for (Map<String, Object> e : parsed) {
            assertTrue(e.get("at") instanceof String s && s.endsWith("Z"), e.toString());
        }
        long finished = parsed.stream().filter(e -> "job_finished".equals(e.get("event"))).count();
        assertEquals(6, finished);
        long oom = parsed.stream().filter(e -> "requeued_after_oom".equals(e.get("event"))).count();
        assertEquals(1, oom);
        Map<String, Object> started = parsed.stream().filter(e -> "job_started".equals(e.get("event"))).findFirst().orElseThrow();
        for (String field : List.of("no", "key", "command", "gpus", "declared_mib", "dispatched", "total", "pid", "log")) {
            assertTrue(started.containsKey(field), field + " in " + started);
        }
        assertEquals(5.0, ((Number) parsed.get(0).get("poll_s")).doubleValue());
        assertTrue(lines.get(lines.size() - 1).contains("\"exit_code\":0"), lines.get(lines.size() - 1));
        // the human log is unchanged and still on stdout
        assertTrue(demoLog.contains("all 6 jobs done"), demoLog);
        assertFalse(demoLog.contains("{\"event\""));
    }

    @Test
    void eventsToStdoutMovesTheHumanLogToStderr() throws IOException {
        Path jobs = tmp.resolve("one.txt");
        Files.writeString(jobs, "true\n");
        Run r = cli(jobs.toString(), "--sim", "1", "--poll", "0.2", "--log-dir", tmp.resolve("one").toString(), "--events", "-");
        assertEquals(0, r.code, r.err);
        for (String line : r.out.split("\n")) {
            flat(line);
        }
        assertTrue(r.out.contains("\"event\":\"job_finished\""), r.out);
        assertTrue(r.err.contains("all 1 jobs done") || r.err.contains("job 1 finished"), r.err);
    }

    @Test
    void statusPrintsTheBoardOfAFinishedRun() {
        Run r = cli("status", "--log-dir", logDir.toString());
        assertEquals(0, r.code, r.err);
        assertTrue(r.out.contains("0 running, 0 pending, 6 done"), r.out);
        assertTrue(r.out.contains("scheduler finished"), r.out);
    }

    @Test
    void statusJsonIsOneObject() throws IOException {
        Run r = cli("status", "--log-dir=" + logDir, "--json");
        assertEquals(0, r.code, r.err);
        Map<String, Object> top = flat(r.out.strip());
        assertEquals("finished", top.get("state"));
        assertEquals(Boolean.TRUE, top.get("finished"));
        assertTrue(r.out.contains("\"event\":\"status_updated\""), r.out);
        assertTrue(r.out.contains("\"done\":[{"), r.out);
    }

    @Test
    void statusOfADeadSchedulerSaysSoAndAMissingBoardIsExitOne() throws IOException {
        Path dead = tmp.resolve("dead");
        Files.createDirectories(dead);
        Files.writeString(dead.resolve("status.txt"), "gpusched status @ 10:00:00 — 1 running, 0 pending, 0 done\n");
        Files.writeString(dead.resolve("status.json"), "{\"scheduler_pid\":" + Long.MAX_VALUE + ",\"finished\":false,\"status\":null}\n");
        Run r = cli("status", "--log-dir", dead.toString());
        assertEquals(0, r.code);
        assertTrue(r.out.contains("not running"), r.out);
        assertEquals(1, cli("status", "--log-dir", tmp.resolve("nothing").toString()).code);
        assertEquals(Cli.USAGE, cli("status", "--bogus").code);
        assertTrue(cli("status", "--help").out.contains("--json"));
    }

    @Test
    void colourOnlyOnATerminalAndNeverWithNoColor() {
        assertTrue(Colour.enabled(System.out, null, true));
        assertFalse(Colour.enabled(System.out, "1", true));
        assertFalse(Colour.enabled(System.out, null, false));
        assertFalse(Colour.enabled(new PrintStream(new ByteArrayOutputStream()), null, true));
        assertTrue(Colour.paint("WARN  x").startsWith("\u001b[33m"));
        assertEquals("job 1 started", Colour.paint("job 1 started"));
    }

    @Test
    void helpListsEveryOptionWithItsDefaultAndTheExitCodes() {
        String help = cli("--help").out;
        for (String option : List.of("--gpus", "--idle-threshold", "--margin", "--tolerance", "--spike-buffer", "--poll",
                "--sample", "--kill-grace", "--exclusive", "--watch", "--oom-retries", "--fresh", "--log-dir",
                "--visible-devices", "--verbose", "--sim", "--backend", "--nvml-library", "--events", "--version", "--help")) {
            assertTrue(help.contains(option), option);
        }
        assertTrue(help.contains("gpusched status"), help);
        assertTrue(help.contains("130"), help);
        assertTrue(help.contains("NO_COLOR"), help);
    }

    /** Top-level fields of one JSON object; nested values are skipped (kept as "…"). Fails on bad JSON. */
    private static Map<String, Object> flat(String line) throws IOException {
        Map<String, Object> out = new LinkedHashMap<>();
        try (JsonParser p = JSON.createParser(line)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken(), line);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken t = p.nextToken();
                Object v = switch (t) {
                    case VALUE_STRING -> p.getText();
                    case VALUE_NUMBER_INT -> p.getLongValue();
                    case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                    case VALUE_TRUE -> Boolean.TRUE;
                    case VALUE_FALSE -> Boolean.FALSE;
                    case VALUE_NULL -> null;
                    default -> {
                        p.skipChildren();
                        yield "…";
                    }
                };
                out.put(name, v);
            }
            assertEquals(null, p.nextToken(), "one object per line: " + line);
        }
        return out;
    }

    private record Run(int code, String out, String err) {
    }

    private static Run cli(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), s -> {
        }).run(argv);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}

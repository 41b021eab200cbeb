package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs file edited by real shells while the CLI watches it, observed through the status board
 * file {@code <log-dir>/status.json}, as a script would.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JobsFileEditsEndToEndTest {
    private static final JsonFactory JSON = new JsonFactory();

    @TempDir
    Path dir;

    /** Schedulers started with --watch run until stopped: stopped after each test. */
    @org.junit.jupiter.api.extension.RegisterExtension
    final CliRun.Stopper watching = new CliRun.Stopper();

    @Test
    void linesAppendedFromSeveralShellsAtOnceAreEachQueuedExactlyOnce() throws Exception {
        CliRun run = new CliRun(dir, "[vram=100] echo first\n").start("--sim", "2", "--watch");
        watching.add(run);
        run.await("queue drained — watching jobs file");
        int shells = 4;
        int linesEach = 25;
        List<Process> appenders = new ArrayList<>();
        for (int s = 0; s < shells; s++) {
            // Each echo opens the file with O_APPEND and writes one whole line, as `echo ... >> jobs.txt` does.
            String script = "i=0; while [ $i -lt " + linesEach + " ]; do i=$((i+1)); echo \"[vram=100] echo s" + s
                    + "-$i\" >> '" + run.jobs + "'; done";
            appenders.add(new ProcessBuilder("sh", "-c", script).redirectErrorStream(true).start());
        }
        for (Process p : appenders) {
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "appender hung");
            assertEquals(0, p.exitValue());
        }
        Set<String> expected = new TreeSet<>(List.of("echo first"));
        for (int s = 0; s < shells; s++) {
            for (int i = 1; i <= linesEach; i++) {
                expected.add("echo s" + s + "-" + i);
            }
        }
        assertEquals(expected.size(), Files.readAllLines(run.jobs).size(), "the shells wrote every line");
        Map<String, Object> board = awaitBoard(run, b -> done(b).size() == expected.size() && pending(b).isEmpty(),
                "every appended job done");
        assertEquals(expected, new TreeSet<>(done(board)), "each line ran");
        Map<String, Integer> starts = new HashMap<>();
        for (String line : run.lines()) {
            int at = line.indexOf(" dispatched");
            if (line.startsWith("job ") && line.contains(" started on gpu ") && at > 0) {
                starts.merge(line.substring(line.lastIndexOf(" — ") + 3), 1, Integer::sum);
            }
        }
        assertEquals(expected, new TreeSet<>(starts.keySet()), "no job from anything but a whole appended line");
        assertTrue(starts.values().stream().allMatch(n -> n == 1), "each started once: " + starts);
    }

    @Test
    void deletedFileKeepsTheQueueWarnsOnceAndTheRecreatedFileIsTaken() throws Exception {
        Path go = dir.resolve("go");
        String runner = "until [ -e " + go + " ]; do sleep 0.05; done";
        // 8 GiB beside 20 GiB does not fit a 24000 MiB GPU: P1 and P2 wait while the runner runs.
        CliRun run = new CliRun(dir, "[vram=8G] " + runner + "\n[vram=20G] echo P1\n[vram=20G] echo P2\n")
                .start("--sim", "1", "--watch");
        watching.add(run);
        awaitBoard(run, b -> running(b).equals(List.of(runner)) && pending(b).equals(List.of("echo P1", "echo P2")),
                "the first queue");
        Files.delete(run.jobs);
        run.await("WARN  jobs file " + run.jobs + " is missing");
        Thread.sleep(500); // five polls without the file
        Map<String, Object> board = readBoard(run);
        assertEquals(List.of("echo P1", "echo P2"), pending(board), "deletion alone dequeues nothing");
        assertEquals(List.of(runner), running(board), "the running job is untouched");
        Files.writeString(run.jobs, "[vram=20G] echo P3\n[vram=20G] echo P1\n");
        awaitBoard(run, b -> pending(b).equals(List.of("echo P3", "echo P1")), "the recreated queue");
        Files.createFile(go);
        awaitBoard(run, b -> done(b).size() == 3, "the queue run");
        assertEquals(Set.of(runner, "echo P3", "echo P1"), Set.copyOf(done(readBoard(run))), "P2 left with its line");
        int p3 = run.indexOf("— echo P3");
        assertTrue(p3 > 0 && p3 < run.indexOf("— echo P1"), "the recreated file's order:\n" + run.output());
        assertEquals(1, run.lines().stream().filter(l -> l.contains("is missing")).count(), "warned once:\n" + run.output());
    }

    // ------------------------------------------------------------------ status.json

    private static Map<String, Object> awaitBoard(CliRun run, Predicate<Map<String, Object>> p, String what)
            throws Exception {
        long deadline = System.nanoTime() + CliRun.WAIT.toNanos();
        Map<String, Object> board = Map.of();
        while (System.nanoTime() < deadline) {
            board = readBoard(run);
            if (!board.isEmpty() && p.test(board)) {
                return board;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("never " + what + "; last board " + board + "\n" + run.output());
    }

    /** The {@code board} object of status.json, or empty before the first round. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> readBoard(CliRun run) throws IOException {
        String text;
        try {
            text = Files.readString(run.logs.resolve("status.json"));
        } catch (NoSuchFileException notYet) {
            return Map.of();
        }
        try (JsonParser p = JSON.createParser(text)) {
            p.nextToken();
            Map<String, Object> root = (Map<String, Object>) read(p);
            Object status = root.get("status");
            return status == null ? Map.of() : (Map<String, Object>) ((Map<String, Object>) status).get("board");
        }
    }

    private static Object read(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.START_OBJECT) {
            Map<String, Object> m = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                m.put(name, read(p));
            }
            return m;
        }
        if (t == JsonToken.START_ARRAY) {
            List<Object> l = new ArrayList<>();
            while (p.nextToken() != JsonToken.END_ARRAY) {
                l.add(read(p));
            }
            return l;
        }
        return t == JsonToken.VALUE_NULL ? null : p.getText();
    }

    @SuppressWarnings("unchecked")
    private static List<String> commands(Map<String, Object> board, String section) {
        List<Object> rows = (List<Object>) board.getOrDefault(section, List.of());
        return rows.stream().map(r -> (String) ((Map<String, Object>) r).get("command")).toList();
    }

    private static List<String> pending(Map<String, Object> board) {
        return commands(board, "pending");
    }

    private static List<String> running(Map<String, Object> board) {
        return commands(board, "running");
    }

    private static List<String> done(Map<String, Object> board) {
        return commands(board, "done");
    }
}

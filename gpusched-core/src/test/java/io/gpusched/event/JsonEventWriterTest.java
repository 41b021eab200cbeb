package io.gpusched.event;

import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Notes;
import io.gpusched.model.JobResult;
import io.gpusched.model.JobStatus;
import io.gpusched.model.RunSummary;
import io.gpusched.model.Verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The JSON Lines event format is documented in docs/scripts.md; these pin its names. */
class JsonEventWriterTest {
    private static final Instant T = Instant.parse("2026-01-02T03:04:05Z");

    @Test
    void everyEventHasTheDocumentedName() {
        List<String> names = Arrays.stream(SchedulerEvent.class.getPermittedSubclasses())
                .map(c -> JsonEventWriter.snake(c.getSimpleName())).sorted().toList();
        assertEquals(List.of("already_completed", "already_ended", "backend_failed", "backend_recovered", "dependency_failed",
                "drained", "draining", "ended_job_edited", "exceeded_declaration", "gpu_pause_changed", "gpus_discovered", "job_finished",
                "job_infeasible", "job_requeued", "job_started", "job_stopping", "jobs_file_rejected", "journal_compacted",
                "kill_escalated", "orphan_adopted", "orphan_found", "orphan_requeued", "requeued_after_oom", "reserved", "run_finished",
                "run_started", "status_updated", "stopping", "vram_grew", "warning"), names);
    }

    @Test
    void fieldsAreSnakeCaseWithUnitsAndNulls() {
        assertEquals("{\"event\":\"job_started\",\"at\":\"2026-01-02T03:04:05Z\",\"no\":1,\"key\":\"k#0\",\"command\":\"x\","
                        + "\"gpus\":[0,1],\"declared_mib\":null,\"dispatched\":1,\"total\":2,\"pid\":42,\"log\":\"l.log\","
                        + "\"attempt\":1,\"waited_s\":2.5,\"share\":null,\"rule\":null,\"learned\":null}",
                JsonEventWriter.toJson(new SchedulerEvent.JobStarted(T, 1, "k#0", "x", List.of(0, 1), OptionalLong.empty(), 1, 2,
                        42, Path.of("l.log"), 1, Duration.ofMillis(2500))));
        assertEquals("{\"event\":\"job_stopping\",\"at\":\"2026-01-02T03:04:05Z\",\"no\":3,\"why\":\"timeout\","
                        + "\"elapsed_s\":1.5,\"limit_s\":1.0,\"max_job_time\":false,\"resumed\":false}",
                JsonEventWriter.toJson(new SchedulerEvent.JobStopping(T, 3, SchedulerEvent.StopReason.TIMEOUT,
                        Duration.ofMillis(1500), Optional.of(Duration.ofSeconds(1)))));
        JobResult r = new JobResult("k#0", 1, "x", List.of(0), JobStatus.FAILED_OOM, 1, OptionalLong.of(100),
                Map.of(0, 90L), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ofSeconds(2));
        assertEquals("{\"event\":\"run_finished\",\"at\":\"2026-01-02T03:04:05Z\",\"summary\":{\"results\":[{\"key\":\"k#0\","
                        + "\"no\":1,\"command\":\"x\",\"gpus\":[0],\"status\":\"failed_oom\",\"exit_code\":1,\"declared_mib\":100,"
                        + "\"peak_mib\":{\"0\":90},\"verdict\":\"not_judged\",\"avg_util_percent\":null,\"duration_s\":2.0,"
                        + "\"measurement\":\"measured\",\"cause\":null,\"owner\":null,\"learned\":null,\"declaration\":null}],\"earlier\":[],"
                        + "\"interrupted\":false,\"exit_code\":1}}",
                JsonEventWriter.toJson(new SchedulerEvent.RunFinished(T, new RunSummary(List.of(r), false))));
    }

    @Test
    void aListViewCutsALongCommandAndSaysItsWholeLength_andLeavesShortRowsAsTheyWere() {
        StatusBoard.Pending shortRow = StatusBoard.Pending.builder(1, "python train.py").declaredMib(OptionalLong.of(1024))
                .reason("its turn").owner(Optional.of("ada")).build();
        assertEquals(JsonEventWriter.valueToJson(shortRow), JsonEventWriter.listJson(shortRow, 200, 1000));
        String command = "x".repeat(60_000);
        String json = JsonEventWriter.listJson(StatusBoard.Pending.builder(2, command).reason("r".repeat(5000))
                .owner(Optional.of("ada")).build(), 200, 1000);
        assertTrue(json.contains("\"command\":\"" + "x".repeat(199) + "…\",\"command_chars\":60000,"), json);
        assertTrue(json.contains("\"reason\":\"" + "r".repeat(999) + "…\",\"reason_chars\":5000,"), json);
        assertTrue(json.length() < 1400, "one row stays small: " + json.length());
    }

    @Test
    void aListViewNeverSplitsACharacterOutsideTheBasicPlane() {
        String command = "😀".repeat(300); // two UTF-16 units each, as Java and JavaScript count them
        String json = JsonEventWriter.listJson(new StatusBoard.Interrupted(1, command, List.of(), Duration.ZERO), 200, 1000);
        assertTrue(json.contains("\"command\":\"" + "😀".repeat(99) + "…\",\"command_chars\":600"), json);
    }

    @Test
    void declarationSaysTheVerdictInTheLogsWords() {
        for (Verdict v : Verdict.values()) {
            JobResult r = new JobResult("k#0", 1, "x", List.of(0), JobStatus.OK, 0, OptionalLong.of(100),
                    Map.of(0, 90L), v, OptionalDouble.empty(), Duration.ofSeconds(2));
            String json = JsonEventWriter.valueToJson(r);
            String expected = switch (v) {
                case OVER -> "\"verdict\":\"over\",\"avg_util_percent\":null,\"duration_s\":2.0,\"measurement\":\"measured\","
                        + "\"cause\":null,\"owner\":null,\"learned\":null,\"declaration\":\"under_declared\"}";
                case UNDER -> "\"verdict\":\"under\",\"avg_util_percent\":null,\"duration_s\":2.0,\"measurement\":\"measured\","
                        + "\"cause\":null,\"owner\":null,\"learned\":null,\"declaration\":\"over_declared\"}";
                case WITHIN -> "\"declaration\":\"within\"}";
                case UNATTRIBUTED, NOT_JUDGED -> "\"declaration\":null}";
            };
            assertTrue(json.endsWith(expected), v + ": " + json);
        }
    }

    @Test
    void timedOutJobAndInterruptedRunHaveDifferentExitCodes() {
        JobResult timedOut = new JobResult("k#0", 1, "x", List.of(0), JobStatus.TIMEOUT, 143, OptionalLong.empty(),
                Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ofSeconds(2));
        JobResult failed = new JobResult("k#1", 2, "y", List.of(0), JobStatus.FAILED, 3, OptionalLong.empty(),
                Map.of(), Verdict.NOT_JUDGED, OptionalDouble.empty(), Duration.ofSeconds(2));
        assertEquals(124, new RunSummary(List.of(timedOut, failed), false).exitCode());
        assertEquals(130, new RunSummary(List.of(timedOut), true).exitCode());
        assertEquals(3, new RunSummary(List.of(), List.of(failed), false).exitCode(), "earlier outcomes count");
    }

    @Test
    void writesOneFlushedLinePerEvent() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JsonEventWriter w = new JsonEventWriter(out, false);
        w.accept(new SchedulerEvent.Warning(T, "a \"quoted\"\nmessage"));
        w.accept(new SchedulerEvent.Drained(T, false));
        assertEquals("{\"event\":\"warning\",\"at\":\"2026-01-02T03:04:05Z\",\"message\":\"a \\\"quoted\\\"\\nmessage\"}\n"
                        + "{\"event\":\"drained\",\"at\":\"2026-01-02T03:04:05Z\",\"watching\":false}\n",
                out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aCommentIsWrittenWhenAJobHasOne_andLeftOutRatherThanNullWhenItHasNone() {
        StatusBoard.Pending with = StatusBoard.Pending.builder(5, "true")
                .notes(Notes.of(JobSpec.parse("[comment='a note'] true"))).build();
        StatusBoard.Pending without = StatusBoard.Pending.builder(5, "true").build();
        assertTrue(JsonEventWriter.valueToJson(with).endsWith("\"rule\":null,\"comment\":\"a note\"}"),
                JsonEventWriter.valueToJson(with));
        assertTrue(JsonEventWriter.valueToJson(without).endsWith("\"rule\":null}"), JsonEventWriter.valueToJson(without));
    }

    @Test
    void aJobWithATerminalSaysTtyTrue_andOneWithoutSaysNothingOfIt() {
        StatusBoard.Pending tty = StatusBoard.Pending.builder(5, "true").tty(true).build();
        StatusBoard.Pending plain = StatusBoard.Pending.builder(5, "true").tty(false).build();
        assertTrue(JsonEventWriter.valueToJson(tty).endsWith("\"rule\":null,\"tty\":true}"), JsonEventWriter.valueToJson(tty));
        assertTrue(JsonEventWriter.valueToJson(plain).endsWith("\"rule\":null}"), JsonEventWriter.valueToJson(plain));
    }

    @Test
    void theComponentsLeftOutWhenEmptyAreExactlyThoseMarkedOmittedWhenEmpty_inEveryRecordOfTheModule() throws Exception {
        // JsonEventWriter lists them instead of reading the annotation at run time: the list must not drift.
        Path classes = Path.of(JsonEventWriter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<String, java.util.Set<String>> marked = new java.util.TreeMap<>();
        Map<String, java.util.Set<String>> listed = new java.util.TreeMap<>();
        int records = 0;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(classes)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class") && !p.endsWith("module-info.class")).toList()) {
                String name = classes.relativize(f).toString().replace(java.io.File.separatorChar, '.').replaceAll("\\.class$", "");
                Class<?> type = Class.forName(name, false, JsonEventWriter.class.getClassLoader());
                if (!type.isRecord()) {
                    continue;
                }
                records++;
                for (java.lang.reflect.RecordComponent c : type.getRecordComponents()) {
                    if (c.isAnnotationPresent(OmittedWhenEmpty.class)) {
                        marked.computeIfAbsent(type.getName(), k -> new java.util.TreeSet<>()).add(c.getName());
                    }
                    if (JsonEventWriter.omittedWhenEmpty(type, c.getName())) {
                        listed.computeIfAbsent(type.getName(), k -> new java.util.TreeSet<>()).add(c.getName());
                    }
                }
            }
        }
        assertTrue(records > 50, "walked " + records + " records under " + classes);
        assertTrue(marked.containsKey(StatusBoard.Pending.class.getName()), marked.toString());
        assertEquals(marked, listed);
    }
}

package io.gpusched.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.jobs.Notes;
import io.gpusched.model.CancelOutcome;
import io.gpusched.model.JobStatus;
import io.gpusched.model.LeaseEnd;
import io.gpusched.model.Measurement;
import io.gpusched.model.Verdict;
import io.gpusched.protocol.ProtocolCodec.Expect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * PROTOCOL.md's example lines, byte for byte: each complete line ({@code →} a request, {@code ←} what
 * the service writes) is the codec's encoding of the typed value listed here, and reads back to it. A
 * line of the document shortened with {@code ...} outside its strings is no JSON and is left out; every
 * other example line must be listed here, so a changed example or a changed codec fails this test.
 */
class ProtocolGoldenLinesTest {
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    private static final Path PROTOCOL_MD = Path.of("..", "PROTOCOL.md");

    /** A request line and its value. */
    private record Sent(String line, Request value) {
    }

    /** A line the service writes, its value, and what a client expecting it asked for. */
    private record Written(String line, Answer value, Expect expect) {
    }

    private static final List<Sent> REQUESTS = List.of(
            new Sent("{\"v\":1,\"op\":\"hello\"}", new Request.Hello()),
            new Sent("{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=20G] python train.py\",\"cwd\":\"/home/ada/exp\","
                    + "\"env\":{\"PATH\":\"/usr/bin:/bin\"}}", new Request.Submit("[vram=20G] python train.py", "/home/ada/exp",
                    Optional.of(Map.of("PATH", "/usr/bin:/bin")), Optional.empty(), Optional.empty(), OptionalInt.empty())),
            new Sent("{\"v\":1,\"op\":\"cancel\",\"no\":7}", new Request.Cancel(7)),
            new Sent("{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=8G] python eval.py\",\"cwd\":\"/home/ada/exp\","
                    + "\"output\":\"runs/eval.log\",\"request_id\":\"ada-laptop-1732400000-1\"}",
                    new Request.Submit("[vram=8G] python eval.py", "/home/ada/exp", Optional.empty(), Optional.of("runs/eval.log"),
                            Optional.of("ada-laptop-1732400000-1"), OptionalInt.empty())),
            new Sent("{\"v\":1,\"op\":\"cancel\",\"user\":\"ada\"}", new Request.CancelUser("ada")),
            new Sent("{\"v\":1,\"op\":\"submit\",\"line\":\"[vrma=8G] x\",\"cwd\":\"/\"}", new Request.Submit("[vrma=8G] x", "/",
                    Optional.empty(), Optional.empty(), Optional.empty(), OptionalInt.empty())),
            new Sent("{\"v\":1,\"op\":\"logs\",\"no\":7}", new Request.Logs(7)),
            new Sent("{\"v\":1,\"op\":\"submit\",\"line\":\"[vram=80G] python train.py\",\"cwd\":\"/home/ada/exp\"}",
                    new Request.Submit("[vram=80G] python train.py", "/home/ada/exp", Optional.empty(), Optional.empty(),
                            Optional.empty(), OptionalInt.empty())),
            new Sent("{\"v\":1,\"op\":\"preview\",\"line\":\"[vram=8G] python eval.py\",\"cwd\":\"/home/ada/exp\"}",
                    new Request.Preview("[vram=8G] python eval.py", "/home/ada/exp")),
            new Sent("{\"v\":1,\"op\":\"preview\",\"line\":\"[gpus=2] python train.py\",\"cwd\":\"/home/ada/exp\"}",
                    new Request.Preview("[gpus=2] python train.py", "/home/ada/exp")),
            new Sent("{\"v\":1,\"op\":\"pause\",\"gpu\":0}", new Request.Pause(0)),
            new Sent("{\"v\":1,\"op\":\"drain\"}", new Request.Drain()),
            new Sent("{\"v\":1,\"op\":\"dashboard\"}", new Request.Dashboard()),
            new Sent("{\"v\":1,\"op\":\"queue\",\"stream\":true}", new Request.Queue(true)),
            new Sent("{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"table\",\"format\":\"%i %u %t %.M %30c %r\","
                    + "\"width\":100,\"user\":\"ada\"}}", new Request.Queue(true, Optional.of(new Request.Text(true,
                    Optional.of("%i %u %t %.M %30c %r"), OptionalInt.of(100), false, Optional.of("ada"), false)))),
            new Sent("{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\",\"chunks\":true}}",
                    new Request.Queue(true, Optional.of(new Request.Text(false, Optional.empty(), OptionalInt.empty(), false,
                            Optional.empty(), false, true)))),
            new Sent("{\"v\":1,\"op\":\"job\",\"no\":7}", new Request.Job(7)),
            new Sent("{\"v\":1,\"op\":\"srun\",\"line\":\"[vram=20G] python train.py\",\"cwd\":\"/home/ada/exp\"}",
                    new Request.Srun("[vram=20G] python train.py", "/home/ada/exp")),
            new Sent("{\"v\":1,\"op\":\"exited\",\"status\":0}", new Request.Exited(0)),
            new Sent("{\"v\":1,\"op\":\"stats\",\"since_s\":604800,\"zone\":\"UTC\"}", new Request.Stats(OptionalInt.of(604_800),
                    Optional.empty(), java.util.OptionalDouble.empty(), false, Optional.of("UTC"))),
            new Sent("{\"v\":1,\"op\":\"stats\",\"user\":\"alice\"}", new Request.Stats(OptionalInt.empty(),
                    Optional.of("alice"), java.util.OptionalDouble.empty(), false, Optional.empty())));

    private static ListText t(String s) {
        return ListText.whole(s);
    }

    private static final QueueView.Board BOARD = new QueueView.Board(
            List.of(new Row.Running(6, t("python train.py"), List.of(1), 1843.2, Map.of(1, 17_650L), 17_650, Optional.empty(),
                    Optional.of(t("ada")), OptionalLong.of(20_480), 0, Optional.empty(), Notes.none(), Optional.empty(),
                    false)),
            List.of(new Row.Pending(7, t("python sweep.py --seed 1"), OptionalLong.of(8192), 0,
                    t("gpu0 is paused; needs 1 GPU with ≥ 8704 MiB headroom"), Optional.of(t("bob")), false, 1, Optional.empty(),
                    Notes.none(), Optional.empty(), Optional.empty(), false)),
            List.of(new Row.Ended(t("s5"), 5, t("python eval.py"), List.of(1), JobStatus.OK, 0, OptionalLong.of(4096),
                    Map.of(1, 3_900L), Verdict.WITHIN, OptionalDouble.of(71.5), 95.25, Measurement.MEASURED, Optional.empty(),
                    Optional.of(t("ada")), Optional.empty())),
            List.of(), List.of());

    private static final QueueView QUEUE = new QueueView(Instant.parse("2024-11-24T09:30:00.250Z"), BOARD, List.of(0), List.of(),
            List.of(new GpuRow(0, Optional.of(t("GPU-5e7a")), t("NVIDIA A100-SXM4-40GB"), Optional.of(t("00000000:07:00.0")), 40_960,
                            0, OptionalInt.of(0), true),
                    new GpuRow(1, Optional.of(t("GPU-9c1f")), t("NVIDIA A100-SXM4-40GB"), Optional.of(t("00000000:0F:00.0")), 40_960,
                            18_120, OptionalInt.of(97), true)),
            List.of(new QueueSnapshot.GpuMemory(0, 40_960, 0, 0, 40_960, List.of()),
                    new QueueSnapshot.GpuMemory(1, 40_960, 18_120, 470, 19_010,
                            List.of(new QueueSnapshot.JobMemory(6, OptionalLong.of(20_480), 17_650, 17_650, 20_480)))));

    private static final List<Written> ANSWERS = List.of(
            new Written("{\"v\":1,\"ok\":true,\"server\":\"gpusched\",\"user\":\"ada\"}", new Answer.Hello("gpusched", "ada"),
                    Expect.HELLO),
            new Written("{\"v\":1,\"ok\":true,\"no\":7}", new Answer.Submitted(7), Expect.SUBMITTED),
            new Written("{\"v\":1,\"ok\":true,\"outcome\":\"stopping\"}", new Answer.Cancelled(CancelOutcome.STOPPING),
                    Expect.CANCELLED),
            new Written("{\"v\":1,\"ok\":true,\"no\":8}", new Answer.Submitted(8), Expect.SUBMITTED),
            new Written("{\"v\":1,\"ok\":true,\"jobs\":[{\"no\":8,\"outcome\":\"cancelled\"}]}",
                    new Answer.CancelledAll(new TreeMap<>(Map.of(8, CancelOutcome.CANCELLED))), Expect.CANCELLED_ALL),
            new Written("{\"v\":1,\"ok\":false,\"error\":{\"code\":\"bad_job\",\"message\":\"<job>:1: unknown key in attribute"
                    + " block: 'vrma=8G' — did you mean 'vram'?; known keys: ...\"}}", new Answer.Failure("bad_job",
                    "<job>:1: unknown key in attribute block: 'vrma=8G' — did you mean 'vram'?; known keys: ..."), Expect.SUBMITTED),
            new Written("{\"v\":1,\"ok\":true,\"paths\":[\"/home/ada/exp/gpusched-7.log\"],\"state\":\"running\","
                    + "\"tty\":\"gpusched-5e7a91c0-7\"}", new Answer.Logs(List.of("/home/ada/exp/gpusched-7.log"), Optional.of(io.gpusched.model.JobStage.RUNNING),
                    Optional.of("gpusched-5e7a91c0-7")), Expect.LOGS),
            new Written("{\"v\":1,\"ok\":true}", new Answer.Acknowledged(), Expect.ACKNOWLEDGED),
            new Written("{\"v\":1,\"ok\":false,\"error\":{\"code\":\"infeasible\",\"message\":\"cannot submit 'python train.py':"
                    + " it could never run here: needs 1 GPU with ≥ 82432 MiB (vram 81920 + margin 512); the largest allowed GPU"
                    + " has 40960 MiB\"}}", new Answer.Failure("infeasible", "cannot submit 'python train.py': it could never run"
                    + " here: needs 1 GPU with ≥ 82432 MiB (vram 81920 + margin 512); the largest allowed GPU has 40960 MiB"),
                    Expect.SUBMITTED),
            new Written("{\"v\":1,\"ok\":true,\"gpus\":[0]}", new Answer.Preview(List.of(0), Optional.empty()), Expect.PREVIEW),
            new Written("{\"v\":1,\"ok\":true,\"waits\":\"needs 2 fully idle GPUs; gpu0 is paused\"}",
                    new Answer.Preview(List.of(), Optional.of("needs 2 fully idle GPUs; gpu0 is paused")), Expect.PREVIEW),
            new Written("{\"v\":1,\"ok\":true,\"running\":2}", new Answer.Draining(2), Expect.DRAINING),
            new Written("{\"v\":1,\"ok\":true,\"text_bytes\":148}", new Answer.QueueText(148), Expect.QUEUE_TEXT),
            new Written("{\"v\":1,\"ok\":true,\"text_chunks\":true}", new Answer.QueueTextChunks(), Expect.QUEUE_TEXT),
            new Written("{\"v\":1,\"ok\":true,\"url\":\"http://127.0.0.1:8765/?token=3q2-7wHx\"}",
                    new Answer.DashboardUrl("http://127.0.0.1:8765/?token=3q2-7wHx"), Expect.DASHBOARD_URL),
            new Written("{\"v\":1,\"ok\":true,\"snapshot\":{\"at\":\"2024-11-24T09:30:00.250Z\",\"board\":{\"running\":[],"
                    + "\"pending\":[],\"done\":[],\"earlier\":[],\"interrupted\":[]},\"paused_gpus\":[0],\"orphans\":[],\"gpus\":"
                    + "[{\"index\":0,\"uuid\":\"GPU-5e7a\",\"name\":\"NVIDIA A100-SXM4-40GB\",\"pci_bus_id\":\"00000000:07:00.0\","
                    + "\"total_mib\":40960,\"used_mib\":0,\"util_percent\":0,\"healthy\":true},{\"index\":1,\"uuid\":\"GPU-9c1f\","
                    + "\"name\":\"NVIDIA A100-SXM4-40GB\",\"pci_bus_id\":\"00000000:0F:00.0\",\"total_mib\":40960,\"used_mib\":18120,"
                    + "\"util_percent\":97,\"healthy\":true}],\"memory\":[{\"gpu\":0,\"total_mib\":40960,\"used_mib\":0,"
                    + "\"external_mib\":0,\"headroom_mib\":40960,\"jobs\":[]},{\"gpu\":1,\"total_mib\":40960,\"used_mib\":18120,"
                    + "\"external_mib\":470,\"headroom_mib\":19010,\"jobs\":[{\"no\":6,\"declared_mib\":20480,\"used_mib\":17650,"
                    + "\"peak_mib\":17650,\"budget_mib\":20480}]}]},\"rows\":{\"running\":1,\"pending\":1,\"done\":1,\"earlier\":0,"
                    + "\"interrupted\":0},\"lines\":3}",
                    Answer.Queue.streamedHead(QUEUE, Map.of(BoardList.RUNNING, 1, BoardList.PENDING, 1, BoardList.DONE, 1,
                            BoardList.EARLIER, 0, BoardList.INTERRUPTED, 0), 3), Expect.QUEUE),
            new Written("{\"v\":1,\"list\":\"running\",\"rows\":[{\"no\":6,\"command\":\"python train.py\",\"gpus\":[1],"
                    + "\"elapsed_s\":1843.2,\"current_mib\":{\"1\":17650},\"peak_mib\":17650,\"stopping\":null,\"owner\":\"ada\","
                    + "\"declared_mib\":20480,\"priority\":0,\"rule\":null}]}",
                    new Answer.Rows(BoardList.RUNNING, List.copyOf(BOARD.running())), Expect.ROWS),
            new Written("{\"v\":1,\"list\":\"pending\",\"rows\":[{\"no\":7,\"command\":\"python sweep.py --seed 1\","
                    + "\"declared_mib\":8192,\"attempts\":0,\"reason\":\"gpu0 is paused; needs 1 GPU with ≥ 8704 MiB headroom\","
                    + "\"owner\":\"bob\",\"held\":false,\"priority\":1,\"rule\":null}]}",
                    new Answer.Rows(BoardList.PENDING, List.copyOf(BOARD.pending())), Expect.ROWS),
            new Written("{\"v\":1,\"list\":\"done\",\"rows\":[{\"key\":\"s5\",\"no\":5,\"command\":\"python eval.py\","
                    + "\"gpus\":[1],\"status\":\"ok\",\"exit_code\":0,\"declared_mib\":4096,\"peak_mib\":{\"1\":3900},"
                    + "\"verdict\":\"within\",\"avg_util_percent\":71.5,\"duration_s\":95.25,\"measurement\":\"measured\","
                    + "\"cause\":null,\"owner\":\"ada\",\"learned\":null,\"declaration\":\"within\"}]}",
                    new Answer.Rows(BoardList.DONE, List.copyOf(BOARD.done())), Expect.ROWS),
            new Written("{\"v\":1,\"part\":\"echo 7 xxxxxxxx...\"}", new Answer.Part("echo 7 xxxxxxxx..."), Expect.PART),
            new Written("{\"v\":1,\"ok\":true,\"parts\":1,\"warnings\":[]}", new Answer.Stats(1, List.of()), Expect.STATS),
            new Written("{\"v\":1,\"part\":\"period        2026-02-23 13:00:00 to 2026-03-02 13:00:00 UTC (7d00h)\\nusers         only bob"
                    + "\\njobs          3: 1 ok, 1 failed, 1 cancelled\\n...\"}", new Answer.Part("period        2026-02-23 13:00:00 to"
                    + " 2026-03-02 13:00:00 UTC (7d00h)\nusers         only bob\njobs          3: 1 ok, 1 failed, 1 cancelled\n..."),
                    Expect.PART),
            new Written("{\"v\":1,\"ok\":false,\"error\":{\"code\":\"forbidden\",\"message\":\"only alice or an admin (root,"
                    + " group lab) may see alice's stats\"}}", new Answer.Failure("forbidden",
                    "only alice or an admin (root, group lab) may see alice's stats"), Expect.STATS),
            new Written("{\"v\":1,\"ok\":true,\"event\":\"queued\",\"no\":7}", new Answer.Queued(7), Expect.SRUN_EVENT),
            new Written("{\"v\":1,\"ok\":true,\"event\":\"waiting\",\"no\":7,\"position\":2,\"of\":3,"
                    + "\"reason\":\"needs 1 GPU with ≥ 20992 MiB headroom; ...\"}",
                    new Answer.Waiting(7, 2, 3, "needs 1 GPU with ≥ 20992 MiB headroom; ..."), Expect.SRUN_EVENT),
            new Written("{\"v\":1,\"ok\":true,\"event\":\"ended\",\"no\":7,\"recorded\":\"recorded\",\"status\":\"ok\","
                    + "\"exit_code\":0,\"peak_mib\":17650,\"declared_mib\":20480,\"verdict\":\"within\",\"seconds\":1843.2}",
                    new Answer.Ended(7, LeaseEnd.RECORDED, Optional.of(new Answer.Outcome(JobStatus.OK, 0, OptionalLong.of(17_650),
                            OptionalLong.of(20_480), Verdict.WITHIN, 1843.2))), Expect.SRUN_EVENT));

    @Test
    void everyRequestLineIsTheEncodingOfItsValue_andReadsBackToIt() {
        for (Sent s : REQUESTS) {
            assertEquals(s.line(), CODEC.encode(s.value()));
            assertEquals(s.value(), CODEC.decodeRequest(s.line()), s.line());
        }
    }

    @Test
    void everyLineTheServiceWritesIsTheEncodingOfItsValue_andReadsBackToIt() {
        for (Written w : ANSWERS) {
            assertEquals(w.line(), CODEC.encode(w.value()));
            assertEquals(w.value(), CODEC.decode(w.line(), w.expect()), w.line());
        }
    }

    @Test
    void protocolMdHoldsEveryGoldenLine_andNoCompleteExampleThatIsNotOne() throws IOException {
        List<String> doc = Files.readAllLines(PROTOCOL_MD);
        List<String> examples = doc.stream().filter(l -> l.startsWith("→ ") || l.startsWith("← "))
                .map(l -> l.substring(2)).filter(ProtocolGoldenLinesTest::isJson).toList();
        List<String> golden = java.util.stream.Stream.concat(REQUESTS.stream().map(Sent::line),
                ANSWERS.stream().map(Written::line)).toList();
        for (String line : golden) {
            assertTrue(examples.contains(line), "PROTOCOL.md lost the example " + line);
        }
        for (String line : examples) {
            assertTrue(golden.contains(line), "PROTOCOL.md's example is not pinned here: " + line);
        }
        assertEquals(47, golden.size(), "the golden lines");
    }

    @Test
    void theTextExamplesHeadCountsTheBytesOfTheTextAfterIt() throws IOException {
        List<String> doc = Files.readAllLines(PROTOCOL_MD);
        int head = doc.indexOf("← {\"v\":1,\"ok\":true,\"text_bytes\":148}");
        assertTrue(head > 0, "PROTOCOL.md's text example");
        StringBuilder text = new StringBuilder();
        for (int i = head + 1; !doc.get(i).equals("```"); i++) {
            text.append(doc.get(i)).append('\n');
        }
        assertEquals(148, text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

    @Test
    void theChunkedExamplesChunksAreEachTheirLengthOfWholeLines_andTheZeroLineEndsThem() throws IOException {
        List<String> doc = Files.readAllLines(PROTOCOL_MD);
        int head = doc.indexOf("← {\"v\":1,\"ok\":true,\"text_chunks\":true}");
        assertTrue(head > 0, "PROTOCOL.md's chunked text example");
        int i = head + 1;
        int chunks = 0;
        while (true) {
            int length = QueueTextLines.chunkBytes(doc.get(i++));
            assertTrue(length >= 0, "a chunk's length line: " + doc.get(i - 1));
            if (length == 0) {
                break;
            }
            StringBuilder chunk = new StringBuilder();
            while (chunk.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length < length) {
                chunk.append(doc.get(i++)).append('\n');
            }
            assertEquals(length, chunk.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length,
                    "the chunk's whole lines: " + chunk);
            chunks++;
        }
        assertEquals("```", doc.get(i), "the text ends at the 0");
        assertTrue(chunks > 0);
    }

    @Test
    void aQueueTextFieldThisDaemonDoesNotKnow_isIgnored_asAnOlderDaemonIgnoresChunks() {
        Request.Queue q = (Request.Queue) CODEC.decodeRequest(
                "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"list\",\"colour\":\"always\",\"pages\":3}}");
        assertEquals(new Request.Text(false, Optional.empty(), OptionalInt.empty(), false, Optional.empty(), false),
                q.text().orElseThrow());
    }

    @Test
    void aQueueTextFieldOutOfItsBoundIsABadRequestNamingIt() {
        String[] hostile = {
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"table\",\"format\":\"" + "%i".repeat(501) + "\"}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"table\",\"width\":0}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"table\",\"width\":100000}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"grid\"}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"list\",\"format\":\"%i\"}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"list\",\"user\":\"" + "u".repeat(257) + "\"}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":\"table\"}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"format\":\"%i\"}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"list\",\"chunks\":\"yes\"}}",
            "{\"v\":1,\"op\":\"queue\",\"text\":{\"layout\":\"list\",\"chunks\":1}}"};
        String[] named = {"\"format\" is 1002 characters", "\"width\"", "\"width\"", "\"layout\"", "\"format\" is for",
            "\"user\"", "\"text\"", "\"layout\"", "\"chunks\"", "\"chunks\""};
        for (int i = 0; i < hostile.length; i++) {
            String line = hostile[i];
            UnreadableRequest e = org.junit.jupiter.api.Assertions.assertThrows(UnreadableRequest.class,
                    () -> CODEC.decodeRequest(line), line);
            assertEquals(UnreadableRequest.Reason.BAD_REQUEST, e.reason());
            assertTrue(e.getMessage().contains(named[i]), e.getMessage());
        }
    }

    @Test
    void theStreamedExamplesRowsAreTheRowsOfTheQueueTheHeadAnnounces() {
        Answer.Queue head = (Answer.Queue) ANSWERS.stream().filter(w -> w.expect() == Expect.QUEUE).findFirst().orElseThrow().value();
        long rowLines = ANSWERS.stream().filter(w -> w.expect() == Expect.ROWS).count();
        assertEquals(OptionalInt.of((int) rowLines), head.lines());
        assertEquals(QUEUE.withBoard(QueueView.Board.EMPTY), head.snapshot());
    }

    private static boolean isJson(String s) {
        try (JsonParser p = new JsonFactory().createParser(s)) {
            while (p.nextToken() != null) {
                // read to the end: a shortened example fails on its "..."
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}

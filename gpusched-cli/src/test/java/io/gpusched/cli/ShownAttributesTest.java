package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.event.JsonEventWriter;
import io.gpusched.event.QueueSnapshot;
import io.gpusched.event.StatusBoard;
import io.gpusched.jobs.Attribute;
import io.gpusched.jobs.JobSpec;
import io.gpusched.jobs.Notes;
import io.gpusched.protocol.ListText;
import io.gpusched.protocol.ProtocolCodec;
import io.gpusched.protocol.QueueView;
import io.gpusched.protocol.Row;
import io.gpusched.testkit.arbitraries.JobSpecArbitraries;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every attribute the table marks shown ({@link Attribute#shown()}, e.g. {@code comment=}) reaches every view
 * of a job by the one generic path, with no view naming it: the status board's JSON (the status file, the
 * events, the dashboard's stream) and the queue answer carry it under its field name where {@code comment}
 * has always been, and {@code gpusched queue}'s list and table and {@code gpusched top} show it after the
 * command. The tests iterate the table, so a view that special-cases one shown attribute, or misses one, fails
 * as soon as a second is added.
 */
class ShownAttributesTest {
    private static final ProtocolCodec CODEC = new ProtocolCodec();
    private static final int DRAWS = 25;

    @Test
    void theTableShowsAtLeastOneAttribute_andOnlyAShownOneReadsAsANote() {
        assertFalse(Attribute.SHOWN.isEmpty(), "comment= is shown: the tests below would prove nothing without one");
        assertEquals(Attribute.ALL.stream().filter(Attribute::shown).toList(), Attribute.SHOWN);
        Random random = new Random(24);
        for (Attribute a : Attribute.ALL) {
            for (int i = 0; i < DRAWS; i++) {
                JobSpec spec = carrying(a, random);
                assertEquals(a.shown(), a.shownText(spec).isPresent(), a + " on " + spec.toLine());
                assertEquals(a.shownText(spec), Notes.of(spec).get(a), a + " on " + spec.toLine());
            }
        }
    }

    @Test
    void everyShownAttributeOfAJobIsInTheBoardJsonAndTheQueueAnswer_whereCommentHasAlwaysBeen() {
        Random random = new Random(8);
        for (Attribute a : Attribute.SHOWN) {
            for (int i = 0; i < DRAWS; i++) {
                JobSpec spec = carrying(a, random);
                StatusBoard board = board(spec);
                String field = "\"" + a.fieldName() + "\":" + JsonEventWriter.valueToJson(cut(a.shownText(spec).orElseThrow()));
                String boardJson = JsonEventWriter.listJson(snapshot(board), ProtocolCodec.LIST_COMMAND_CHARS,
                        ProtocolCodec.LIST_TEXT_CHARS);
                String wire = CODEC.encode(QueueView.listed(snapshot(board)));
                assertEquals(boardJson, wire, "the queue answer is the status board's JSON, byte for byte");
                assertEquals(2, wire.split(java.util.regex.Pattern.quote(field), -1).length - 1,
                        "the running and the pending row carry " + field + ": " + wire);
                // In each row after "rule" and before what came after comment=: cluster, then gpus_asked.
                String running = CODEC.encode(Row.listed(board.running().get(0)));
                assertTrue(running.indexOf("\"rule\":") < running.indexOf(field)
                        && running.indexOf(field) < running.indexOf("\"cluster\":"), running);
                String pending = CODEC.encode(Row.listed(board.pending().get(0)));
                assertTrue(pending.indexOf("\"rule\":") < pending.indexOf(field)
                        && pending.indexOf(field) < pending.indexOf("\"gpus_asked\":"), pending);
                QueueView back = TopSnapshotTest.parse(wire);
                assertEquals(Notes.of(spec).map(t -> ListText.cut(t, ProtocolCodec.LIST_TEXT_CHARS)),
                        back.board().running().get(0).notes(), "read back: " + wire);
                assertEquals(back.board().running().get(0).notes(), back.board().pending().get(0).notes());
            }
        }
    }

    @Test
    void everyShownAttributeOfAJobIsInQueueTextItsTableAndTop() {
        Random random = new Random(6);
        for (Attribute a : Attribute.SHOWN) {
            for (int i = 0; i < DRAWS; i++) {
                JobSpec spec = carrying(a, random);
                String text = DisplayWidth.clean(cut(a.shownText(spec).orElseThrow()));
                QueueView view = TopSnapshotTest.parse(CODEC.encode(QueueView.listed(snapshot(board(spec)))));
                io.gpusched.cli.QueueView.Shown shown = new io.gpusched.cli.QueueView.Shown(view, 0, 0);

                String list = print(out -> QueueText.printQueue(out, shown));
                List<String> jobs = list.lines().filter(l -> l.contains(" job ")).toList();
                assertEquals(2, jobs.size(), list);
                jobs.forEach(l -> assertTrue(l.contains("   # " + text), a + ": " + l));

                for (String format : List.of("%i %k", "job,note", "job," + a.key())) {
                    String table = print(out -> new QueueTable(QueueFormat.parse(format), OptionalInt.empty(), false)
                            .print(out, shown));
                    List<String> lines = table.lines().toList();
                    // The notes' column is titled by the one shown attribute while there is one (squeue's COMMENT).
                    assertEquals(format.endsWith(a.key()) || Attribute.SHOWN.size() == 1
                                    ? a.key().toUpperCase(java.util.Locale.ROOT) : "NOTE",
                            lines.get(0).substring(lines.get(0).lastIndexOf(' ') + 1), table);
                    // A table's line ends with no space.
                    assertTrue(lines.get(1).endsWith("  " + text.stripTrailing())
                            && lines.get(2).endsWith("  " + text.stripTrailing()), format + ": " + table);
                }

                TopSnapshot top = TopSnapshot.of(view);
                assertTrue(top.running().get(0).command().endsWith("  # " + text), top.running().toString());
                assertTrue(top.pending().get(0).command().endsWith("  # " + text), top.pending().toString());
            }
        }
    }

    /** A job with a value of {@code a} drawn as the property tests draw it (and what must agree with it). */
    private static JobSpec carrying(Attribute a, Random random) {
        return JobSpecArbitraries.setting(a).next(random, 30).apply(JobSpec.parse("python train.py"));
    }

    /** The board as the loop's BoardRows makes it for a job running and the same job pending. */
    private static StatusBoard board(JobSpec spec) {
        Notes<String> notes = Notes.of(spec);
        return new StatusBoard(
                List.of(StatusBoard.Running.builder(1, spec.command()).gpus(List.of(0)).elapsed(Duration.ofSeconds(5))
                        .owner(Optional.of("ada")).notes(notes).cluster(Optional.of("slurm job 41 RUNNING")).build()),
                List.of(StatusBoard.Pending.builder(2, spec.command()).reason("its turn").owner(Optional.of("ada"))
                        .notes(notes).gpusAsked(Optional.of("1")).build()),
                List.of());
    }

    private static QueueSnapshot snapshot(StatusBoard board) {
        return new QueueSnapshot(Instant.EPOCH, board, Set.of(), List.of(), List.of());
    }

    /** A note's text as a list view carries it. */
    private static String cut(String text) {
        return ListText.cut(text, ProtocolCodec.LIST_TEXT_CHARS).text();
    }

    private static String print(java.util.function.Consumer<PrintStream> printer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        printer.accept(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }
}

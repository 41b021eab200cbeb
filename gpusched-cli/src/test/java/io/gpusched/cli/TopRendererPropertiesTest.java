package io.gpusched.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpusched.cli.ScreenLine.Span;
import io.gpusched.cli.ScreenLine.Style;
import io.gpusched.testkit.arbitraries.Gen;
import io.gpusched.testkit.arbitraries.Property;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Invariants of top's frames over random queues (read through {@link TopSnapshot#of}, as the daemon's
 * JSON is, with hostile text in commands, owners and reasons) and random terminal sizes.
 */
class TopRendererPropertiesTest {
    /** Pieces of text: wide, combining, emoji, escapes, tabs, bidi overrides, block characters, long runs. */
    private static final List<String> PIECES = List.of("a", "python train.py", " ", "日本語", "e\u0301", "\uD83D\uDE00", "\t",
            "\u001b[31m", "\n", "█▓", "—", "\u202E", "ü", "x".repeat(40), "--lr=3e-4", "한국", "\u0007", "\uD800");

    /** One random frame to draw: the daemon's snapshot, the terminal, the selection and status line. */
    record Case(Map<String, Object> snapshot, int width, int height, OptionalInt selected, boolean status) {
        TopRenderer.View view() {
            return new TopRenderer.View(width, height, selected,
                    status ? Optional.of(new Span("cancel job 3 (" + text(snapshot) + ")? y/n", Style.WARN)) : Optional.empty(),
                    TopRenderer.Glyphs.UNICODE);
        }

        private static String text(Map<String, Object> snapshot) {
            return DisplayWidth.clean(String.valueOf(snapshot.get("title")));
        }
    }

    private static String text(RandomGenerator r, int size) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(1 + Math.min(6, size / 10 + 1)); i >= 0; i--) {
            b.append(PIECES.get(r.nextInt(PIECES.size())));
        }
        return b.toString();
    }

    private static final Gen<Case> CASES = (r, size) -> {
        int gpus = r.nextInt(1 + Math.min(8, size / 8));
        List<Object> gpuList = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            long total = 1 + r.nextLong(100_000);
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("index", (long) i);
            g.put("total_mib", total);
            g.put("used_mib", r.nextLong(total + total / 5 + 1)); // a backend may say more than total
            g.put("util_percent", r.nextBoolean() ? (Object) (long) r.nextInt(101) : null);
            g.put("healthy", r.nextInt(5) > 0);
            gpuList.add(g);
        }
        List<Long> numbers = new ArrayList<>();
        int jobs = r.nextInt(1 + Math.min(60, size));
        for (long n = 1; n <= jobs; n++) {
            numbers.add(r.nextInt(3) == 0 ? n * 99_991 % 1_000_000 + n : n);
        }
        java.util.Collections.shuffle(numbers, new java.util.Random(r.nextLong()));
        List<Object> running = new ArrayList<>();
        List<Object> pending = new ArrayList<>();
        List<Object> done = new ArrayList<>();
        for (Long no : numbers) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("no", no);
            row.put("command", text(r, size));
            row.put("owner", r.nextInt(6) == 0 ? null : text(r, size));
            row.put("priority", (long) (r.nextInt(3) == 0 ? r.nextInt(2_000_001) - 1_000_000 : r.nextInt(5)));
            row.put("declared_mib", r.nextBoolean() ? (Object) r.nextLong(200_000) : null);
            switch (r.nextInt(3)) {
                case 0 -> {
                    List<Object> on = new ArrayList<>();
                    Map<String, Object> current = new LinkedHashMap<>();
                    for (int i = 0; i < gpus; i++) {
                        if (on.isEmpty() || r.nextInt(3) == 0) {
                            on.add((long) i);
                            current.put(String.valueOf(i), r.nextLong(120_000));
                        }
                    }
                    if (gpus == 0) {
                        on.add(0L);
                    }
                    row.put("gpus", on);
                    row.put("current_mib", current);
                    row.put("elapsed_s", r.nextDouble() * 400_000);
                    row.put("stopping", r.nextInt(4) == 0 ? "cancelled" : null);
                    running.add(row);
                }
                case 1 -> {
                    row.put("reason", text(r, size));
                    pending.add(row);
                }
                default -> {
                    row.put("status", List.of("ok", "failed", "failed_oom", "dependency_failed", "cancelled").get(r.nextInt(5)));
                    int verdict = r.nextInt(3);
                    row.put("declaration", List.of("within", "under_declared", "over_declared").get(verdict));
                    // The daemon's declaration says its verdict in the log's words; the client reads the verdict.
                    row.put("verdict", List.of("within", "over", "under").get(verdict));
                    row.put("peak_mib", Map.of("0", r.nextLong(100_000)));
                    done.add(row);
                }
            }
        }
        Map<String, Object> board = new LinkedHashMap<>();
        board.put("running", running);
        board.put("pending", pending);
        board.put("done", done);
        Map<String, Object> snapshot = new LinkedHashMap<>();
        snapshot.put("board", board);
        snapshot.put("gpus", gpuList);
        snapshot.put("paused_gpus", gpus > 0 && r.nextBoolean() ? List.of((long) r.nextInt(gpus)) : List.of());
        snapshot.put("title", text(r, size));
        List<Integer> selectable = TopRenderer.selectable(TopSnapshot.of(TopSnapshotTest.view(snapshot)));
        OptionalInt selected = selectable.isEmpty() || r.nextInt(4) == 0 ? OptionalInt.empty()
                : OptionalInt.of(selectable.get(r.nextInt(selectable.size())));
        return new Case(snapshot, 1 + r.nextInt(220), 1 + r.nextInt(90), selected, r.nextBoolean());
    };

    private static final Pattern SGR = Pattern.compile("\u001b\\[[0-9;]*m");

    @Test
    void noLineIsWiderThanTheTerminal_theFrameNeverTallerAndFullWithAStatusLine_noControlCharacterReachesIt() {
        Property.forAll(CASES).check(c -> {
            List<ScreenLine> frame = TopRenderer.render(TopSnapshot.of(TopSnapshotTest.view(c.snapshot())), c.view());
            assertTrue(frame.size() <= c.height(), frame.size() + " lines for " + c.height() + " rows");
            if (c.status() && c.height() > 1) {
                assertEquals(c.height(), frame.size());
                assertTrue(frame.get(frame.size() - 1).plain().startsWith(
                        DisplayWidth.prefix("cancel job 3", c.width() - 1)), "the status line is the last");
            }
            for (ScreenLine l : frame) {
                assertTrue(columns(l.plain()) <= c.width(), columns(l.plain()) + " columns for " + c.width() + ": " + l.plain());
                String shown = SGR.matcher(l.ansi()).replaceAll("");
                assertEquals(l.plain(), shown);
                assertTrue(shown.codePoints().noneMatch(ch -> ch < 0x20 || ch == 0x7F || Character.getType(ch) == Character.FORMAT
                        || Character.getType(ch) == Character.SURROGATE), "a control character: " + shown);
            }
        });
    }

    @Test
    void everyRunningJobAppearsWhenThereIsRoom_andTheSelectedJobAlways() {
        Property.forAll(CASES).check(c -> {
            TopSnapshot s = TopSnapshot.of(TopSnapshotTest.view(c.snapshot()));
            List<String> frame = TopRenderer.render(s, c.view()).stream().map(ScreenLine::plain).toList();
            int bars = Math.max(1, s.gpus().size());
            int fixed = 1 + (c.status() ? 1 : 0) + bars + 1; // title, status, bars, table head
            boolean wideEnough = c.width() >= 16;
            boolean runningSelected = c.selected().isEmpty()
                    || s.running().stream().anyMatch(r -> r.no() == c.selected().getAsInt());
            if (wideEnough && runningSelected
                    && c.height() >= fixed + s.running().size() + (s.pending().isEmpty() ? 0 : 1)) {
                for (TopSnapshot.Running r : s.running()) {
                    assertTrue(frame.stream().anyMatch(l -> row(l, r.no())), "job " + r.no() + " missing:\n"
                            + String.join("\n", frame));
                }
            }
            if (wideEnough && c.selected().isPresent() && c.height() >= fixed + 2) {
                assertEquals(1, frame.stream().filter(l -> l.startsWith(">") && row(l, c.selected().getAsInt())).count(),
                        "the selected job " + c.selected().getAsInt() + ":\n" + String.join("\n", frame));
            }
        });
    }

    /**
     * Columns as a terminal counts them, independently of {@link DisplayWidth} (enough for the pieces
     * generated here): Hangul, CJK and emoji two, combining marks none, the rest one.
     */
    private static int columns(String s) {
        return s.codePoints().map(c -> Character.getType(c) == Character.NON_SPACING_MARK ? 0
                : c >= 0xAC00 && c <= 0xD7A3 || c >= 0x4E00 && c <= 0x9FFF || c >= 0x1F300 && c <= 0x1F64F ? 2 : 1).sum();
    }

    /** Whether a line is job {@code no}'s row in the table. */
    private static boolean row(String line, int no) {
        return line.matches("[> ] +" + no + " .*");
    }
}
